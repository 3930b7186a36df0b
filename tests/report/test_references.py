"""References written by code: numbering, entries, statistics; finalize is idempotent."""

from __future__ import annotations

from datetime import date

from deepresearch.report.check import Violation, check_report
from deepresearch.report.references import finalize_report, md_escape, render_references, render_verification
from deepresearch.report.stats import citation_stats, format_age, format_ages, parse_date
from deepresearch.state.model import Fact, Verified
from tests.report.conftest import CLEAN_EN, CLEAN_ZH, Run


def section(text: str, heading: str) -> str:
    """The lines under `heading` up to the next heading of any level."""
    after = text.split(heading + "\n", 1)[1]
    return after.split("\n#", 1)[0].strip()


def test_cited_sources_numbered_in_order_of_first_citation(run: Run) -> None:
    report = "Prices fell [S03]. Sales rose [S01][S03].\n\nShare rose [S02, S01]. Bad [S99].\n"
    cited = section(render_references(report, run.doc, run.root), "### Cited sources").splitlines()
    assert [line.split(" ", 2)[:2] for line in cited] == [
        ["1.", "**[S03]**"],
        ["2.", "**[S01]**"],
        ["3.", "**[S02]**"],
    ]


def test_entry_has_title_url_archive_link_and_dates(run: Run) -> None:
    references = render_references("Sales rose [S01].\n", run.doc, run.root)
    entry = section(references, "### Cited sources")
    assert entry == (
        "1. **[S01]** Global EV Outlook 2025 · <https://www.iea.org/reports/global-ev-outlook-2025> · "
        "archived copy: [assets/web/S01-iea-org.md](assets/web/S01-iea-org.md) · "
        "accessed 2025-06-01, published 2025-05-14"
    )


def test_additional_sources_are_the_uncited_ones_in_id_order(run: Run) -> None:
    references = render_references("Prices fell [S03]. Sales rose [S01].\n", run.doc, run.root)
    additional = section(references, "### Additional sources (not cited)").splitlines()
    assert [line.split(" ", 2)[1] for line in additional] == [f"**[S0{n}]**" for n in (2, 4, 5, 6, 7)]


def test_titles_are_escaped_and_missing_archives_are_not_linked(run: Run) -> None:
    run.archive("S04").unlink()
    references = render_references("A forum [S04].\n", run.doc, run.root)
    entry = section(references, "### Cited sources")
    assert r'**[S04]** Battery cost teardown \<2024\> & "notes" · <https://' in entry
    assert "archived copy missing (assets/web/S04-batteryforum-example-org.md)" in entry
    assert "](assets/web/S04" not in entry


def test_statistics(run: Run) -> None:
    references = render_references(CLEAN_EN, run.doc, run.root)
    rows = dict(
        line.strip("|").split(" | ", 1)
        for line in section(references, "### Citation statistics").splitlines()[2:]
    )
    rows = {k.strip(): v.strip() for k, v in rows.items()}
    assert rows == {
        "Sources cited": "5 of 7 (71%)",
        "Total sources": "7",
        "Independent sources": "7",
        "Facts verified": "6 of 7 (86%)",
        "Single-source claims": "6 of 7 facts (86%)",
        "Numbers grounded": "10 of 10 numbers (100%)",
        "Distinct domains": "5 cited · 7 in total",
        "Authority mix (cited)": "forum 1 · industry 1 · news 1 · official 1 · peer-reviewed 1",
        "Authority mix (all)": "official 2 · blog 1 · forum 1 · industry 1 · news 1 · peer-reviewed 1",
        "Median source age (cited)": "6 months",
        "Median source age (all)": "5 months",
        "Claims supported": "not checked (the verifier has not run)",
        "Languages searched": "language unknown: 7 sources (5 cited)",  # no plan, no search log
    }


def test_median_age_uses_access_date_and_is_unknown_without_dates(run: Run) -> None:
    cited = ["S01", "S02", "S03"]  # published 2025-05-14, 2025-01-15, 2024-12-10; accessed 2025-06-01
    stats = citation_stats(run.doc, cited)
    assert stats.median_age_days_cited == (date(2025, 6, 1) - date(2025, 1, 15)).days
    for source in run.doc.sources:
        source.published = ""
    assert format_age(citation_stats(run.doc, cited).median_age_days_cited) == "unknown"


def test_dates_and_ages() -> None:
    assert parse_date("2024") == date(2024, 7, 1)
    assert parse_date("2024-03") == date(2024, 3, 15)
    assert parse_date("2024-03-09T10:00:00Z") == date(2024, 3, 9)
    assert parse_date("March 2024") is None and parse_date("2024-13-01") is None
    assert [format_age(d) for d in (1, 30, 200, 1000)] == ["1 day", "30 days", "7 months", "2.7 years"]
    # Side by side, one unit: not "2.1 years" beside "24 months".
    assert format_ages(767, 730) == ["2.1 years", "2.0 years"]
    assert format_ages(45, 400) == ["1 month", "13 months"]
    assert format_ages(None, 20) == ["unknown", "20 days"]


def test_single_source_claims_count_distinct_sources(run: Run) -> None:
    run.doc.facts = [Fact("Fact-001", "x", ["S01", "S01"], verified=Verified.YES)]
    assert citation_stats(run.doc, []).single_source_facts == 1


def test_finalize_strips_agent_sections_and_is_idempotent(run: Run) -> None:
    agent = CLEAN_ZH + "\n## 参考文献\n\n1. https://made-up.example\n\n## References\n\n- [S01] junk\n"
    violations = [Violation(3, "density", "needs [S01] *now*")]
    once = finalize_report(agent, run.doc, run.root, violations)
    assert finalize_report(once, run.doc, run.root, violations) == once
    assert "made-up.example" not in once and "junk" not in once
    # The notice follows the title; the violation's line moves with the text below it.
    title, rest = CLEAN_ZH.split("\n", 1)
    notice = "> **deepresearch: this report did not pass verification.** 1 problem remains"
    assert once.startswith(f"{title}\n\n{notice}")
    assert f"{rest.rstrip()}\n\n## References\n" in once
    assert once.count("## References") == 1 and once.count("## Verification") == 1
    assert once.endswith("- Line 5 · density · needs \\[S01\\] \\*now\\*\n")
    assert once.splitlines()[4] == CLEAN_ZH.splitlines()[2]


def test_finalize_without_violations_has_no_verification_section(run: Run) -> None:
    final = finalize_report(CLEAN_EN, run.doc, run.root, [])
    assert "## Verification" not in final
    assert check_report(final, run.doc, run.root) == []
    # Once a run passes, finalizing again drops a stale Verification section.
    stale = finalize_report(CLEAN_EN, run.doc, run.root, [Violation(1, "density", "old")])
    assert finalize_report(stale, run.doc, run.root, []) == final


def test_verification_lists_violations_by_line() -> None:
    text = render_verification([Violation(9, "bare_url", "b"), Violation(2, "density", "a")])
    assert "2 problems remain" in text
    assert text.splitlines()[-2:] == ["- Line 2 · density · a", "- Line 9 · bare_url · b"]


def test_md_escape() -> None:
    assert md_escape("a *b* [c]\n<d> `e` | f_g") == r"a \*b\* \[c\] \<d\> \`e\` \| f\_g"
