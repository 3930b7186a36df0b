"""The whole engine as the orchestrator uses it: parse, repair once, render, insert, check."""

from __future__ import annotations

from pathlib import Path

from deepresearch.figures import (
    check_figures,
    insert_figures,
    load_figures,
    parse_charts,
    plan_figures,
    render_figures,
)
from deepresearch.state.model import TaskDoc
from tests.figures.helpers import charts_file, sales_line, share_pie


def test_plan_repair_render_insert_check(tmp_path: Path, doc: TaskDoc) -> None:
    wrong = {
        **share_pie(),
        "points": [{"label": "China", "value": 65, "fact": "Fact-004"}, *share_pie()["points"][1:]],
    }
    first = plan_figures(parse_charts(charts_file(sales_line(), wrong)), doc)
    assert first.needs_repair
    assert first.repair_message() == (
        '- figure 2, point "China": 65 not found in Fact-004 '
        '("China accounted for 60% of 2023 sales, Europe 25%...")'
    )
    repaired = plan_figures(parse_charts(charts_file(sales_line(), share_pie())), doc, repaired=True)
    assert repaired.problems == [] and len(repaired.accepted) == 2

    outcome = render_figures(tmp_path, repaired.accepted, timeout=60)
    report = (
        "# EVs\n\nSales rose (Figure 1) [S01].\n\nChina dominates, see Figure 2 [S03].\n\n## References\n"
    )
    final = insert_figures(report, outcome.figures)
    assert final.index("figure-1.png") < final.index("China dominates") < final.index("figure-2.png")
    assert "*Figure 2: Share of 2023 electric-car sales.* [S03]" in final
    assert check_figures(final, load_figures(tmp_path), tmp_path) == []
