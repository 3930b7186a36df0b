"""Phase: charts. After the knowledge graph is final, a chart-planning agent proposes figures as data.

The agent writes declarative specs (`logs/calls/charts/charts_result.md`, format in `figures/spec.py`); code parses
them, traces every number to the fact it cites, and re-prompts once with the exact problems. After
the repair a figure that still fails is dropped; `max_chart_failures` failures in a row skip the rest.
The accepted figures are drawn by code in a child process with a time limit, numbered, and written
to the manifest `assets/images/figures.json`, which the synthesizer prompt and `deepresearch check`
read. Figures are optional: whatever goes wrong here, the run goes on without them.
"""

from __future__ import annotations

import re

from deepresearch.core.events import Notice, PhaseFinished, PhaseStarted
from deepresearch.core.spendplan import Stage
from deepresearch.figures import FigurePlan, RenderedFigure, render_figures
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import CHARTS
from deepresearch.pipeline.step import output_file, run_step
from deepresearch.state.model import Fact, Support, TaskDoc

MAX_LISTED_FACTS = 200  # facts listed in the prompt; the rest are in task.md
_DIGIT = re.compile(r"\d")


def numeric_facts(doc: TaskDoc) -> list[Fact]:
    """Facts with a source whose statement or quote holds a number, not judged unsupported by their
    quote: what a chart can draw."""
    return [
        f
        for f in doc.facts
        if f.sources and f.support is not Support.UNSUPPORTED and _DIGIT.search(f"{f.statement} {f.quote}")
    ]


def plan_charts(ctx: RunContext) -> list[RenderedFigure]:
    """Ask for chart specs, ground them in the facts, draw the accepted ones; the figures drawn."""
    doc, round_no = ctx.doc, ctx.doc.front.round
    facts = numeric_facts(doc)
    skip = "max_figures is 0" if ctx.config.max_figures == 0 else None
    skip = skip or ("no fact states a number" if not facts else ctx.budget.refusal(Stage.FIGURES))
    if skip:
        return _without_figures(ctx, f"figures skipped: {skip}")
    ctx.sink(PhaseStarted("charts", round_no))
    step = run_step(ctx, CHARTS, charts_prompt(ctx, facts))
    if step.value is None:
        figures = _without_figures(ctx, f"figures skipped: {step.failure}", level="warning")
        ctx.sink(PhaseFinished("charts", round_no, "no figures"))
        return figures
    figures = _draw(ctx, step.value)
    ctx.sink(PhaseFinished("charts", round_no, f"{len(figures)} figure{'s' * (len(figures) != 1)}"))
    return figures


def _draw(ctx: RunContext, plan: FigurePlan) -> list[RenderedFigure]:
    """Report what the plan dropped, render what it accepted, report what could not be drawn."""
    for problem in plan.file_problems:
        ctx.sink(Notice(f"charts: {problem}", "warning"))
    for rejected in plan.rejected:
        reasons = " ".join("; ".join(rejected.problems).split())
        ctx.sink(
            Notice(f"chart {rejected.index} ({rejected.title or 'untitled'}) dropped: {reasons}", "warning")
        )
    if plan.skip_reason:
        ctx.sink(Notice(f"charts: {plan.skip_reason}", "warning"))
    outcome = render_figures(
        ctx.workspace.root, plan.accepted, ctx.config.figure_timeout,
        max_chart_failures=ctx.config.max_chart_failures,
    )  # fmt: skip
    for failure in outcome.failures:
        ctx.sink(Notice(f"chart not drawn: {failure}", "warning"))
    if outcome.skip_reason:
        ctx.sink(Notice(f"charts: {outcome.skip_reason}", "warning"))
    for warning in outcome.warnings:
        ctx.sink(Notice(warning, "warning"))
    return outcome.figures


def _without_figures(ctx: RunContext, reason: str, level: str = "info") -> list[RenderedFigure]:
    """Record why there are no figures and clear any earlier ones (an empty manifest)."""
    ctx.sink(Notice(reason, level))
    render_figures(ctx.workspace.root, [])
    return []


def charts_prompt(ctx: RunContext, facts: list[Fact]) -> str:
    """The chart planner's rendered prompt."""
    doc = ctx.doc
    return render_prompt(
        CHARTS.template,
        role=CHARTS.role,
        task_id="",
        round=doc.front.round,
        output_file=ctx.workspace.relative(output_file(ctx, CHARTS)),
        today=ctx.today,
        request=doc.request,
        outline=doc.outline,
        facts=facts[:MAX_LISTED_FACTS],
        more_facts=max(0, len(facts) - MAX_LISTED_FACTS),
        max_figures=ctx.config.max_figures,
    )
