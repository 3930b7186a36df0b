"""A figure never draws a fact of a source flagged suspicious (it addresses AI agents)."""

from __future__ import annotations

from deepresearch.figures import parse_charts, plan_figures
from deepresearch.state.model import SUSPICIOUS, TaskDoc
from tests.figures.helpers import charts_file, sales_line, share_pie


def test_a_point_citing_a_suspicious_sources_fact_is_refused(doc: TaskDoc) -> None:
    source = doc.source("S02")
    assert source is not None
    source.flags = [SUSPICIOUS]
    plan = plan_figures(parse_charts(charts_file(sales_line(), share_pie())), doc)
    assert [f.spec.title for f in plan.accepted] == ["Share of 2023 electric-car sales"]
    assert plan.problems == [
        'figure 1, point "2022": Fact-002 comes from S02, flagged suspicious (it addresses AI agents): '
        "its numbers are never drawn; use a fact from another source or drop the point"
    ]
    assert plan.needs_repair


def test_other_flags_do_not_keep_a_fact_out(doc: TaskDoc) -> None:
    source = doc.source("S02")
    assert source is not None
    source.flags = ["paywalled"]
    plan = plan_figures(parse_charts(charts_file(sales_line())), doc)
    assert plan.problems == [] and len(plan.accepted) == 1
