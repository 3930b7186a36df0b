"""Verification of report.md against task.md: each problem becomes a Violation with its line.

Rules (the References and Verification sections, code blocks and code spans are ignored):

- unknown_source: a citation names an ID that is not in `## Sources` (reported at each occurrence).
- missing_archive: a cited source has no archive recorded, a path outside the workspace, or no file.
- altered_archive: a cited source's archive file no longer has the recorded SHA-256 (or none was
  recorded, so it cannot be shown unaltered).
- unbacked_source: a cited source backs no fact in `## Facts`.
  (Source-level problems are reported once, at the source's first citation.)
- unverified_only: a citation group (adjacent citations: the support of one claim) whose sources
  back only facts the verifier judged unsupported by their own quotes (they have left the closed
  world), or in which no source backs a fact whose quote was found (Verified = yes or partial),
  while at least one of its sources backs some fact: the claim rests only on quotes that were not
  found (no) or not checked yet (unchecked). The check works per source, not per fact: code cannot tell which fact a sentence
  restates, so a source with at least one verified fact counts as verified support.
- density: a block that makes claims (see sentences.py) has fewer citation groups than
  ceil(sentences / 2).
- bare_url: an http(s)/ftp/www URL in the body (links, autolinks, images and link definitions
  included; URLs inside code spans are code, not citations, and are allowed).
- unaddressed_conflict: a high-severity conflict none of whose top-level blocks (a paragraph, a
  whole list, a whole table, a whole quote) cites at least one source of every side (each fact of
  the conflict is a side; a copy of a source's text stands for that source). Citing both sides in one place is how code can tell the conflict is
  discussed rather than each side merely used. A follow-up's report answers for a conflict of an
  earlier question only when it cites one of its sides.
- ungrounded_number: a number that no fact cited in its paragraph states or derives (number_check.py).
- unsupported_claim: a cited sentence that the verifier role judged unsupported by the facts it
  cites (its verdicts are read from the workspace: evidence/support.py; claims.py).
- suspicious_number: a sentence states a number from a source flagged suspicious (it addresses AI
  agents) without citing that source (report/suspicious.py).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from deepresearch.evidence.support import SupportStore
from deepresearch.report.archives import ArchiveState, archive_status, normalize_sha256
from deepresearch.report.blocks import Block, body_blocks
from deepresearch.report.citations import CitationGroup, block_groups
from deepresearch.report.claims import unsupported_violations
from deepresearch.report.number_check import number_violations
from deepresearch.report.sentences import citations_needed, count_sentences, makes_claims
from deepresearch.report.suspicious import suspicious_number_violations
from deepresearch.report.violation import Violation, format_violation
from deepresearch.state.model import Fact, Severity, Source, Support, TaskDoc, Verified, id_number
from deepresearch.state.questions import from_earlier

KINDS = (
    "unknown_source",
    "missing_archive",
    "altered_archive",
    "unbacked_source",
    "unverified_only",
    "density",
    "bare_url",
    "unaddressed_conflict",
    "ungrounded_number",
    "unsupported_claim",
    "suspicious_number",
)

URL_RE = re.compile(r"(?:https?|ftp)://[^\s<>()\[\]\"'`]+|\bwww\.[\w-]+\.[\w.-]+[^\s<>()\[\]\"'`]*", re.I)
_CONFLICT_HEADING = re.compile(r"conflict|diverg|uncertaint|disagree|contested|分歧|冲突|不确定|争议")
_BLOCK_NAMES = {"paragraph": "paragraph", "list_item": "list item", "table_row": "table row"}


Cited = list[tuple[Block, CitationGroup]]


def check_report(report_text: str, doc: TaskDoc, workspace_root: Path) -> list[Violation]:
    """Every violation of the report against task.md and the archives, sorted by line."""
    blocks = body_blocks(report_text)
    cited: Cited = [(block, group) for block in blocks for group in block_groups(block)]
    found = [
        *_source_violations(cited, doc, workspace_root),
        *_support_violations(cited, doc),
        *_density_violations(blocks),
        *_url_violations(blocks),
        *_conflict_violations(blocks, cited, doc),
        *number_violations(blocks, doc),
        *unsupported_violations(blocks, SupportStore(workspace_root).load()),
        *(Violation(*found) for found in suspicious_number_violations(blocks, doc)),
    ]
    return sorted(set(found))


def _first_lines(cited: Cited) -> dict[str, list[int]]:
    lines: dict[str, list[int]] = defaultdict(list)
    for _, group in cited:
        for source_id in group.ids:
            if group.line not in lines[source_id]:
                lines[source_id].append(group.line)
    return lines


def _facts_by_source(doc: TaskDoc) -> dict[str, list[Fact]]:
    index: dict[str, list[Fact]] = defaultdict(list)
    for fact in doc.facts:
        for source_id in dict.fromkeys(fact.sources):
            index[source_id].append(fact)
    return index


def _source_violations(cited: Cited, doc: TaskDoc, root: Path) -> list[Violation]:
    backed = _facts_by_source(doc)
    found: list[Violation] = []
    for source_id, lines in _first_lines(cited).items():
        source = doc.source(source_id)
        if source is None:
            found.extend(Violation(n, "unknown_source", _unknown_message(source_id, doc)) for n in lines)
            continue
        also = f" (also cited on line{'s' * (len(lines) > 2)} {', '.join(map(str, lines[1:]))})"
        where = also if len(lines) > 1 else ""
        problem = _archive_problem(source, root)
        if problem:
            found.append(Violation(lines[0], problem[0], problem[1] + where))
        if not backed.get(source_id):
            found.append(
                Violation(
                    lines[0],
                    "unbacked_source",
                    f"[{source_id}] is cited but backs no fact in task.md{where}; cite the source of "
                    "the fact this sentence states, or remove the claim (the report may state only "
                    "what ## Facts holds).",
                )
            )
    return found


def _unknown_message(source_id: str, doc: TaskDoc) -> str:
    known = [s.id for s in doc.sources]
    same_number = [s for s in known if id_number(s) == id_number(source_id)]
    hint = f" Did you mean [{same_number[0]}]?" if same_number else ""
    listed = f"{known[0]}–{known[-1]}" if known else "none"
    return (
        f"[{source_id}] is not a registered source (task.md ## Sources has {listed}); cite the "
        f"registered source that backs this claim, or remove the claim.{hint}"
    )


def _archive_problem(source: Source, root: Path) -> tuple[str, str] | None:
    status = archive_status(source, root)
    redo = f"re-archive it with `deepresearch archive {source.url}` or cite another source"
    sid, archive = source.id, source.archive
    messages = {
        ArchiveState.NO_ARCHIVE: ("missing_archive", f"[{sid}] has no archived copy in task.md; {redo}."),
        ArchiveState.OUTSIDE: (
            "missing_archive",
            f"[{sid}]'s archive path {archive} points outside the workspace; {redo}.",
        ),
        ArchiveState.MISSING: ("missing_archive", f"[{sid}]'s archive file {archive} is missing; {redo}."),
        ArchiveState.NO_HASH: (
            "altered_archive",
            f"[{sid}] has no SHA-256 recorded in task.md, so {archive} cannot be shown unaltered; {redo}.",
        ),
        ArchiveState.ALTERED: (
            "altered_archive",
            f"[{sid}]'s archive file {archive} changed after archiving (SHA-256 "
            f"{status.actual_sha256[:12]}… ≠ recorded {normalize_sha256(source.sha256)[:12]}…); "
            f"restore the original file, or {redo} and re-verify its quotes.",
        ),
    }
    return messages.get(status.state)


def _support_violations(cited: Cited, doc: TaskDoc) -> list[Violation]:
    backed = _facts_by_source(doc)
    found: list[Violation] = []
    for _, group in cited:
        every = [fact for source_id in group.ids for fact in backed.get(source_id, [])]
        facts = [fact for fact in every if fact.support is not Support.UNSUPPORTED]
        if every and not facts:
            found.append(Violation(group.line, "unverified_only", _unsupported_message(group, every)))
            continue
        # A partial fact's quote was found: the numbers it lacks are the number check's business.
        if not facts or any(fact.verified in (Verified.YES, Verified.PARTIAL) for fact in facts):
            continue
        listed = "; ".join(
            f"{f.id}: {'quote not found in the archive' if f.verified == Verified.NO else 'not checked'}"
            for f in facts[:3]
        )
        more = f"; and {len(facts) - 3} more" if len(facts) > 3 else ""
        cites = "".join(f"[{i}]" for i in group.ids)
        found.append(
            Violation(
                group.line,
                "unverified_only",
                f"the claim cited with {cites} rests only on facts whose quotes were not verified "
                f"({listed}{more}); add a source with a verified fact for it, or remove the claim.",
            )
        )
    return found


def _unsupported_message(group: CitationGroup, facts: list[Fact]) -> str:
    listed = "; ".join(f"{f.id}: {f.support_reason.rstrip('.') or 'no reason given'}" for f in facts[:3])
    more = f"; and {len(facts) - 3} more" if len(facts) > 3 else ""
    cites = "".join(f"[{i}]" for i in group.ids)
    return (
        f"the claim cited with {cites} rests only on facts the verifier judged unsupported by their own "
        f"quotes ({listed}{more}), which are not evidence; cite a source with a supported fact for it, "
        "or remove the claim."
    )


def _density_violations(blocks: list[Block]) -> list[Violation]:
    found: list[Violation] = []
    for block in blocks:
        if not makes_claims(block):
            continue
        sentences = count_sentences(block.text)
        groups = len(block_groups(block))
        needed = citations_needed(sentences)
        if groups >= needed:
            continue
        name = _BLOCK_NAMES.get(block.kind, "paragraph")
        found.append(
            Violation(
                block.line,
                "density",
                f"this {name} has {sentences} sentence{'s' * (sentences != 1)} and {groups} "
                f"citation{'s' * (groups != 1)}; it needs at least {needed} (one per two sentences): "
                "cite the source of each claim as [Sxx] right after it, or remove claims that "
                "task.md's facts do not support.",
            )
        )
    return found


def _url_violations(blocks: list[Block]) -> list[Violation]:
    found: list[Violation] = []
    for block in blocks:
        for match in URL_RE.finditer(block.text):
            url = match.group().rstrip(".,;:!?")
            shown = url if len(url) <= 80 else url[:77] + "..."
            found.append(
                Violation(
                    block.line + block.text.count("\n", 0, match.start()),
                    "bare_url",
                    f"bare URL {shown} in the body; cite the registered source as [Sxx] instead (the "
                    "References section lists URLs), archiving it first with `deepresearch archive "
                    "URL` if it is not registered.",
                )
            )
    return found


def _conflict_violations(blocks: list[Block], cited: Cited, doc: TaskDoc) -> list[Violation]:
    by_scope: dict[int, set[str]] = defaultdict(set)
    first_line: dict[int, int] = {}
    for block, group in cited:
        by_scope[block.scope].update(group.ids)
        first_line.setdefault(block.scope, group.line)
    found: list[Violation] = []
    for conflict in doc.conflicts:
        if conflict.severity != Severity.HIGH:
            continue
        sides = [(f.id, set(f.sources)) for f in map(doc.fact, conflict.facts) if f and f.sources]
        if not sides:
            continue
        # A copy of a side's source cites that side: its text is the same (copies count once).
        originals = [doc.independent(list(ids)) for _, ids in sides]
        if any(all(o & doc.independent(list(c)) for o in originals) for c in by_scope.values()):
            continue
        touching = [first_line[s] for s, cites in by_scope.items() if any(ids & cites for _, ids in sides)]
        if not touching and from_earlier(doc, conflict.id):
            continue  # an earlier question's conflict that this follow-up's report does not draw on
        line = min(touching) if touching else _conflict_heading_line(blocks)
        wanted = " and ".join(f"{fid} ({''.join(f'[{i}]' for i in sorted(ids))})" for fid, ids in sides)
        found.append(
            Violation(
                line,
                "unaddressed_conflict",
                f"high-severity conflict {conflict.id} ({conflict.topic}) is not addressed: no "
                f"paragraph, list or table cites every side — {wanted}; discuss it in one paragraph "
                "that cites both sides and says which is preferred by evidence weight.",
            )
        )
    return found


def _conflict_heading_line(blocks: list[Block]) -> int:
    """Where an unaddressed conflict belongs: the uncertainties/divergences heading, else line 1."""
    return next(
        (b.line for b in blocks if b.kind == "heading" and _CONFLICT_HEADING.search(b.text.lower())),
        1,
    )


__all__ = ["KINDS", "Violation", "check_report", "format_violation"]
