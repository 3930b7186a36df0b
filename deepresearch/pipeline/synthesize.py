"""Phase: synthesize. The synthesizer writes the report from task.md alone; code verifies it."""

from __future__ import annotations

import re
from pathlib import Path

from deepresearch.errors import AgentError
from deepresearch.events import PhaseFinished, PhaseStarted
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.step import run_step

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


def synthesize(ctx: RunContext) -> str:
    """Run the synthesizer (with one repair) and return the draft report text."""
    doc = ctx.doc
    ctx.sink(PhaseStarted("synthesize", doc.front.round))
    output = ctx.workspace.result_file("synthesizer")
    analysis = ctx.workspace.result_file("analyst")
    prompt = render_prompt(
        "synthesizer",
        role="synthesizer",
        task_id="",
        round=doc.front.round,
        output_file=ctx.workspace.relative(output),
        today=ctx.today,
        request=doc.request,
        language=report_language(ctx),
        outline=doc.outline,
        analysis_file=ctx.workspace.relative(analysis) if analysis.is_file() else "",
    )
    step = run_step(ctx, "synthesizer", "synthesizer", "", prompt, output, parse_report)
    if step.value is None:
        raise AgentError(
            f"the synthesizer did not produce a usable report: {step.failure}",
            hint="the research is saved in task.md; run the same command again to retry the synthesis",
        )
    ctx.workspace.report_md.write_text(step.value, encoding="utf-8")
    ctx.sink(PhaseFinished("synthesize", doc.front.round, ctx.workspace.relative(ctx.workspace.report_md)))
    return step.value
