"""check_report on hand-written reports: each violation caught at its exact line, clean reports pass."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from deepresearch.report.check import KINDS, Violation, check_report, format_violation
from deepresearch.state.model import Severity, Verified
from tests.report.conftest import CLEAN_EN, CLEAN_ZH, Run


@pytest.fixture
def quiet(run: Run) -> Run:
    """The run without conflicts, for short reports about one thing."""
    run.doc.conflicts.clear()
    return run


def kinds_at(violations: list[Violation]) -> list[tuple[int, str]]:
    return [(v.line, v.kind) for v in violations]


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing `needle` (so tests say where, not a magic number)."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_clean_english_report_passes(run: Run) -> None:
    assert check_report(CLEAN_EN, run.doc, run.root) == []


def test_clean_chinese_report_passes(run: Run) -> None:
    assert check_report(CLEAN_ZH, run.doc, run.root) == []


def test_fabricated_source_is_caught_at_each_line(run: Run) -> None:
    report = CLEAN_EN.replace("than those of petrol cars [S05].", "than petrol cars [S05][S99].")
    report += "\nA later claim repeats it [S99].\n"
    found = check_report(report, run.doc, run.root)
    assert kinds_at(found) == [
        (line_of(report, "petrol cars [S05][S99]"), "unknown_source"),
        (line_of(report, "A later claim"), "unknown_source"),
    ]
    assert "[S99] is not a registered source" in found[0].message
    assert "S01–S07" in found[0].message


def test_unknown_id_with_a_registered_number_suggests_it(quiet: Run) -> None:
    report = "Seventeen million were sold [S1].\n"
    (violation,) = check_report(report, quiet.doc, quiet.root)
    assert (violation.line, violation.kind) == (1, "unknown_source")
    assert "Did you mean [S01]?" in violation.message


def test_deleted_archive_is_caught_at_first_citation(run: Run) -> None:
    run.archive("S05").unlink()
    found = check_report(CLEAN_EN, run.doc, run.root)
    assert kinds_at(found) == [(line_of(CLEAN_EN, "Life-cycle emissions"), "missing_archive")]
    assert "assets/pdf/S05-doi-org.pdf is missing" in found[0].message
    assert "deepresearch archive https://doi.org/10.1000/lca-ev" in found[0].message


def test_altered_archive_is_caught_with_both_hashes(run: Run) -> None:
    run.archive("S03").write_text("someone edited this archive\n", encoding="utf-8")
    found = check_report(CLEAN_EN, run.doc, run.root)
    assert kinds_at(found) == [(line_of(CLEAN_EN, "Battery pack prices"), "altered_archive")]
    assert "changed after archiving" in found[0].message
    assert "also cited on line" in found[0].message


def test_missing_hash_and_missing_path_and_escaping_path(quiet: Run) -> None:
    s01, s02, s03 = (quiet.doc.source(i) for i in ("S01", "S02", "S03"))
    assert s01 and s02 and s03
    s01.sha256 = ""
    s02.archive = ""
    s03.archive = "../outside.md"
    shutil.copy(quiet.archive("S05"), quiet.root.parent / "outside.md")
    report = "Sales hit 17 million [S01].\n\nShare passed 20% [S02].\n\nPrices fell 20% [S03].\n"
    found = check_report(report, quiet.doc, quiet.root)
    assert kinds_at(found) == [(1, "altered_archive"), (3, "missing_archive"), (5, "missing_archive")]
    assert "no SHA-256 recorded" in found[0].message
    assert "no archived copy" in found[1].message
    assert "outside the workspace" in found[2].message


def test_paragraph_of_uncited_claims(run: Run) -> None:
    report = CLEAN_EN.replace(
        "## Impact\n",
        "## Impact\n\nSales will double by 2027. Prices will keep falling. Charging will be everywhere.\n",
    )
    found = check_report(report, run.doc, run.root)
    assert kinds_at(found) == [(line_of(report, "Sales will double"), "density")]
    assert "3 sentences and 0 citations; it needs at least 2" in found[0].message


def test_density_counts_citation_groups_not_ids(quiet: Run) -> None:
    one_group = "Sales hit 17 million. Share passed 20%. Prices fell. All of it is sourced [S01][S02].\n"
    two_groups = "Sales hit 17 million [S01]. Share passed 20%. Prices fell [S03]. Emissions are lower.\n"
    assert kinds_at(check_report(one_group, quiet.doc, quiet.root)) == [(1, "density")]
    assert check_report(two_groups, quiet.doc, quiet.root) == []


def test_uncited_high_severity_conflict_is_caught(run: Run) -> None:
    report = CLEAN_EN.replace(", while a forum\nteardown put the fall at about 8% [S04]", "")
    found = check_report(report, run.doc, run.root)
    assert kinds_at(found) == [(line_of(report, "Battery pack prices"), "unaddressed_conflict")]
    assert "CONF-1" in found[0].message and "Fact-004 ([S04])" in found[0].message


def test_conflict_sides_cited_in_separate_paragraphs_is_not_addressed(run: Run) -> None:
    report = (
        "# R\n\n## Critical uncertainties\n\nSomething unrelated [S01].\n\n"
        "Prices fell 20% [S03].\n\nSales hit a record [S02].\n\nA forum says 8% [S04].\n"
    )
    found = check_report(report, run.doc, run.root)
    assert kinds_at(found) == [(line_of(report, "Prices fell 20%"), "unaddressed_conflict")]


def test_conflict_with_no_side_cited_points_at_the_uncertainties_heading(run: Run) -> None:
    report = (
        "# R\n\nSales hit 17 million [S01].\n\n## Critical uncertainties and divergences\n\nNone [S02].\n"
    )
    found = check_report(report, run.doc, run.root)
    assert kinds_at(found) == [(5, "unaddressed_conflict")]


def test_conflict_addressed_across_one_table_or_list(run: Run) -> None:
    table = "| Claim | Fall |\n| --- | --- |\n| BNEF survey | 20% [S03] |\n| Forum teardown | 8% [S04] |\n"
    listing = "- BNEF: prices fell 20% [S03].\n- A forum: only 8% [S04].\n"
    assert check_report(table, run.doc, run.root) == []
    assert check_report(listing, run.doc, run.root) == []


def test_medium_conflicts_are_not_required(run: Run) -> None:
    conflict = run.doc.conflicts[0]
    conflict.severity = Severity.MEDIUM
    assert check_report("Prices fell 20% [S03].\n", run.doc, run.root) == []


def test_bare_urls_in_text_links_and_definitions(quiet: Run) -> None:
    report = (
        "Sales hit 17 million, see https://www.iea.org/x [S01].\n\n"
        "Prices fell 20% ([BNEF](https://about.bnef.com/blog)) [S03][S04].\n\n"
        "Also www.example.com/page [S02].\n\n"
        "[ref]: https://def.example.com/\n"
    )
    found = check_report(report, quiet.doc, quiet.root)
    assert kinds_at(found) == [(1, "bare_url"), (3, "bare_url"), (5, "bare_url"), (7, "bare_url")]
    assert "https://www.iea.org/x" in found[0].message


def test_code_spans_and_blocks_are_ignored(quiet: Run) -> None:
    report = "Call `https://api.example.com/v1 [S99]` for sales [S01].\n\n```\n[S42] http://x\n```\n"
    assert check_report(report, quiet.doc, quiet.root) == []


def test_chinese_paragraph_with_too_few_citations(run: Run) -> None:
    added = (
        "电动汽车销量增长很快。电池价格持续下降。充电桩数量翻倍[S06]。政策支持力度加大！消费者接受度提高？"
    )
    report = CLEAN_ZH + "\n" + added + "\n"
    found = check_report(report, run.doc, run.root)
    assert kinds_at(found) == [(line_of(report, "电动汽车销量增长很快"), "density")]
    assert "5 sentences and 1 citation; it needs at least 3" in found[0].message


def test_unbacked_source(quiet: Run) -> None:
    quiet.doc.facts = [f for f in quiet.doc.facts if "S05" not in f.sources]
    report = "Life-cycle emissions are lower [S05].\n"
    assert kinds_at(check_report(report, quiet.doc, quiet.root)) == [(1, "unbacked_source")]


def test_claim_resting_only_on_unverified_facts(quiet: Run) -> None:
    report = "Charging at home is cheaper [S07].\n\nHome charging is cheaper [S07][S01].\n"
    found = check_report(report, quiet.doc, quiet.root)
    assert kinds_at(found) == [(1, "unverified_only")]
    assert "Fact-007: quote not found in the archive" in found[0].message


def test_unchecked_facts_count_as_unverified(quiet: Run) -> None:
    fact = quiet.doc.fact("Fact-005")
    assert fact is not None
    fact.verified = Verified.UNCHECKED
    found = check_report("Life-cycle emissions are lower [S05].\n", quiet.doc, quiet.root)
    assert kinds_at(found) == [(1, "unverified_only")]
    assert "Fact-005: not checked" in found[0].message


def test_generated_sections_are_ignored(quiet: Run) -> None:
    report = (
        "Sales hit 17 million [S01].\n\n## References\n\n1. https://a.example [S99]\n\n"
        "### Cited sources\n\nUncited claim. Another one. And a third.\n\n"
        "## Verification\n\n- Line 1 · bare_url · https://b.example\n"
    )
    assert check_report(report, quiet.doc, quiet.root) == []


def test_non_canonical_citations_are_accepted(quiet: Run) -> None:
    report = "Share passed 20% [S01, S02]. Prices fell 20% 【S03】, or 8% [S04].\n"
    assert check_report(report, quiet.doc, quiet.root) == []


def test_every_kind_is_documented_and_formatted() -> None:
    import deepresearch.report.check as module

    assert len(set(KINDS)) == len(KINDS) == 11
    assert all(f"- {kind}:" in (module.__doc__ or "") for kind in KINDS)
    violation = Violation(12, "density", "this paragraph ...")
    assert format_violation(violation) == "report.md:12: density: this paragraph ..."


@pytest.mark.parametrize(
    "block",
    [
        "## A heading without citations",
        "![A chart](assets/images/chart.png)",
        "*Figure 2: Sales by region.*",
        "表 1：各地区销量",
        "The main findings are:",
        "---",
    ],
)
def test_blocks_that_make_no_claims(quiet: Run, block: str) -> None:
    assert check_report(block + "\n", quiet.doc, quiet.root) == []


def test_table_rows_and_list_items_are_units_headers_are_not(quiet: Run) -> None:
    table = "| Year | Sales |\n| --- | --- |\n| 2024 | 17 million [S01] |\n| 2023 | 14 million |\n"
    report = table + "\n- One [S01].\n- Two.\n"
    found = kinds_at(check_report(report, quiet.doc, quiet.root))
    assert found == [(4, "density"), (4, "ungrounded_number"), (7, "density")]  # 14 million: no fact cited


def test_workspace_root_is_where_archives_are_resolved(quiet: Run, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    found = check_report("Sales hit 17 million [S01].\n", quiet.doc, elsewhere)
    assert kinds_at(found) == [(1, "missing_archive")]
