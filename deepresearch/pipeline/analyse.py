"""Phase: analyse. Before synthesis an analyst weighs the findings critically, citing only facts.

Whether it runs (`analysis` setting): `never`; `always`; or `auto`, which runs it for the planner's
`analytical` and `comparison` questions and skips `simple` ones. When task.md records no complexity
(a plan written by hand), the question's wording decides: an analytical keyword (why, compare,
evaluate, impact, forecast, should, cause... or 为什么, 比较, 评估, 影响, 预测...) or a long question
(over 40 words, or 120 CJK characters) runs it.

The analysis (`logs/analyst_result.md`) is checked by the report's own checks; violations go back to
the analyst once. What remains is reported as a notice, and an analysis that still cites an
unregistered source or an unknown fact is withheld from the synthesizer (renamed `.withheld.md`).
"""

from __future__ import annotations

import re
from pathlib import Path

from deepresearch.agents.runner import AgentCall
from deepresearch.core.events import Notice, OutputRepair, PhaseFinished, PhaseStarted
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.extras import budget_skip_reason
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.step import run_step
from deepresearch.report.check import Violation, check_report, format_violation
from deepresearch.state.model import TaskDoc, id_number

SECTIONS = ("Perspectives", "Counter-evidence", "Assumptions")
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
_FACT_REF = re.compile(r"\bFact-\d+\b")
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


def parse_analysis(path: Path) -> tuple[str | None, list[str]]:
    """The analysis text, or None and the problems (a title, the three sections, citations)."""
    if not path.is_file():
        return None, [f"the output file {path.name} was not written"]
    text = path.read_text(encoding="utf-8", errors="replace").strip()
    problems = []
    if not text.startswith("# "):
        problems.append("the analysis must start with '# ' and a title")
    headings = [h.strip().lower() for h in re.findall(r"^##\s+(.+)$", text, re.MULTILINE)]
    for section in SECTIONS:
        if not any(h.startswith(section.lower()) for h in headings):
            problems.append(f"the section '## {section}' is missing")
    if not re.search(r"\[S\d+\]", text):
        problems.append("the analysis cites no source; cite each claim's source as [S01]")
    return (None, problems) if problems else (text + "\n", [])


def fact_violations(text: str, doc: TaskDoc) -> list[Violation]:
    """Fact IDs named in the text that task.md does not hold (kind unknown_fact)."""
    known = {id_number(f.id) for f in doc.facts}
    found = []
    for n, line in enumerate(text.splitlines(), start=1):
        for fact_id in dict.fromkeys(_FACT_REF.findall(line)):
            if id_number(fact_id) not in known:
                message = (
                    f"{fact_id} is not in task.md ## Facts; name only facts that exist, or remove the claim."
                )
                found.append(Violation(n, "unknown_fact", message))
    return found


def check_analysis(text: str, doc: TaskDoc, workspace_root: Path) -> list[Violation]:
    """The report's checks (citations, archives, density, URLs, conflicts) plus unknown fact IDs."""
    return sorted({*check_report(text, doc, workspace_root), *fact_violations(text, doc)})


def analyse(ctx: RunContext) -> Path | None:
    """Run the critical analysis when the question calls for it; the checked file, or None."""
    doc, round_no = ctx.doc, ctx.doc.front.round
    run, reason = analysis_decision(doc, ctx.config.analysis)
    skip = reason if not run else "no facts to analyse" if not doc.facts else budget_skip_reason(ctx)
    if skip:
        ctx.sink(Notice(f"analysis skipped: {skip}"))
        return None
    ctx.sink(PhaseStarted("analyse", round_no))
    output = ctx.workspace.result_file("analyst")
    prompt = analyst_prompt(ctx, reason)
    step = run_step(ctx, "analyst", "analyst", "", prompt, output, parse_analysis)
    if step.value is None:
        ctx.sink(Notice(f"analysis failed ({step.failure}); the report is written without it", "warning"))
        ctx.sink(PhaseFinished("analyse", round_no, "failed"))
        return None
    violations = check_analysis(step.value, doc, ctx.workspace.root)
    if violations:
        violations = _repair(ctx, prompt, output, step.value, violations)
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
        "analyst",
        role="analyst",
        task_id="",
        round=doc.front.round,
        output_file=_relative(ctx, ctx.workspace.result_file("analyst")),
        today=ctx.today,
        request=doc.request,
        reason=reason,
        outline=doc.outline,
        fact_count=len(doc.facts),
        source_count=len(doc.sources),
        conflicts=doc.conflicts,
        sections=SECTIONS,
    )


def _repair(
    ctx: RunContext, prompt: str, output: Path, first: str, violations: list[Violation]
) -> list[Violation]:
    """Send the exact violations back once; what remains (the first text is kept if the repair is worse)."""
    path = _relative(ctx, output)
    problems = [format_violation(v, path) for v in violations]
    ctx.sink(OutputRepair("analyst", "analyst", problems))
    repair = render_prompt("repair", original=prompt, problems=problems, output_file=path)
    call = AgentCall("analyst", "analyst", "", repair, output, prompt_name="analyst.verify-repair")
    repaired = parse_analysis(output)[0] if ctx.runner.call(call).ok else None
    if repaired is None:
        output.write_text(first, encoding="utf-8")  # an unusable repair: keep the checked first version
        return violations
    return check_analysis(repaired, doc=ctx.doc, workspace_root=ctx.workspace.root)


def _relative(ctx: RunContext, path: Path) -> str:
    return ctx.workspace.relative(path)
