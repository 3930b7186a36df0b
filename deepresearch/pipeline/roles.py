"""Each role's call as data: prompt template, output file, output contract, code check, repairs.

`run_step` (pipeline/step.py) reads a `RoleSpec` to run any role the same way: render nothing
itself, call the agent, parse its one output file with the role's contract, re-prompt once with the
parser's exact problems, then run the role's code check and re-prompt once with its violations.
What differs between roles is only what is registered here; the phases decide what a failure means.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from deepresearch.contracts.execute import ExecutorOutput, parse_executor
from deepresearch.contracts.plan import ClarifyOutput, PlanOutput, parse_clarify, parse_plan
from deepresearch.contracts.reflect import Assessment, parse_assessment
from deepresearch.contracts.report import parse_analysis, parse_report
from deepresearch.contracts.supervise import Brief, parse_briefs
from deepresearch.contracts.verify import parse_verdicts
from deepresearch.core.roles import Role
from deepresearch.core.spendplan import Stage
from deepresearch.evidence.support import Verdict
from deepresearch.figures import FigurePlan, RenderedFigure, parse_charts, plan_figures
from deepresearch.pipeline.checks import CheckResult, check_analysis
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.fact_grounding import findings_check
from deepresearch.pipeline.known import known_plan

T = TypeVar("T")
Parser = Callable[[Path], tuple[T | None, list[str]]]
Check = Callable[[T], CheckResult]


@dataclass(frozen=True)
class StepScope:
    """What one call is about, for its parser and check: the task, the tasks briefed, the figures."""

    task_id: str = ""
    task_ids: tuple[str, ...] = ()  # the tasks briefed, or the items the verifier judges
    figures: Sequence[RenderedFigure] = ()


@dataclass(frozen=True)
class Repairs:
    """How often a role is re-prompted with the exact problems before its output is given up."""

    output: int = 1  # an output file the contract cannot read
    checks: int = 1  # a readable output that code checks find violations in


@dataclass(frozen=True)
class RoleSpec(Generic[T]):
    """One kind of agent call. `parser` and `check` are built per call from the run and scope."""

    role: Role
    template: str  # prompts/<template>.md.j2
    label: str  # logs/<label>.log and logs/calls/<label>/<label>_result.md; executors use their task ID
    parser: Callable[[RunContext, StepScope], Parser[T]]
    check: Callable[[RunContext, StepScope], Check[T]] | None = None
    repairs: Repairs = Repairs()
    yaml_output: bool = True  # read by contracts.yamlfile (the report, analysis and charts are not)
    stage: Stage = Stage.RESEARCH  # what the budget counts its calls as (core/spendplan.py)
    repair_stage: Stage | None = None  # its repairs' stage, when not its own

    def label_for(self, scope: StepScope) -> str:
        """The log and output-file label of a call (the task ID for executors)."""
        return scope.task_id if self.role is Role.EXECUTOR else self.label


def _charts_parser(ctx: RunContext, scope: StepScope) -> Parser[FigurePlan]:
    plans: list[FigurePlan] = []

    def parse(path: Path) -> tuple[FigurePlan | None, list[str]]:
        if not path.is_file():
            return None, [f"the output file {path.name} was not written"]
        text = path.read_text(encoding="utf-8", errors="replace")
        plan = plan_figures(
            parse_charts(text, ctx.config.max_figures), ctx.doc,
            repaired=bool(plans), max_chart_failures=ctx.config.max_chart_failures,
        )  # fmt: skip
        plans.append(plan)
        # One line per problem: an excerpt may span a fact's statement and quote.
        return (None, [" ".join(p.split()) for p in plan.problems]) if plan.needs_repair else (plan, [])

    return parse


def _reflector_parser(ctx: RunContext, scope: StepScope) -> Parser[Assessment]:
    fact_ids = {f.id for f in ctx.doc.facts}
    dim_ids = {d.id for d in ctx.doc.dimensions}
    return lambda path: parse_assessment(path, fact_ids, dim_ids)


CLARIFY: RoleSpec[ClarifyOutput] = RoleSpec(Role.PLANNER, "clarify", "clarify", lambda c, s: parse_clarify)
PLANNER: RoleSpec[PlanOutput] = RoleSpec(
    Role.PLANNER, "planner", "planner",
    lambda c, s: lambda p: parse_plan(p, c.config.max_tasks, known_plan(c.doc)),
)  # fmt: skip
SUPERVISOR: RoleSpec[dict[str, Brief]] = RoleSpec(
    Role.SUPERVISOR, "supervisor", "supervisor",
    lambda c, s: lambda p: parse_briefs(p, list(s.task_ids), [lang.code for lang in c.doc.front.languages]),
)  # fmt: skip
# A fact whose statement gives a number its quote lacks goes back once (pipeline/fact_grounding.py).
EXECUTOR: RoleSpec[ExecutorOutput] = RoleSpec(
    Role.EXECUTOR, "executor", "executor",
    lambda c, s: lambda p: parse_executor(
        p, s.task_id, [d.id for d in c.doc.dimensions], {src.id: src for src in c.doc.sources}
    ),
    check=lambda c, s: findings_check(c.workspace, c.workspace.result_file(s.task_id)),
)  # fmt: skip
REFLECTOR: RoleSpec[Assessment] = RoleSpec(Role.REFLECTOR, "reflector", "reflector", _reflector_parser)
ANALYST: RoleSpec[str] = RoleSpec(
    Role.ANALYST, "analyst", "analyst", lambda c, s: parse_analysis,
    check=lambda c, s: lambda text: check_analysis(text, c.doc, c.workspace.root), yaml_output=False,
    stage=Stage.ANALYSIS,
)  # fmt: skip
CHARTS: RoleSpec[FigurePlan] = RoleSpec(
    Role.CHARTS, "charts", "charts", _charts_parser, yaml_output=False, stage=Stage.FIGURES
)


def _synthesizer_check(ctx: RunContext, scope: StepScope) -> Check[str]:
    # The verifier's judgement joins the code checks (one repair carries both); it runs its own
    # step, and the step module imports this one: hence the import here.
    from deepresearch.pipeline.verify import draft_check

    return draft_check(ctx, scope.figures)


SYNTHESIZER: RoleSpec[str] = RoleSpec(
    Role.SYNTHESIZER, "synthesizer", "synthesizer", lambda c, s: parse_report, check=_synthesizer_check,
    yaml_output=False, stage=Stage.SYNTHESIS, repair_stage=Stage.REPAIR,
)  # fmt: skip


def _verdicts_parser(ctx: RunContext, scope: StepScope) -> Parser[dict[str, Verdict]]:
    return lambda path: parse_verdicts(path, list(scope.task_ids))  # scope.task_ids: the items judged


# The verifier judges new facts each round (label verifier) and the report's cited sentences.
VERIFIER: RoleSpec[dict[str, Verdict]] = RoleSpec(Role.VERIFIER, "verifier", "verifier", _verdicts_parser)
VERIFIER_REPORT: RoleSpec[dict[str, Verdict]] = RoleSpec(
    Role.VERIFIER, "verifier", "verifier-report", _verdicts_parser, stage=Stage.SUPPORT
)

# Every role's main call, by role (the planner's clarifying questions are its second kind of call).
SPECS: dict[Role, RoleSpec[Any]] = {
    spec.role: spec
    for spec in (PLANNER, SUPERVISOR, EXECUTOR, VERIFIER, REFLECTOR, ANALYST, CHARTS, SYNTHESIZER)
}
