"""The References and Verification sections, written by code, the notice at the top of a report
that did not pass, and the finalized report text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from deepresearch.core.languages import describe
from deepresearch.core.workspace import Workspace
from deepresearch.report.archives import archive_path
from deepresearch.report.blocks import NOTICE_PREFIX, strip_generated_sections
from deepresearch.report.check import Violation
from deepresearch.report.citations import cited_in_order
from deepresearch.report.measures import ReportMeasures, measure
from deepresearch.report.places import entry_details
from deepresearch.report.stats import citation_stats, format_ages, language_shares, share
from deepresearch.search.searchlog import query_languages, read_search_log
from deepresearch.state.model import Fact, Source, TaskDoc
from deepresearch.state.questions import asked_in, current_question, is_follow_up

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~!#])")
_AUTOLINKABLE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*$")
ENTRY_ID = re.compile(r"^\*\*\\?\[(S\d+)\\?\]\*\*")  # how a reference entry starts: **[S01]**


def md_escape(text: str) -> str:
    """Text made inert in markdown: special characters backslash-escaped, newlines flattened."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _url_markdown(url: str) -> str:
    url = url.strip()
    if not url:
        return "no URL recorded"
    return f"<{url}>" if _AUTOLINKABLE.match(url) else md_escape(url)


def _archive_markdown(source: Source, workspace_root: Path) -> str:
    path = archive_path(source, workspace_root)
    if path is None or not path.is_file():
        shown = f" ({md_escape(source.archive)})" if source.archive.strip() else ""
        return f"archived copy missing{shown}"
    relative = path.relative_to(workspace_root).as_posix()
    return f"archived copy: [{md_escape(relative)}]({quote(relative, safe='/-_.~')})"


def reference_entry(
    source: Source, workspace_root: Path, facts: Sequence[Fact] = (), origin: str = ""
) -> str:
    """One source as a reference line: ID, title, authors/venue/DOI and `provided document` when
    known, URL, archive link, accessed and published dates, and (given the facts) where their
    verified quotes were found: `quoted at p. 3` linking to the archived PDF's page, or a video's time.
    `origin` says, in a follow-up, whether the source is reused from an earlier question or new."""
    title = md_escape(source.title) or "(untitled)"
    accessed = source.accessed.strip()[:10] or "unknown"
    published = source.published.strip() or "unknown"
    details = entry_details(facts, source, workspace_root, md_escape)
    quoted = [d for d in details if d.startswith("quoted at ")]
    return " · ".join(
        [
            f"**[{source.id}]** {title}",
            *[d for d in details if d not in quoted],
            _url_markdown(source.url),
            _archive_markdown(source, workspace_root),
            f"accessed {md_escape(accessed)}, published {md_escape(published)}",
            *quoted,
            *([origin] if origin else []),
        ]
    )


def source_origins(doc: TaskDoc) -> dict[str, str]:
    """In a follow-up, each source's origin for References: `reused from Q1` or `new in Q2` (a newer
    archive of a stale source says which one it renews); {} for a first question."""
    if not is_follow_up(doc):
        return {}
    current = current_question(doc).id
    origins: dict[str, str] = {}
    for source in doc.sources:
        asked = asked_in(doc, source.id)
        origin = f"reused from {asked}" if asked != current else f"new in {current}"
        renewed = doc.source(source.copy_of) if source.copy_of else None
        if asked == current and renewed is not None and renewed.url == source.url:
            origin += f" (newer archive of {renewed.id})"
        origins[source.id] = origin
    return origins


def _mix_text(mix: dict[str, int]) -> str:
    return " · ".join(f"{md_escape(kind)} {count}" for kind, count in mix.items()) or "none"


def _claims_text(report: ReportMeasures) -> str:
    counts = report.support
    if not counts.checked:
        why = report.note or (
            "the report cites no sentence" if not counts.claims else "the verifier has not run"
        )
        return f"not checked ({md_escape(why)})"
    text = share(counts.supported, counts.checked)
    parts = [f"{counts.partial} partial", f"{counts.unsupported} unsupported"]
    if counts.claims > counts.checked:
        parts.append(f"{counts.claims - counts.checked} not checked")
    return f"{text} · {' · '.join(parts)}"


def _languages_text(doc: TaskDoc, cited: list[str], workspace_root: Path) -> str:
    """The method note on languages: per language, the queries made in it and the sources it gave."""
    planned = [p.code for p in doc.front.languages]
    queries = query_languages(read_search_log(Workspace(workspace_root)), planned)
    parts = []
    for lang in language_shares(doc, cited, queries):
        name = describe(lang.code) if lang.code else "language unknown"
        plural = "y" if lang.queries == 1 else "ies"
        counts = f"{lang.sources} source{'s' * (lang.sources != 1)} ({lang.cited} cited)"
        parts.append(f"{name}: {lang.queries} quer{plural}, {counts}" if lang.code else f"{name}: {counts}")
    return md_escape(" · ".join(parts)) if parts else "none recorded"


