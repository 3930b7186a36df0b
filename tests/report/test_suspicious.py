"""suspicious_number: a report sentence stating a number of a suspicious source must cite it."""

from __future__ import annotations

from pathlib import Path

from deepresearch.report.check import check_report
from deepresearch.state.model import SUSPICIOUS, Fact, FrontMatter, Source, TaskDoc, Verified


def doc() -> TaskDoc:
    sources = [
        Source("S01", "Injected page", "https://example.org/injected", flags=[SUSPICIOUS]),
        Source("S02", "Statistics office", "https://stats.example.gov/2024"),
        Source("S03", "Trade body", "https://trade.example.org/2024"),
    ]
    facts = [
        Fact("Fact-001", "Installed capacity reached 9.9 GW in 2024.", ["S01"], quote="reached 9.9 GW",
             verified=Verified.YES),
        Fact("Fact-002", "Installed capacity was 3.8 GW in 2024.", ["S02"], verified=Verified.YES),
        Fact("Fact-003", "Sales rose 12% in 2024.", ["S01"], verified=Verified.YES),
        Fact("Fact-004", "Sales rose 12% in 2024 according to the trade body.", ["S03"], verified=Verified.YES),
    ]  # fmt: skip
    return TaskDoc(FrontMatter(id="r", question="q"), facts=facts, sources=sources)


def suspicious(report: str) -> list[tuple[int, str]]:
    found = check_report(report, doc(), Path("/nonexistent"))
    return [(v.line, v.message) for v in found if v.kind == "suspicious_number"]


def test_an_uncited_number_of_a_suspicious_source_is_reported_at_its_line() -> None:
    report = (
        "# Capacity\n\n"
        "Official statistics give the installed capacity [S02].\n"
        "Figures in circulation range from 3.8 to\n"
        "9.9 GW [S02].\n"
    )
    found = suspicious(report)
    assert [line for line, _ in found] == [5]
    message = found[0][1]
    assert "states 9.9 GW, a number from [S01], a source flagged suspicious" in message
    assert "cite [S01] where the number is stated" in message


def test_citing_the_suspicious_source_or_an_independent_one_for_the_number_passes() -> None:
    report = (
        "# Capacity\n\n"
        "One page claims 9.9 GW [S01], official statistics 3.8 GW [S02].\n\n"
        "Sales rose 12% [S03]. In 2024 the market grew [S02].\n"
    )
    assert suspicious(report) == []  # 12% also has S03's own fact; 2024 is a year, not a quantity


def test_a_report_without_suspicious_sources_is_not_checked_for_them() -> None:
    clean = doc()
    for source in clean.sources:
        source.flags = []
    found = check_report("# A\n\nCapacity was 9.9 GW [S02].\n", clean, Path("/nonexistent"))
    assert not [v for v in found if v.kind == "suspicious_number"]


def test_the_same_quantity_in_another_unit_is_the_same_number_and_sections_are_not_numbers() -> None:
    report = "# Capacity\n\nSee Section 3.8 for the method [S02]. Some say 9,900 MW were installed [S02].\n"
    found = suspicious(report)
    assert len(found) == 1 and "states 9,900 MW, a number from [S01]" in found[0][1]


def test_a_sentence_repeated_in_a_paragraph_is_reported_at_each_of_its_lines() -> None:
    sentence = "Capacity may be 9.9 GW [S02]."
    report = f"# Capacity\n\n{sentence}\nOfficial statistics agree on 3.8 GW [S02].\n{sentence}\n"
    assert [line for line, _ in suspicious(report)] == [3, 5]
