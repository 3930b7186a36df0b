"""Phase: analyse. Before synthesis an analyst weighs the findings critically, citing only facts.

Whether it runs (`analysis` setting): `never`; `always`; or `auto`, which runs it for the planner's
`analytical` and `comparison` questions and skips `simple` ones. When task.md records no complexity
(a plan written by hand), the question's wording decides: an analytical keyword (why, compare,
evaluate, impact, forecast, should, cause... or 为什么, 比较, 评估, 影响, 预测...) or a long question
(over 40 words, or 120 CJK characters) runs it.

The analysis (`logs/calls/analyst/analyst_result.md`) is checked by the report's own checks; violations go back to
the analyst once. What remains is reported as a notice, and an analysis that still cites an
unregistered source or an unknown fact is withheld from the synthesizer (renamed `.withheld.md`).
"""

from __future__ import annotations

import re
from pathlib import Path

from deepresearch.contracts.report import ANALYSIS_SECTIONS
from deepresearch.core.events import Notice, PhaseFinished, PhaseStarted
from deepresearch.core.spendplan import Stage
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import ANALYST
from deepresearch.pipeline.step import output_file, run_step
from deepresearch.report.check import format_violation
from deepresearch.state.model import TaskDoc

LONG_QUESTION_WORDS = 40
LONG_QUESTION_CJK = 120
_KEYWORDS = re.compile(
    r"\b(why|compare[sd]?|comparing|comparison|versus|vs\.?|evaluat\w*|assess\w*|impacts?|effects?|"
    r"affects?|forecasts?|predict\w*|outlook|should|causes?|caused|drivers?|pros and cons|"
    r"trade-?offs?|implications?|risks?|better|worse)\b"
    r"|为什么|为何|比较|对比|评估|评价|影响|预测|展望|应该|应当|原因|利弊|优劣|前景",
    re.IGNORECASE,
)
_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_WITHHOLD = {"unknown_source", "unknown_fact"}


def analysis_decision(doc: TaskDoc, mode: str) -> tuple[bool, str]:
    """Whether the analysis runs for this question, and why (the reason is shown to the user)."""
    if mode in ("always", "never"):
        return mode == "always", f"analysis is set to {mode}"
    complexity = doc.front.complexity.strip().lower()
    if complexity in ("analytical", "comparison"):
        return True, f"{complexity} question"
    if complexity == "simple":
        return False, "simple question"
    question = doc.request or doc.front.question
    keyword = _KEYWORDS.search(question)
    if keyword:
        return True, f'the question asks for analysis ("{keyword.group(0)}")'
    if len(question.split()) > LONG_QUESTION_WORDS or len(_CJK.findall(question)) > LONG_QUESTION_CJK:
        return True, "a long, open question"
    return False, "simple question"


def analyse(ctx: RunContext) -> Path | None:
    """Run the critical analysis when the question calls for it; the checked file, or None."""
    doc, round_no = ctx.doc, ctx.doc.front.round
    run, reason = analysis_decision(doc, ctx.config.analysis)
    skip = (
        reason if not run else "no facts to analyse" if not doc.facts else ctx.budget.refusal(Stage.ANALYSIS)
    )
    if skip:
        ctx.sink(Notice(f"analysis skipped: {skip}"))
        return None
    ctx.sink(PhaseStarted("analyse", round_no))
    output = output_file(ctx, ANALYST)
    step = run_step(ctx, ANALYST, analyst_prompt(ctx, reason))
    if step.value is None:
        ctx.sink(Notice(f"analysis failed ({step.failure}); the report is written without it", "warning"))
        ctx.sink(PhaseFinished("analyse", round_no, "failed"))
        return None
    violations = step.violations
    if violations:
        listed = "; ".join(format_violation(v, _relative(ctx, output)) for v in violations[:5])
        more = f" (and {len(violations) - 5} more)" if len(violations) > 5 else ""
        ctx.sink(
            Notice(f"analysis: {len(violations)} problems remain after its repair: {listed}{more}", "warning")
        )
    if any(v.kind in _WITHHOLD for v in violations):
        withheld = output.with_name(f"{output.stem}.withheld.md")
        output.replace(withheld)
        ctx.sink(
            Notice(
                "analysis withheld from the synthesizer: it cites sources or facts that task.md does not "
                f"hold (kept as {_relative(ctx, withheld)})",
                "warning",
            )
        )
        ctx.sink(PhaseFinished("analyse", round_no, "withheld"))
        return None
    detail = "all checks passed" if not violations else f"{len(violations)} problems remain"
    ctx.sink(PhaseFinished("analyse", round_no, detail))
    return output


def analyst_prompt(ctx: RunContext, reason: str) -> str:
    """The analyst's rendered prompt."""
    doc = ctx.doc
    return render_prompt(
        ANALYST.template,
        role=ANALYST.role,
        task_id="",
        round=doc.front.round,
        output_file=_relative(ctx, output_file(ctx, ANALYST)),
        today=ctx.today,
        request=doc.request,
        reason=reason,
        outline=doc.outline,
        fact_count=len(doc.facts),
        source_count=len(doc.sources),
        conflicts=doc.conflicts,
        sections=ANALYSIS_SECTIONS,
        check_command=ctx.tool_command("check"),
    )


def _relative(ctx: RunContext, path: Path) -> str:
    return ctx.workspace.relative(path)
