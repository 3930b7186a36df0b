"""Phase: synthesize. The synthesizer writes the report from task.md alone; code verifies it.

The synthesizer is told which figures were drawn and refers to them as "Figure N"; code places each
figure after the paragraph that first refers to it, with a caption citing its sources.

A run that reaches this phase ends with report.md. When the budget refuses the repair a draft
needs, or the synthesizer fails, the best draft there is (pipeline/fallback.py) is verified and
written with a notice at its top saying why; the outcome says which (`cause`), so the command exits
with the code that names it and the run stays resumable for a report that passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from deepresearch.core.errors import AgentError, BudgetExhaustedError, NoAgentError
from deepresearch.core.events import Notice, PhaseFinished, PhaseStarted
from deepresearch.figures import RenderedFigure, insert_figures
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.fallback import best_draft
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import SYNTHESIZER, StepScope
from deepresearch.pipeline.step import output_file, run_step
from deepresearch.report.check import Violation
from deepresearch.report.finalize import VerificationOutcome, verify_and_finalize
from deepresearch.state.model import Fact, Support, TaskDoc
from deepresearch.state.questions import questions_of

BUDGET = "budget"  # the ceiling refused a call the report needed
AGENT = "agent"  # the synthesizer produced no usable report


@dataclass(frozen=True)
class ReportOutcome:
    """report.md as written: its verification, and why it is not the report the run meant to write
    (`cause` BUDGET or AGENT, with `reason`), if it is not."""

    verification: VerificationOutcome
    cause: str = ""
    reason: str = ""

    @property
    def violations(self) -> list[Violation]:
        return self.verification.violations

    @property
    def complete(self) -> bool:
        """The synthesizer's own draft, with every repair it needed made."""
        return not self.cause


def report_language(ctx: RunContext) -> str:
    """The configured report language, else 'the language of the question'."""
    return ctx.config.language or "the same language as the research question"


def synthesize(
    ctx: RunContext, analysis: Path | None = None, figures: Sequence[RenderedFigure] = ()
) -> ReportOutcome:
    """Write the report (synthesizer, one repair), place the figures, verify it by code, send
    violations back once, then write report.md (with References, and Verification if anything remains).

    `analysis` is the checked analyst file (None: none), `figures` the figures drawn for this report."""
    doc = ctx.doc
    ctx.sink(PhaseStarted("synthesize", doc.front.round))
    prompt = synthesizer_prompt(ctx, analysis, figures)
    cause, reason = "", ""
    try:
        # The step checks the draft with its figures placed and sends violations back once.
        step = run_step(ctx, SYNTHESIZER, prompt, StepScope(figures=tuple(figures)))
        draft, failure, refused = step.value, step.failure, step.refused
    except (AgentError, NoAgentError, BudgetExhaustedError) as exc:
        draft, failure, refused = (
            None,
            exc.message,
            exc.message if isinstance(exc, BudgetExhaustedError) else "",
        )
    if refused:
        cause, reason = BUDGET, f"A call it needed was not made: {refused}. {_again(ctx, BUDGET)}"
    if draft is None:
        draft, what = best_draft(output_file(ctx, SYNTHESIZER), doc)
        cause = cause or AGENT
        reason = f"The synthesizer did not produce a usable report ({failure}): {what}. {_again(ctx, cause)}"
        ctx.sink(Notice(f"the synthesizer did not produce a usable report: {failure}; {what}", "warning"))
    ctx.sink(
        PhaseFinished("synthesize", doc.front.round, "draft written" if not cause else "best draft kept")
    )
    ctx.sink(PhaseStarted("verify", doc.front.round))
    placed = insert_figures(draft, figures)
    outcome = verify_and_finalize(ctx.workspace, doc, placed, figures, reason if cause else "")
    detail = "all checks passed" if outcome.passed else f"{len(outcome.violations)} violations remain"
    ctx.sink(PhaseFinished("verify", doc.front.round, detail))
    return ReportOutcome(outcome, cause, reason)


def _again(ctx: RunContext, cause: str) -> str:
    """What to run for the report the run meant to write."""
    again = f"run `deepresearch -o {ctx.workspace.root}` again"
    if cause == BUDGET:
        return f"Raise max_agent_calls and {again} for a report that passes"
    return f"To retry the synthesis, {again}"


def offered_facts(doc: TaskDoc) -> list[Fact]:
    """The facts the synthesizer may use: all but those the verifier judged unsupported by their
    own quote (they have left the closed world)."""
    return [f for f in doc.facts if f.support is not Support.UNSUPPORTED]


def synthesizer_prompt(
    ctx: RunContext, analysis: Path | None = None, figures: Sequence[RenderedFigure] = ()
) -> str:
    """The synthesizer's rendered prompt."""
    doc = ctx.doc
    output = output_file(ctx, SYNTHESIZER)
    facts = offered_facts(doc)
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
        facts=facts,
        withheld=len(doc.facts) - len(facts),
        earlier_questions=questions_of(doc)[:-1],
        check_command=ctx.tool_command("check"),
    )
