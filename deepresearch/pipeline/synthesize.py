"""Phase: synthesize. The synthesizer writes the report from task.md alone; code verifies it.

The synthesizer is told which figures were drawn and refers to them as "Figure N"; code places each
figure after the paragraph that first refers to it, with a caption citing its sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from deepresearch.core.errors import AgentError
from deepresearch.core.events import PhaseFinished, PhaseStarted
from deepresearch.figures import RenderedFigure, insert_figures
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import SYNTHESIZER, StepScope
from deepresearch.pipeline.step import output_file, run_step
from deepresearch.report.finalize import VerificationOutcome, verify_and_finalize
from deepresearch.state.questions import questions_of


def report_language(ctx: RunContext) -> str:
    """The configured report language, else 'the language of the question'."""
    return ctx.config.language or "the same language as the research question"


def synthesize(
    ctx: RunContext, analysis: Path | None = None, figures: Sequence[RenderedFigure] = ()
) -> VerificationOutcome:
    """Write the report (synthesizer, one repair), place the figures, verify it by code, send
    violations back once, then write report.md (with References, and Verification if anything remains).

    `analysis` is the checked analyst file (None: none), `figures` the figures drawn for this report."""
    doc = ctx.doc
    ctx.sink(PhaseStarted("synthesize", doc.front.round))
    prompt = synthesizer_prompt(ctx, analysis, figures)
    # The step checks the draft with its figures placed and sends violations back once.
    step = run_step(ctx, SYNTHESIZER, prompt, StepScope(figures=tuple(figures)))
    if step.value is None:
        raise AgentError(
            f"the synthesizer did not produce a usable report: {step.failure}",
            hint="the research is saved in task.md; run the same command again to retry the synthesis",
        )
    ctx.sink(PhaseFinished("synthesize", doc.front.round, "draft written"))
    ctx.sink(PhaseStarted("verify", doc.front.round))
    outcome = verify_and_finalize(ctx.workspace, doc, insert_figures(step.value, figures), figures)
    detail = "all checks passed" if outcome.passed else f"{len(outcome.violations)} violations remain"
    ctx.sink(PhaseFinished("verify", doc.front.round, detail))
    return outcome


def synthesizer_prompt(
    ctx: RunContext, analysis: Path | None = None, figures: Sequence[RenderedFigure] = ()
) -> str:
    """The synthesizer's rendered prompt."""
    doc = ctx.doc
    output = output_file(ctx, SYNTHESIZER)
    return render_prompt(
        SYNTHESIZER.template,
        role=SYNTHESIZER.role,
        task_id="",
        round=doc.front.round,
        output_file=ctx.workspace.relative(output),
        today=ctx.today,
        request=doc.request,
        language=report_language(ctx),
        outline=doc.outline,
        analysis_file=ctx.workspace.relative(analysis) if analysis is not None else "",
        figures=figures,
        earlier_questions=questions_of(doc)[:-1],
    )
