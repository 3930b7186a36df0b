"""Sentence splitting (Latin, CJK, abbreviations, decimals) and which blocks make claims."""

from __future__ import annotations

import pytest

from deepresearch.report.blocks import Block, body_blocks
from deepresearch.report.sentences import citations_needed, count_sentences, makes_claims, split_sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sales rose. Prices fell.", ["Sales rose.", "Prices fell."]),
        (
            "The U.S. market grew 12% [S02]. Dr. Smith et al. disagree.",
            ["The U.S. market grew 12% [S02].", "Dr. Smith et al. disagree."],
        ),
        (
            "See Fig. 3 and No. 4 for details. It shows e.g. the trend.",
            ["See Fig. 3 and No. 4 for details.", "It shows e.g. the trend."],
        ),
        (
            "The rate is 3.5 percent. Version v1.2 shipped at example.com today.",
            ["The rate is 3.5 percent.", "Version v1.2 shipped at example.com today."],
        ),
        ("Sales rose. [S01] Then they fell [S02].", ["Sales rose. [S01]", "Then they fell [S02]."]),
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ("**Bottom line.** Prices will rise.", ["**Bottom line.**", "Prices will rise."]),
        ("Wait... What happened? Nothing!", ["Wait...", "What happened?", "Nothing!"]),
        (
            "中国经济增长5.2%[S01]。出口下降；进口上升！真的吗？是的。",
            ["中国经济增长5.2%[S01]。", "出口下降；", "进口上升！", "真的吗？", "是的。"],
        ),
        ("销量达到1700万辆（据IEA）。价格“明显”下降。", ["销量达到1700万辆（据IEA）。", "价格“明显”下降。"]),
        ("Sales grew in 2024. 中国销量最高。", ["Sales grew in 2024.", "中国销量最高。"]),
        ("A line\nthat wraps. Another.", ["A line that wraps.", "Another."]),
        ("[S01][S02]", []),
        ("", []),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_citations_needed_is_one_per_two_sentences_rounded_up() -> None:
    assert [citations_needed(n) for n in range(6)] == [0, 1, 1, 2, 2, 3]


def test_count_sentences_without_terminator_is_one() -> None:
    assert count_sentences("17 million | 2024") == 1


def block(text: str) -> Block:
    (only,) = body_blocks(text)
    return only


@pytest.mark.parametrize(
    ("markdown", "claims"),
    [
        ("Sales rose in 2024.", True),
        ("- Sales rose in 2024.", True),
        ("> The CEO said sales would double.", True),
        ("# Sales", False),
        ("![Chart](assets/images/chart.png)", False),
        ("![Chart](assets/images/chart.png) [S01]", False),
        ("*Figure 1: Sales by year.*", False),
        ("Fig. 2 — prices", False),
        ("Table 3: Regions", False),
        ("图 1：销量", False),
        ("Source: [S01]", False),
        ("The findings are:", False),
        ("主要发现如下：", False),
        ("Sales rose. The findings are:", True),
        ("— [S01]", False),
    ],
)
def test_makes_claims(markdown: str, claims: bool) -> None:
    assert makes_claims(block(markdown)) is claims


def test_table_header_makes_no_claim_but_rows_do() -> None:
    header, row = body_blocks("| Year | Sales |\n| --- | --- |\n| 2024 | 17 million |\n")
    assert (header.kind, makes_claims(header)) == ("table_header", False)
    assert (row.kind, row.line, row.text, makes_claims(row)) == ("table_row", 3, "2024 | 17 million", True)
