"""Grounding each figure in task.md facts, the repair flow, and skipping after repeated failures."""

from __future__ import annotations

from typing import Any

from deepresearch.figures import parse_charts, plan_figures
from deepresearch.state.model import TaskDoc
from tests.figures.helpers import charts_file, sales_line, share_pie


def renewables(value: Any, fact: str = "Fact-008") -> dict[str, Any]:
    """A bar chart whose 2023 point cites `fact` with `value`."""
    return {
        "type": "bar",
        "title": "Renewable share of EU electricity",
        "unit": "%",
        "points": [
            {"label": "2022", "value": 38.5, "fact": "Fact-008"},
            {"label": "2023", "value": value, "fact": fact},
        ],
    }


def test_grounded_figures_are_accepted_with_their_sources_in_order(doc: TaskDoc) -> None:
    plan = plan_figures(parse_charts(charts_file(sales_line(), share_pie())), doc)
    assert plan.problems == [] and not plan.needs_repair
    line, pie = plan.accepted
    assert line.facts == ("Fact-001", "Fact-002", "Fact-003")
    assert line.sources == ("S01", "S02", "S03")  # union, first appearance order
    assert pie.sources == ("S03",)


def test_number_not_in_its_fact_is_rejected_with_the_reason(doc: TaskDoc) -> None:
    plan = plan_figures(parse_charts(charts_file(renewables(41.0))), doc)
    assert plan.accepted == []
    assert plan.problems == [
        'figure 1, point "2023": 41.0 not found in Fact-008 '
        '("...of EU electricity reached 40.2% in 2023, up from 38.5%.")'
    ]
    assert plan.needs_repair


def test_rounded_percent_and_chinese_scale_values_are_grounded(doc: TaskDoc) -> None:
    chinese = {
        "type": "bar",
        "title": "中国新能源汽车销量",
        "unit": "万辆",
        "points": [
            {"label": "2022年", "value": 688.7, "fact": "Fact-009"},
            {"label": "2023年", "value": 9495000, "fact": "Fact-005"},
        ],
    }
    falling = {
        "type": "bar",
        "title": "Change",
        "points": [{"label": "price", "value": -14, "fact": "Fact-006"}],
    }
    plan = plan_figures(parse_charts(charts_file(renewables(40), chinese, falling)), doc)
    assert plan.problems == []
    assert [a.index for a in plan.accepted] == [1, 2, 3]


def test_unknown_fact_unsourced_fact_and_scatter_x_are_checked(doc: TaskDoc) -> None:
    scatter = {
        "type": "scatter",
        "title": "Price",
        "points": [{"label": "pack", "x": 141, "y": 14, "fact": "Fact-006"}],
    }
    text = charts_file(renewables(40.2, "Fact-099"), renewables(40.2, "Fact-007"), scatter)
    assert plan_figures(parse_charts(text), doc).problems == [
        'figure 1, point "2023": Fact-099 is not in task.md',
        'figure 2, point "2023": Fact-007 cites no source',
        'figure 3, point "pack": 141 not found in Fact-006 ("...prices fell 14% in 2023, to $139 per kWh.")',
    ]


def test_repair_message_lists_file_and_figure_problems(doc: TaskDoc) -> None:
    plan = plan_figures(parse_charts(charts_file(*[renewables(41.0)] * 6)), doc)
    message = plan.repair_message()
    assert message.splitlines()[0] == "- 6 figures given, at most 5 allowed: keep the most useful"
    assert message.count("41.0 not found in Fact-008") == 5


def test_repaired_file_is_accepted_and_not_repaired_twice(doc: TaskDoc) -> None:
    first = plan_figures(parse_charts(charts_file(renewables(41.0), sales_line())), doc)
    assert first.needs_repair and [a.index for a in first.accepted] == [2]
    second = plan_figures(parse_charts(charts_file(renewables(41.0), sales_line())), doc, repaired=True)
    assert second.problems and not second.needs_repair
    fixed = plan_figures(parse_charts(charts_file(renewables(40.2), sales_line())), doc, repaired=True)
    assert fixed.problems == [] and len(fixed.accepted) == 2


def test_two_failures_in_a_row_skip_the_rest_after_the_repair(doc: TaskDoc) -> None:
    text = charts_file(sales_line(), renewables(41.0), renewables(99), share_pie(), sales_line())
    before = plan_figures(parse_charts(text), doc)
    assert before.skipped == [] and len(before.accepted) == 3  # before the repair, everything is checked
    after = plan_figures(parse_charts(text), doc, repaired=True)
    assert [a.index for a in after.accepted] == [1]
    assert [r.index for r in after.rejected] == [2, 3]
    assert after.skipped == [4, 5]
    assert after.skip_reason == "2 charts failed in a row (figure 2, figure 3): remaining charts skipped"


def test_a_success_resets_the_failure_count(doc: TaskDoc) -> None:
    text = charts_file(renewables(41.0), sales_line(), renewables(99), share_pie())
    plan = plan_figures(parse_charts(text), doc, repaired=True, max_chart_failures=2)
    assert plan.skipped == [] and plan.skip_reason == ""
    assert [a.index for a in plan.accepted] == [2, 4]