def _statistics(doc: TaskDoc, cited: list[str], report: ReportMeasures, workspace_root: Path) -> list[str]:
    st, m = citation_stats(doc, cited), report.measures
    cited_age, all_age = format_ages(st.median_age_days_cited, st.median_age_days_all)
    verified = share(st.facts_verified, st.facts_total)
    copies = f" ({m.copies_folded} cop{'ies' if m.copies_folded != 1 else 'y'} counted once)"
    rows = [
        ("Sources cited", share(st.sources_cited, st.sources_total)),
        ("Total sources", str(st.sources_total)),
        ("Independent sources", f"{m.independent_sources}" + (copies if m.copies_folded else "")),
        ("Facts verified", verified + (f" · {report.facts_partial} partial" if report.facts_partial else "")),
        ("Single-source claims", share(st.single_source_facts, st.facts_total, "facts")),
        ("Numbers grounded", share(m.numbers_grounded, m.numbers_total, "numbers")),
        ("Distinct domains", f"{st.domains_cited} cited · {st.domains_total} in total"),
        ("Languages searched", _languages_text(doc, cited, workspace_root)),
        ("Authority mix (cited)", _mix_text(st.authority_cited)),
        ("Authority mix (all)", _mix_text(st.authority_all)),
        ("Median source age (cited)", cited_age),
        ("Median source age (all)", all_age),
        ("Claims supported", _claims_text(report)),
    ]
    return ["| Statistic | Value |", "| --- | --- |", *(f"| {name} | {value} |" for name, value in rows)]


def render_references(report_text: str, doc: TaskDoc, workspace_root: Path) -> str:
    """The `## References` section: cited sources in order of first citation, the others, statistics."""
    body = strip_generated_sections(report_text)
    cited = [i for i in cited_in_order(body) if doc.source(i)]
    cited_sources = [s for s in map(doc.source, cited) if s is not None]
    others = [s for s in doc.sources if s.id not in cited]
    origins = source_origins(doc)
    lines = ["## References", "", "### Cited sources", ""]
    lines += [
        f"{n}. {reference_entry(s, workspace_root, doc.facts, origins.get(s.id, ''))}"
        for n, s in enumerate(cited_sources, 1)
    ]
    lines += [] if cited_sources else ["No source is cited."]
    lines += ["", "### Additional sources (not cited)", ""]
    lines += [
        f"- {reference_entry(s, workspace_root, doc.facts, origins.get(s.id, ''))}" for s in others
    ] or ["None."]
    statistics = _statistics(doc, cited, measure(body, doc, workspace_root), workspace_root)
    if origins:
        reused = sum(origins.get(i, "").startswith("reused") for i in cited)
        statistics.append(f"| Sources reused from earlier questions | {share(reused, len(cited))} |")
    lines += ["", "### Citation statistics", "", *statistics]
    return "\n".join(lines) + "\n"


def render_verification(violations: Sequence[Violation]) -> str:
    """The visible `## Verification` section listing each remaining violation with its line."""
    count = len(violations)
    lines = [
        "## Verification",
        "",
        f"**This report did not pass verification: {count} problem{'s' * (count != 1)} "
        f"remain{'s' * (count == 1)}.** Each is listed with its line in report.md; fix them and run "
        "deepresearch check again.",
        "",
    ]
    lines += [f"- Line {v.line} · {v.kind} · {md_escape(v.message)}" for v in sorted(violations)]
    return "\n".join(lines) + "\n"


def render_notice(violations: Sequence[Violation], reason: str = "") -> str:
    """The one-line notice at the top of a report that did not pass ("" when it passed and no
    `reason` says why it is not the report the run meant to write)."""
    count = len(violations)
    why = f" {reason.strip().rstrip('.')}." if reason.strip() else ""
    if count:
        return (
            f"{NOTICE_PREFIX} this report did not pass verification.** {count} problem{'s' * (count != 1)} "
            f"remain{'s' * (count == 1)}, each listed under Verification at its end.{why}"
        )
    return f"{NOTICE_PREFIX} note.**{why}" if why else ""


def with_notice(body: str, violations: Sequence[Violation], reason: str = "") -> tuple[str, list[Violation]]:
    """`body` with the notice after its title (at its top when it has none), and the violations
    with their lines moved to match."""
    notice = render_notice(violations, reason)
    if not notice:
        return body, list(violations)
    lines = body.split("\n")
    at = 1 if lines and lines[0].startswith("# ") else 0
    added = ["", notice] if at else [notice, ""]
    moved = [Violation(v.line + len(added), v.kind, v.message) if v.line > at else v for v in violations]
    return "\n".join(lines[:at] + added + lines[at:]), moved


def finalize_report(
    report_text: str,
    doc: TaskDoc,
    workspace_root: Path,
    violations: Sequence[Violation],
    reason: str = "",
) -> str:
    """The report with any References/Verification section (and notice) replaced by the ones code
    writes; `violations` are at lines of the report without them.

    Idempotent: finalizing a finalized report (with the same violations) gives the same text. The
    body is kept verbatim, so violation line numbers stay valid in the result (moved past the notice).
    """
    body = strip_generated_sections(report_text).rstrip()
    shown, moved = with_notice(body, violations, reason)
    parts = [shown, render_references(body, doc, workspace_root).rstrip()]
    if violations:
        parts.append(render_verification(moved).rstrip())
    return "\n\n".join(part for part in parts if part) + "\n"
