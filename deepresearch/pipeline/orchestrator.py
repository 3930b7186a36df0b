"""The orchestrator loop: plan → (supervise → execute → reflect) × rounds → synthesize → verify.

Every phase transition is saved to task.md before the next phase starts, so a run killed at any
moment resumes from the last completed step; finished tasks and merged facts are never redone.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from deepresearch.agents.runner import AgentRunner
from deepresearch.core.clock import iso_seconds, utc_now
from deepresearch.core.config import Config, settings_snapshot
from deepresearch.core.effort import Limits
from deepresearch.core.errors import BudgetExhaustedError, Interrupted
from deepresearch.core.events import (
    CeilingsSet,
    EventSink,
    Notice,
    QuestionStarted,
    RunFinished,
    RunStarted,
)  # fmt: skip
from deepresearch.core.roles import Role
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.analyse import analyse
from deepresearch.pipeline.charts import plan_charts
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.documents import provide_documents
from deepresearch.pipeline.economy import Economy, measure_economy
from deepresearch.pipeline.execute import execute_round
from deepresearch.pipeline.followup import begin_follow_up, renew_before
from deepresearch.pipeline.plan import Answer, plan, question_tasks
from deepresearch.pipeline.reflect import reflect
from deepresearch.pipeline.supervise import supervise
from deepresearch.pipeline.synthesize import synthesize
from deepresearch.pipeline.verify import verify_facts
from deepresearch.service.server import ToolService
from deepresearch.state.lock import WorkspaceLock
from deepresearch.state.model import FrontMatter, Mode, Question, RunStatus, TaskDoc
from deepresearch.state.questions import REPORT, current_question, is_follow_up, question_rounds
from deepresearch.state.schedule import reset_running
from deepresearch.state.store import StateStore

# A hook between planning and research (interactive approval); returns False to stop here.
PlanHook = Callable[[RunContext], bool]
# A hook before the first plan (interactive clarification): returns the person's answers.
ClarifyHook = Callable[[RunContext], list[Answer]]


@dataclass
class RunSummary:
    status: str
    reason: str
    report: str | None
    rounds: int
    scores: list[float] = field(default_factory=list)
    agent_calls: int = 0
    calls_by_role: dict[str, int] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    violations: int | None = None  # None when no report was verified in this session
    economy: Economy | None = None  # a follow-up's: spent on this question, reused from earlier ones


def new_document(question: str, config: Config, agents: dict[str, str]) -> TaskDoc:
    """A fresh task.md for `question`, in status planning."""
    now = iso_seconds(utc_now())
    first_line = question.strip().splitlines()[0] if question.strip() else ""
    front = FrontMatter(
        id=f"dr-{utc_now():%Y%m%d}-{uuid.uuid4().hex[:6]}",
        question=first_line[:300],
        status=RunStatus.PLANNING,
        round=0,
        mode=Mode(config.mode),
        created=now,
        updated=now,
        agents=agents,
        settings=settings_snapshot(config),
    )
    asked = Question("Q1", first_line[:300], now, 1, [], REPORT)
    return TaskDoc(front=front, request=question.strip(), questions=[asked])


def ceilings_event(limits: Limits) -> CeilingsSet:
    """The run's ceilings, announced at its start ("this run will use at most N agent calls")."""
    return CeilingsSet(
        limits.agent_calls,
        limits.minutes,
        limits.searches,
        limits.cost_usd,
        limits.effort,
        sorted(limits.defaults),
    )


def role_agents(config: Config) -> dict[str, str]:
    """role → "agent" or "agent/model", as recorded in the front matter."""
    out = {}
    for role in Role:
        rc = config.role(role)
        out[role.value] = f"{rc.agent}/{rc.model}" if rc.model else str(rc.agent)
    return out


