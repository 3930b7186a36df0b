"""Phase: synthesize. The synthesizer writes the report from task.md alone; code verifies it.

The synthesizer is told which figures were drawn and refers to them as "Figure N"; code places each
figure after the paragraph that first refers to it, with a caption citing its sources.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from deepresearch.agents.runner import AgentCall
from deepresearch.core.errors import AgentError
from deepresearch.core.events import OutputRepair, PhaseFinished, PhaseStarted
from deepresearch.figures import RenderedFigure, insert_figures
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.step import run_step
from deepresearch.report.check import format_violation
from deepresearch.report.finalize import VerificationOutcome, verify_and_finalize, verify_report

_CITATION = re.compile(r"\[S\d+\]")


def parse_report(path: Path) -> tuple[str | None, list[str]]:
    """The draft report, or None and the problems (must be markdown with a title and citations)."""
    if not path.is_file():
        return None, [f"the output file {path.name} was not written"]
    text = path.read_text(encoding="utf-8", errors="replace").strip()
    problems = []
    if not text.startswith("# "):
        problems.append("the report must start with '# ' and its title")
    if not _CITATION.search(text):
        problems.append("the report cites no source; cite facts' sources as [S01]")
    return (None, problems) if problems else (text + "\n", [])


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
    output = ctx.workspace.result_file("synthesizer")
    prompt = synthesizer_prompt(ctx, analysis, figures)
    step = run_step(ctx, "synthesizer", "synthesizer", "", prompt, output, parse_report)
    if step.value is None:
        raise AgentError(
            f"the synthesizer did not produce a usable report: {step.failure}",
            hint="the research is saved in task.md; run the same command again to retry the synthesis",
        )
    draft = insert_figures(step.value, figures)
    ctx.sink(PhaseFinished("synthesize", doc.front.round, "draft written"))
    ctx.sink(PhaseStarted("verify", doc.front.round))
    first = verify_report(draft, doc, ctx.workspace.root, figures)
    if not first.passed:
        # The repair prompt's line numbers are lines of the draft with its figures: that is the file
        # the synthesizer is asked to fix (and the figure blocks in it are kept).
        output.write_text(draft, encoding="utf-8")
        repaired = _repair_violations(ctx, prompt, output, first)
        draft = insert_figures(repaired, figures) if repaired else draft
    outcome = verify_and_finalize(ctx.workspace, doc, draft, figures)
    detail = "all checks passed" if outcome.passed else f"{len(outcome.violations)} violations remain"
    ctx.sink(PhaseFinished("verify", doc.front.round, detail))
    return outcome


def synthesizer_prompt(
    ctx: RunContext, analysis: Path | None = None, figures: Sequence[RenderedFigure] = ()
) -> str:
    """The synthesizer's rendered prompt."""
    doc = ctx.doc
    output = ctx.workspace.result_file("synthesizer")
    return render_prompt(
        "synthesizer",
        role="synthesizer",
        task_id="",
        round=doc.front.round,
        output_file=ctx.workspace.relative(output),
        today=ctx.today,
        request=doc.request,
        language=report_language(ctx),
        outline=doc.outline,
        analysis_file=ctx.workspace.relative(analysis) if analysis is not None else "",
        figures=figures,
    )


def _repair_violations(ctx: RunContext, prompt: str, output: Path, found: VerificationOutcome) -> str | None:
    """Send the exact violations back to the synthesizer once; the repaired draft, or None."""
    problems = [format_violation(v) for v in found.violations]
    ctx.sink(OutputRepair("synthesizer", "synthesizer", problems))
    repair = render_prompt(
        "repair", original=prompt, problems=problems, output_file=ctx.workspace.relative(output)
    )
    call = AgentCall(
        "synthesizer", "synthesizer", "", repair, output, prompt_name="synthesizer.verify-repair"
    )
    if not ctx.runner.call(call).ok:
        return None
    repaired, _problems = parse_report(output)
    return repaired
