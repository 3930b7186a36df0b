"""ungrounded_number: each number in the report must come from a fact cited in its paragraph."""

from __future__ import annotations

from deepresearch.report.blocks import body_blocks
from deepresearch.report.check import check_report
from deepresearch.report.number_check import judge_numbers
from deepresearch.state.model import Fact, Verified
from tests.report.conftest import Run

REPORT = """\
# Electric cars

## Market

Sales rose from 14 million in 2023 to 17 million in 2024 [S01][S02].
That is a growth of 21% in one year [S01][S02].

Sales will reach 25 million in 2025 [S01].

## Costs

Pack prices fell about 8% in 2024 [S03].

1. Prices fell 20% to $115/kWh, see Section 3 and Figure 2 [S03].
"""


def _with_2023_sales(run: Run) -> Run:
    run.doc.facts.append(
        Fact("Fact-008", "14 million electric cars were sold in 2023.", ["S02"], verified=Verified.YES)
    )
    run.doc.conflicts.clear()
    return run


def test_invented_derived_and_uncited_numbers(run: Run) -> None:
    doc = _with_2023_sales(run).doc
    found = [v for v in check_report(REPORT, doc, run.root) if v.kind == "ungrounded_number"]
    assert [(v.line, v.message.split(" is stated")[0]) for v in found] == [(8, "25 million"), (12, "8%")]
    invented, uncited = found
    assert "no fact of the sources cited here ([S01])" in invented.message
    assert "state only numbers that task.md's facts give" in invented.message
    assert "Fact-004 states it: cite [S04] for it" in uncited.message


def test_each_number_is_judged_at_its_line(run: Run) -> None:
    doc = _with_2023_sales(run).doc
    judged = [(j.line, j.quantity.text, j.grounded) for j in judge_numbers(body_blocks(REPORT), doc)]
    assert judged == [
        (5, "14 million", True),
        (5, "17 million", True),
        (6, "21%", True),  # derived: (17 - 14) / 14 = 21.4%
        (8, "25 million", False),  # invented
        (12, "8%", False),  # stated by Fact-004, whose source is not cited here
        (14, "20%", True),
        (14, "$115", True),
    ]


def test_a_wrong_growth_rate_is_caught(run: Run) -> None:
    doc = _with_2023_sales(run).doc
    report = "# R\n\nSales rose from 14 million to 17 million, a growth of 30% [S01][S02].\n"
    found = [(v.line, v.kind) for v in check_report(report, doc, run.root)]
    assert found == [(3, "ungrounded_number")]


def test_a_partial_fact_lends_only_the_numbers_its_quote_states(run: Run) -> None:
    fact = run.doc.fact("Fact-001")
    assert fact is not None
    fact.quote, fact.verified = "Sales reached 17 million cars", Verified.PARTIAL
    fact.statement = "17 million electric cars were sold in 2024, 40% of them in China."
    run.doc.conflicts.clear()
    report = "# R\n\nSales were 17 million [S01]. China took 40% of them [S01].\n"
    found = [(v.line, v.message.split(" is stated")[0]) for v in check_report(report, run.doc, run.root)]
    assert found == [(3, "40%")]