class Orchestrator:
    """Runs (or resumes) one research run in one workspace."""

    def __init__(self, workspace: Workspace, config: Config, sink: EventSink, runner: AgentRunner) -> None:
        self.workspace = workspace
        self.config = config
        self.sink = sink
        self.runner = runner
        self.store = StateStore(workspace)
        self.violations: int | None = None

    def run(
        self,
        doc: TaskDoc,
        resumed: bool,
        on_plan: PlanHook | None = None,
        on_clarify: ClarifyHook | None = None,
        follow_up: str | None = None,
    ) -> RunSummary:
        """Drive `doc` to completion under the workspace lock; Ctrl-C leaves it resumable. With
        `follow_up`, the finished run in task.md is first turned into that follow-up question."""
        self.on_clarify = on_clarify
        self.workspace.ensure()
        with WorkspaceLock(self.workspace) as lock:
            if lock.took_over_from:
                self.sink(Notice(f"took over a stale lock left by process {lock.took_over_from}", "warning"))
            if lock.stopped:
                pids = ", ".join(map(str, lock.stopped))
                self.sink(Notice(f"stopped agent processes a dead run left running: {pids}", "warning"))
            self.runner.sandbox_state()  # `sandbox: bwrap` without a working bubblewrap stops here
            if follow_up is not None:  # under the lock: nothing else moves the earlier report meanwhile
                ledgers = [self.workspace.usage_ledger, self.runner.budget.search_counter]
                doc = begin_follow_up(self.workspace, self.store.load(), follow_up, utc_now(), ledgers)
            ctx = RunContext(self.workspace, self.config, self.store, self.runner, self.sink, doc)
            if self.store.exists():
                ctx.written = self.store.path.read_text(encoding="utf-8")
            if follow_up is not None:
                ctx.save("follow-up")  # at once: task.md names where the earlier report went
                question = current_question(doc)
                self.sink(QuestionStarted(question.id, question.question))
            with self._tool_service(renew_before(doc, self.config.freshness_days, utc_now())) as tools:
                ctx.tools = tools
                self.sink(RunStarted(str(self.workspace.root), doc.front.question, resumed))
                self.sink(ceilings_event(self.runner.budget.limits))
                try:
                    self._drive(ctx, on_plan)
                except BudgetExhaustedError:
                    self._leave_resumable(ctx)
                    raise
                except (KeyboardInterrupt, Interrupted) as exc:
                    self._leave_resumable(ctx)
                    raise Interrupted(
                        "interrupted; the workspace is saved and resumable",
                        hint="run the same command again (or `deepresearch --resume`) to continue",
                    ) from exc
                return self._finish(ctx)

    @contextlib.contextmanager
    def _tool_service(self, renew: datetime | None) -> Iterator[ToolService]:
        """The run's tool service, started for this run only (inside the workspace lock) and handed
        to the runner, whose agents reach it through DEEPRESEARCH_SERVICE; a known source archived
        before `renew` is archived again when asked for."""
        runner = self.runner
        service = ToolService(
            self.workspace, self.config, runner.budget, runner.environ, self.sink, renew_before=renew
        )
        with service:
            runner.tool_service = service
            try:
                yield service
            finally:
                runner.tool_service = None

    def _drive(self, ctx: RunContext, on_plan: PlanHook | None) -> None:
        if ctx.doc.front.status is RunStatus.PLANNING:
            provide_documents(ctx)  # the person's own documents, archived before anyone plans
            self._plan(ctx, on_plan)
        if ctx.doc.front.status in (RunStatus.RESEARCHING, RunStatus.REFLECTING):
            reset = reset_running(ctx.doc)
            if reset:
                self.sink(Notice(f"resuming: {', '.join(reset)} were running and will run again"))
                ctx.save("resume")
        # Each phase starts from task.md as it is now: a person may edit it between phases.
        while True:
            ctx.refresh()
            if ctx.doc.front.status is RunStatus.RESEARCHING:
                if self._out_of_budget(ctx, f"budget-r{ctx.doc.front.round}"):
                    break  # not even a supervisor call: what is left is for the report
                supervise(ctx)
                execute_round(ctx)
                ctx.refresh()
                if self._out_of_budget(ctx, f"execute-r{ctx.doc.front.round}"):
                    break  # no reflection: the calls left are for the report
                ctx.doc.front.status = RunStatus.REFLECTING
                ctx.save(f"execute-r{ctx.doc.front.round}")
            elif ctx.doc.front.status is not RunStatus.REFLECTING:
                break
            verify_facts(ctx)  # the round's new facts, before they are judged as research
            reflect(ctx)
        if ctx.doc.front.status is RunStatus.SYNTHESIZING:
            analysis, figures = analyse(ctx), plan_charts(ctx)  # optional; each skips itself
            self.violations = len(synthesize(ctx, analysis, figures).violations)
            ctx.refresh()
            ctx.doc.front.status = RunStatus.COMPLETED
            ctx.save("completed")

    def _out_of_budget(self, ctx: RunContext, phase: str) -> bool:
        """When a ceiling stops research: go to the report, with the ceiling as the reason."""
        spent = ctx.budget.research_stop_reason()
        if spent:
            ctx.doc.front.status = RunStatus.SYNTHESIZING
            ctx.doc.front.termination_reason = spent
            ctx.save(phase)
        return bool(spent)

    def _plan(self, ctx: RunContext, on_plan: PlanHook | None) -> None:
        if not question_tasks(ctx.doc):
            plan(ctx, self.on_clarify(ctx) if self.on_clarify is not None else [])
        else:  # a plan written by hand (or by an earlier session) is used as it is
            ctx.doc.front.status, ctx.doc.front.round = RunStatus.RESEARCHING, max(ctx.doc.front.round, 1)
            ctx.save("plan")
        if on_plan is None:
            return
        # Until approved, the plan waits in status planning: after a quit, Ctrl-C or kill, the next
        # run shows it for approval again instead of researching on a plan nobody approved.
        ctx.doc.front.status = RunStatus.PLANNING
        ctx.save("plan-review")
        if on_plan(ctx):
            # A follow-up's plan with no new task goes straight to the report.
            approved = RunStatus.RESEARCHING if question_tasks(ctx.doc) else RunStatus.SYNTHESIZING
            ctx.doc.front.status = approved
            ctx.save("plan-approved")

    def _leave_resumable(self, ctx: RunContext) -> None:
        self.runner.stop_all()
        reset_running(ctx.doc)
        ctx.save("interrupted")

    def _finish(self, ctx: RunContext) -> RunSummary:
        doc = ctx.doc
        usage = self.runner.usage
        done = doc.front.status is RunStatus.COMPLETED
        summary = RunSummary(
            status=doc.front.status.value,
            reason=doc.front.termination_reason
            or ("" if done else "stopped before research (plan not approved)"),
            report=str(self.workspace.report_md) if done else None,
            rounds=max(question_rounds(doc, doc.front.round), 0),  # of this question (a follow-up's own)
            scores=[q.score for q in doc.quality if q.round >= current_question(doc).round],
            agent_calls=usage.calls,
            calls_by_role=dict(usage.calls_by_role),
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cost_usd=usage.cost_usd,
            violations=self.violations,
        )
        economy = measure_economy(self.workspace, doc) if is_follow_up(doc) else None
        summary.economy = economy
        self.sink(
            RunFinished(summary.status, summary.reason, summary.report, summary.rounds, summary.scores,
                        summary.agent_calls, summary.input_tokens, summary.output_tokens, summary.cost_usd,
                        summary.violations, summary.calls_by_role, economy.to_dict() if economy else {})
        )  # fmt: skip
        return summary
