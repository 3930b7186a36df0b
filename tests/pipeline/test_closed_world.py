"""Verifier verdicts with consequences: a fact judged unsupported by its own quote leaves the closed
world (the synthesizer is not offered it, a sentence resting only on it fails the check, figures
refuse it, saturation ignores it); a partial fact is offered with its reason, and the report's
verifier sees the reason. Rule-level: no agent runs here (tests/pipeline/test_evidence_run.py runs one)."""

from __future__ import annotations

from pathlib import Path

from deepresearch.agents.runner import AgentRunner
from deepresearch.core.config import Config
from deepresearch.core.events import NullSink
from deepresearch.core.roles import Role
from deepresearch.core.workspace import Workspace
from deepresearch.figures.point_grounding import ground_figure
from deepresearch.figures.spec import FigureSpec, Point, Series
from deepresearch.pipeline import novelty
from deepresearch.pipeline.charts import numeric_facts
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.synthesize import synthesizer_prompt
from deepresearch.pipeline.verify import _claim_items, fact_evidence
from deepresearch.report.blocks import body_blocks
from deepresearch.report.check import check_report
from deepresearch.report.claims import cited_claims
from deepresearch.state.model import (
    Dimension,
    Fact,
    FrontMatter,
    OutlineSection,
    Source,
    Support,
    TaskDoc,
    Verified,
)
from deepresearch.state.store import StateStore

WITHHELD = "The storage market will triple to 9.9 GW by 2026."


def _doc() -> TaskDoc:
    facts = [
        Fact("Fact-001", "Capacity reached 4.8 GW at end-2025.", ["S01"], verified=Verified.YES,
             support=Support.SUPPORTED, task="E1", dimensions=["D1"],
             support_reason="The quote gives 4.8 GW at end-2025."),
        Fact("Fact-002", "Prices fell 38% between 2022 and 2025, a record.", ["S02"], verified=Verified.YES,
             support=Support.PARTIAL, task="E1", support_reason="The quote gives the 38% fall, not a record."),
        Fact("Fact-003", WITHHELD, ["S03"], verified=Verified.YES, support=Support.UNSUPPORTED, task="E2",
             dimensions=["D2"], support_reason="The quote names no forecast."),
    ]  # fmt: skip
    sources = [Source(f"S0{i}", f"Source {i}", f"https://example.org/{i}", authority=1.0) for i in (1, 2, 3)]
    return TaskDoc(
        FrontMatter(id="r", question="How big is storage?"),
        dimensions=[Dimension("D1", "Size"), Dimension("D2", "Outlook")],
        outline=[OutlineSection("Size", ["D1"], "How big?")],
        facts=facts,
        sources=sources,
    )


def _synthesizer_prompt(doc: TaskDoc, root: Path) -> str:
    """The synthesizer's prompt as a run renders it."""
    workspace = Workspace(root)
    workspace.ensure()
    config = Config()
    runner = AgentRunner(workspace, config, NullSink(), environ={})
    return synthesizer_prompt(RunContext(workspace, config, StateStore(workspace), runner, NullSink(), doc))


def test_an_unsupported_fact_is_absent_from_the_synthesizers_prompt(tmp_path: Path) -> None:
    prompt = _synthesizer_prompt(_doc(), tmp_path)
    assert "- Fact-001 [S01]: Capacity reached 4.8 GW at end-2025." in prompt
    assert WITHHELD not in prompt and "Fact-003" not in prompt
    assert "1 other fact of task.md was judged unsupported by its own quote and is left out" in prompt


def test_a_partial_facts_reason_reaches_the_synthesizer_and_the_report_verifier(tmp_path: Path) -> None:
    doc = _doc()
    prompt = _synthesizer_prompt(doc, tmp_path)
    assert (
        "Fact-002 [S02]: Prices fell 38% between 2022 and 2025, a record. (partial: The quote gives" in prompt
    )
    [(item, _)] = _claim_items(doc, list(cited_claims(body_blocks("Prices fell 38% [S02].\n"))))
    assert item.evidence == (fact_evidence(doc.facts[1]),)
    assert item.evidence[0].endswith("— verifier: partial (The quote gives the 38% fall, not a record.)")
    report = render_prompt(
        "verifier", role=Role.VERIFIER, task_id="", round=1, output_file="logs/verifier_result.md",
        today="2026-01-01", kind="report", items=[item],
    )  # fmt: skip
    assert "the part the reason says the\nquote lacks is not evidence" in report


def test_the_report_verifier_is_not_shown_an_unsupported_fact() -> None:
    doc = _doc()
    assert _claim_items(doc, list(cited_claims(body_blocks("Storage will triple [S03].\n")))) == []


def test_a_sentence_resting_only_on_an_unsupported_fact_fails_the_check_at_its_line(tmp_path: Path) -> None:
    report = "# R\n\nCapacity reached 4.8 GW at end-2025 [S01].\nStorage will triple by 2026 [S03].\n"
    found = [(v.line, v.kind) for v in check_report(report, _doc(), tmp_path) if v.kind != "missing_archive"]
    assert found == [(4, "unverified_only")]
    [violation] = [v for v in check_report(report, _doc(), tmp_path) if v.kind == "unverified_only"]
    assert "Fact-003: The quote names no forecast" in violation.message


def test_figures_refuse_an_unsupported_fact() -> None:
    spec = FigureSpec("bar", "Storage", (Series("", (Point("2026", 9.9, "9.9", ("Fact-003",)),)),), unit="GW")
    grounding = ground_figure(spec, 1, _doc())
    assert grounding.problems == [
        'figure 1, point "2026": Fact-003 was judged unsupported by its own quote (The quote names no '
        "forecast): it is not evidence and its numbers are never drawn; use a supported fact or drop the point"
    ]
    assert [f.id for f in numeric_facts(_doc())] == ["Fact-001", "Fact-002"]  # the chart planner's list


def test_saturation_ignores_an_unsupported_fact() -> None:
    doc = _doc()
    assert novelty.covered_dimensions(doc) == {"D1"}  # Fact-003 would have covered D2
    assert novelty.tier1_sources(doc, "E2") == 0
    before = novelty.known(doc)
    assert all(q.text != "9.9 GW" for found in before.quantities.values() for q in found)
    assert novelty.measure(doc, novelty.Known(), ["Fact-003"], []).anything is False
    doc.facts[2].support = Support.UNCHECKED  # not judged yet: it counts like any verified fact
    assert novelty.measure(doc, novelty.Known(), ["Fact-003"], []).anything is True
