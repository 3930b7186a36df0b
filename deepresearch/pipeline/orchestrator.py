"""The orchestrator loop: plan → (supervise → execute → reflect) × rounds → synthesize → verify.

Every phase transition is saved to task.md before the next phase starts, so a run killed at any
moment resumes from the last completed step; finished tasks and merged facts are never redone.

The call ceiling is planned at the start (core/spendplan.py): the report's share is kept, research
gets the rest, and a research call the budget refuses ends research and goes to the report, so a
run that reached research ends with report.md.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TypeVar

from deepresearch.agents.runner import AgentRunner
from deepresearch.core.budget import RUN_SAVED
from deepresearch.core.clock import iso_seconds, utc_now
from deepresearch.core.config import Config, settings_snapshot
from deepresearch.core.effort import Limits
from deepresearch.core.errors import AgentError, BudgetExhaustedError, Interrupted, NoAgentError
from deepresearch.core.events import (
    CeilingsSet,
    EventSink,
    Notice,
    QuestionStarted,
    RunFinished,
    RunStarted,
)  # fmt: skip
from deepresearch.core.roles import Role
from deepresearch.core.spendplan import ReportShare, split
from deepresearch.core.workspace import Workspace
from deepresearch.figures import RenderedFigure
from deepresearch.pipeline.analyse import analyse, analysis_decision
from deepresearch.pipeline.charts import plan_charts
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.documents import provide_documents
from deepresearch.pipeline.economy import measure_economy
from deepresearch.pipeline.execute import execute_round
from deepresearch.pipeline.followup import begin_follow_up, renew_before
from deepresearch.pipeline.plan import Answer, plan, question_tasks
from deepresearch.pipeline.reflect import reflect
from deepresearch.pipeline.selfcheck import SelfCheck
from deepresearch.pipeline.summary import RunSummary, current_reason, whole_run
from deepresearch.pipeline.supervise import supervise
from deepresearch.pipeline.synthesize import ReportOutcome, synthesize
from deepresearch.pipeline.verify import verify_facts
from deepresearch.service.server import ToolService
from deepresearch.state.lock import WorkspaceLock
from deepresearch.state.model import FrontMatter, Mode, Question, RunStatus, TaskDoc
from deepresearch.state.questions import REPORT, current_question, is_follow_up, question_rounds
from deepresearch.state.schedule import reset_running
from deepresearch.state.store import StateStore

T = TypeVar("T")
# A hook between planning and research (interactive approval); returns False to stop here.
PlanHook = Callable[[RunContext], bool]
# A hook before the first plan (interactive clarification): returns the person's answers.
ClarifyHook = Callable[[RunContext], list[Answer]]


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


def ceilings_event(limits: Limits, share: ReportShare | None = None) -> CeilingsSet:
    """The run's ceilings and their split between research and the report, announced at its start
    ("this run will use at most N agent calls, M for research and K kept for the report")."""
    parts = split(limits.agent_calls, limits.minutes, share) if share is not None else None
    return CeilingsSet(
        limits.agent_calls,
        limits.minutes,
        limits.searches,
        limits.cost_usd,
        limits.effort,
        sorted(limits.defaults),
        parts.report_calls if parts else 0,
        parts.report_stages if parts else [],
        parts.research_calls if parts else None,
        parts.report_minutes if parts else None,
    )


def report_share(config: Config, doc: TaskDoc) -> ReportShare:
    """The calls this run keeps for its report: synthesizer and repair, and the support check,
    analysis and figures when they are on (the analysis as the question needs it)."""
    return ReportShare(
        analysis=analysis_decision(doc, config.analysis)[0],
        figures=config.max_figures > 0,
        support=config.verify_support != "never",
    )


def role_agents(config: Config) -> dict[str, str]:
    """role → "agent" or "agent/model", as recorded in the front matter."""
    out = {}
    for role in Role:
        rc = config.role(role)
        out[role.value] = f"{rc.agent}/{rc.model}" if rc.model else str(rc.agent)
    return out


def _optional(ctx: RunContext, name: str, stage: Callable[[], T], without: T) -> T:
    """An optional stage before the report: an agent CLI that fails for good there costs the stage,
    never the report."""
    try:
        return stage()
    except (AgentError, NoAgentError) as exc:
        ctx.sink(Notice(f"{name} skipped: {exc.message}", "warning"))
        return without


class Orchestrator:
    """Runs (or resumes) one research run in one workspace."""

    def __init__(self, workspace: Workspace, config: Config, sink: EventSink, runner: AgentRunner) -> None:
        self.workspace = workspace
        self.config = config
        self.sink = sink
        self.runner = runner
        self.store = StateStore(workspace)
        self.report: ReportOutcome | None = None
        self.recorded_reason = ""  # the termination reason task.md held when this session began

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
        self.runner.budget.plan(report_share(self.config, doc))  # a ceiling too small: ConfigError
        self.workspace.ensure()
        with WorkspaceLock(self.workspace) as lock:
            if lock.took_over_from:
                self.sink(Notice(f"took over a stale lock left by process {lock.took_over_from}", "warning"))
            if lock.stopped:
                pids = ", ".join(map(str, lock.stopped))
                self.sink(Notice(f"stopped agent processes a dead run left running: {pids}", "warning"))
            self.runner.sandbox_state()  # `sandbox: bwrap` without a working bubblewrap stops here
            if follow_up is not None:  # under the lock: nothing else moves the earlier report meanwhile
                budget = self.runner.budget
                ledgers = [self.workspace.usage_ledger, budget.search_counter, self.workspace.elapsed_time]
                doc = begin_follow_up(self.workspace, self.store.load(), follow_up, utc_now(), ledgers)
            self.recorded_reason = doc.front.termination_reason
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
                self.sink(ceilings_event(self.runner.budget.limits, self.runner.budget.share))
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
        service.checker = SelfCheck(self.workspace, self.config)  # what `deepresearch-check` runs
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
            self._replan(ctx)
        if ctx.doc.front.status in (RunStatus.RESEARCHING, RunStatus.REFLECTING):
            reset = reset_running(ctx.doc)
            if reset:
                self.sink(Notice(f"resuming: {', '.join(reset)} were running and will run again"))
                ctx.save("resume")
        try:
            self._research(ctx)
        except BudgetExhaustedError as exc:  # a research call the budget refused: the report's turn
            ctx.refresh()
            reset_running(ctx.doc)
            ctx.doc.front.status = RunStatus.SYNTHESIZING
            ctx.doc.front.termination_reason = exc.message.removesuffix(RUN_SAVED)
            ctx.save("budget")
        if ctx.doc.front.status is RunStatus.SYNTHESIZING:
            analysis = _optional(ctx, "analysis", lambda: analyse(ctx), None)  # each skips itself
            none: list[RenderedFigure] = []
            figures = _optional(ctx, "figures", lambda: plan_charts(ctx), none)
            self.report = synthesize(ctx, analysis, figures)
            ctx.refresh()
            if self.report.complete:  # else it stays resumable: a run again writes one that passes
                ctx.doc.front.status = RunStatus.COMPLETED
            ctx.save("completed" if self.report.complete else "report-kept")

    def _research(self, ctx: RunContext) -> None:
        """Rounds of research until a stop rule or a ceiling sends the run to its report."""
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

    def _replan(self, ctx: RunContext) -> None:
        """After planning the question's complexity is known: the analysis may join or leave the
        report's share (announced again when the split changes)."""
        budget, share = ctx.budget, report_share(self.config, ctx.doc)
        if share != budget.share:
            budget.share = share
            self.sink(ceilings_event(budget.limits, share))

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
        self.runner.budget.checkpoint()
        reset_running(ctx.doc)
        ctx.save("interrupted")

    def _finish(self, ctx: RunContext) -> RunSummary:
        doc, report = ctx.doc, self.report
        self.runner.budget.checkpoint()
        done = doc.front.status is RunStatus.COMPLETED
        run = whole_run(self.workspace)
        reason = current_reason(
            doc.front.termination_reason,
            bool(self.recorded_reason) and doc.front.termination_reason == self.recorded_reason,
            self.runner.budget.limits,
        )
        written = done or report is not None
        summary = RunSummary(
            # A report kept with a notice ends the research, though task.md stays resumable for it.
            status=RunStatus.COMPLETED.value if written else doc.front.status.value,
            reason=reason or ("" if done or report else "stopped before research (plan not approved)"),
            report=str(self.workspace.report_md) if written else None,
            rounds=max(question_rounds(doc, doc.front.round), 0),  # of this question (a follow-up's own)
            scores=[q.score for q in doc.quality if q.round >= current_question(doc).round],
            agent_calls=run.calls,  # the question's, across its sessions (a follow-up's ledger is its own)
            calls_by_role=run.calls_by_role,
            input_tokens=run.input_tokens,
            output_tokens=run.output_tokens,
            cost_usd=run.cost_usd,
            violations=len(report.violations) if report is not None else None,
            session_calls=self.runner.usage.calls,
            cause=report.cause if report is not None else "",
            cause_reason=report.reason if report is not None else "",
        )
        economy = measure_economy(self.workspace, doc) if is_follow_up(doc) else None
        summary.economy = economy
        self.sink(
            RunFinished(summary.status, summary.reason, summary.report, summary.rounds, summary.scores,
                        summary.agent_calls, summary.input_tokens, summary.output_tokens, summary.cost_usd,
                        summary.violations, summary.calls_by_role, economy.to_dict() if economy else {},
                        summary.session_calls)
        )  # fmt: skip
        return summary
