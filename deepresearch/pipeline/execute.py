"""Phase: execute. Executors run in parallel in DAG order up to the concurrency limit. Each executor
call runs the task's Top-K batches itself and logs them; code checks and measures every batch and
decides whether the task needs another call (pipeline/saturation.py). With `batch_calls: per_batch`
(the old rule, for comparison) each batch is a call of its own.

Every call is reserved in the budget by the orchestrator's thread before it is handed to a worker,
so however many tasks are ready, no more calls start than research may use (core/spendplan.py).
Worker threads only run agents and parse their files; the orchestrator's thread merges each call's
batches into task.md as the call returns (one writer), and records them in the task ledger, so what a
batch found is saved before anything else happens and is never redone after a crash. A call cut short
by a crash leaves its finished batches in its output file: they are merged before the task goes on.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from deepresearch.contracts.execute import ExecutorOutput
from deepresearch.core.budget import RUN_SAVED, CallTicket
from deepresearch.core.effort import saturation
from deepresearch.core.errors import BudgetExhaustedError
from deepresearch.core.events import (
    Notice,
    PhaseFinished,
    PhaseStarted,
    SaturationRules,
    TaskDecided,
    TaskStatusChanged,
)  # fmt: skip
from deepresearch.core.spendplan import Stage
from deepresearch.pipeline.batches import CallInfo, absorb, harvest, recover
from deepresearch.pipeline.conflicts import conflict_of, deciding_authority
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.evidence import collect
from deepresearch.pipeline.known import known_sources
from deepresearch.pipeline.languages import language_lines, statement_language, task_languages
from deepresearch.pipeline.novelty import RULES
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import EXECUTOR, StepScope
from deepresearch.pipeline.saturation import IN_CALL, Verdict, decide, missing, next_k
from deepresearch.pipeline.step import StepOutcome, output_file, run_step
from deepresearch.pipeline.supervise import read_brief
from deepresearch.pipeline.taskledger import TaskLedger, TaskProgress
from deepresearch.state.model import Task, TaskStatus
from deepresearch.state.questions import is_follow_up
from deepresearch.state.schedule import dispatch_order

Outcome = StepOutcome[ExecutorOutput]


@dataclass
class Round:
    """The execute phase's in-memory bookkeeping: calls in flight and each task's progress."""

    in_flight: dict[Future[Outcome], CallInfo] = field(default_factory=dict)
    progress: dict[str, TaskProgress] = field(default_factory=dict)
    missing: dict[str, list[str]] = field(default_factory=dict)  # what the next call must find
    budget_note: str = ""


def executor_prompt(
    ctx: RunContext, task: Task, progress: TaskProgress, info: CallInfo, todo: list[str]
) -> str:
    """The executor's rendered prompt for one call of one task."""
    doc = ctx.doc
    dims_of = {t.id: set(t.dimensions) for t in doc.tasks}
    mine = set(task.dimensions)
    sat = saturation(ctx.config)
    in_call = ctx.config.batch_calls == IN_CALL
    return render_prompt(
        EXECUTOR.template,
        role=EXECUTOR.role,
        task_id=task.id,
        round=doc.front.round,
        output_file=ctx.workspace.relative(output_file(ctx, EXECUTOR, StepScope(task_id=task.id))),
        today=ctx.today,
        task=task,
        task_dimensions=[d for d in doc.dimensions if d.id in mine],
        sections=[s.section for s in doc.outline if set(s.dimensions) & mine],
        brief=read_brief(ctx, task),
        request=doc.request,
        known_facts=[f for f in doc.facts if f.task != task.id and dims_of.get(f.task, set()) & mine][-30:],
        task_facts=[f for f in doc.facts if f.task == task.id],
        call=info.call,
        max_calls=ctx.config.max_calls_per_task if in_call else sat.max_batches,
        first_batch=info.first_batch,
        last_batch=sat.max_batches if in_call else info.first_batch,
        min_batches=sat.min_batches,
        threshold=sat.saturation_threshold,
        min_tier1=sat.min_tier1_sources,
        k=next_k(progress, sat),
        k_expand=sat.k_expand,
        missing=todo,
        novelty_rules=RULES,
        conflict=_conflict_line(ctx, task),
        search_command=ctx.tool_command("search"),
        archive_command=ctx.tool_command("archive"),
        check_command=ctx.tool_command("check"),
        provided=[s for s in doc.sources if s.type == "provided"],
        follow_up=is_follow_up(doc),
        known_sources=known_sources(doc, task.dimensions, ctx.config.freshness_days, ctx.clock()),
        languages=language_lines(doc.front.languages),
        statement_language=statement_language(ctx.config.language, doc.request),
    )


def _conflict_line(ctx: RunContext, task: Task) -> str:
    """For a C-task: which conflict it settles and what settles it ("" for other tasks)."""
    conflict = conflict_of(ctx.doc, task)
    if conflict is None:
        return ""
    needed = deciding_authority(ctx.doc, conflict)
    return f"{conflict.id} ({', '.join(conflict.facts)} disagree on {conflict.topic or 'a point'}): authority ≥ {needed:.2f}"


def run_executor(ctx: RunContext, info: CallInfo, prompt: str, ticket: CallTicket | None = None) -> Outcome:
    """Worker-thread body: run one executor call (reserved as `ticket`) and parse its file (no
    task.md access)."""
    kind = "call" if ctx.config.batch_calls == IN_CALL else "batch"
    number = info.call if kind == "call" else info.first_batch
    name = info.task_id if number == 1 else f"{info.task_id}.{kind}{number}"
    scope = StepScope(task_id=info.task_id)
    try:
        return run_step(ctx, EXECUTOR, prompt, scope, prompt_name=name, ticket=ticket)
    except BudgetExhaustedError as exc:  # never raised for a reserved call; a failed call if it were
        return StepOutcome(None, [exc.message])


def _set_status(ctx: RunContext, task: Task, status: TaskStatus) -> None:
    task.status = status
    ctx.sink(TaskStatusChanged(task.id, status.value, ctx.doc.front.round))


def _progress(ctx: RunContext, state: Round, task_id: str) -> TaskProgress:
    if task_id not in state.progress:
        state.progress[task_id] = TaskLedger(ctx.workspace).progress(task_id)
    return state.progress[task_id]


def _reserve(ctx: RunContext, state: Round) -> CallTicket | None:
    """One research call reserved for an executor, or None (noted once) when research may not start one."""
    try:
        return ctx.budget.reserve_call(Stage.RESEARCH)
    except BudgetExhaustedError as exc:
        if not state.budget_note:
            state.budget_note = exc.message.removesuffix(RUN_SAVED)
            left = len(dispatch_order(ctx.doc))
            if left:
                ctx.sink(Notice(f"{state.budget_note}: {left} ready tasks are left pending", "warning"))
        return None


def _submit(ctx: RunContext, pool: ThreadPoolExecutor, state: Round, task: Task, ticket: CallTicket) -> None:
    progress = _progress(ctx, state, task.id)
    info = CallInfo(task.id, progress.numbered + 1, progress.batches + 1, ctx.clock())
    TaskLedger(ctx.workspace).call_started(task.id, info.call, info.first_batch, info.started)
    progress.numbered, progress.calls = info.call, progress.calls + 1
    todo = state.missing.pop(task.id, None)
    if todo is None and progress.batches:  # a task resumed in a new session
        todo = missing(
            progress, ctx.doc, task, saturation(ctx.config), task_languages(ctx.workspace, ctx.doc, task.id)
        )
    prompt = executor_prompt(ctx, task, progress, info, todo or [])
    state.in_flight[pool.submit(run_executor, ctx, info, prompt, ticket)] = info


def _complete(ctx: RunContext, task: Task, status: TaskStatus, why: str) -> None:
    _set_status(ctx, task, status)
    if why:
        ctx.sink(
            Notice(f"{task.id} {status.value}: {why}", "warning" if status is TaskStatus.FAILED else "info")
        )
    ctx.save(f"{task.id}-{status.value}")


def _decide(ctx: RunContext, task: Task, progress: TaskProgress, problems: list[str]) -> Verdict:
    searched = task_languages(ctx.workspace, ctx.doc, task.id)
    verdict = decide(progress, ctx.doc, task, saturation(ctx.config), ctx.config, problems, searched)
    ctx.sink(
        TaskDecided(task.id, progress.batches, progress.calls, verdict.more, verdict.reason, verdict.missing)
    )
    return verdict


def _finish_call(
    ctx: RunContext, pool: ThreadPoolExecutor, state: Round, info: CallInfo, outcome: Outcome
) -> None:
    """Merge one call's batches (orchestrator thread), save, and start the next call if one is needed."""
    ledger = TaskLedger(ctx.workspace)
    progress = _progress(ctx, state, info.task_id)
    evidence = collect(ctx, outcome.value) if outcome.value is not None else None
    ctx.refresh()  # a person may have edited task.md while the executor ran
    task = ctx.doc.task(info.task_id)
    if task is None or task.status is not TaskStatus.RUNNING:
        ledger.call_ended(info.task_id, info.call, "set_aside")
        ctx.sink(
            Notice(
                f"{info.task_id} was removed or re-marked in task.md while it ran; its result is set aside"
            )
        )
        return
    if outcome.value is None or evidence is None:
        kept, problems = harvest(ctx, info, progress, saturation(ctx.config))  # e.g. a timeout in batch 4
        ledger.call_ended(info.task_id, info.call, "failed")
        if not kept:
            status = TaskStatus.DONE if progress.batches > 0 else TaskStatus.FAILED
            _complete(ctx, task, status, f"call {info.call} failed: {outcome.failure}")
            return
        ctx.sink(
            Notice(
                f"{task.id}: call {info.call} failed ({outcome.failure}); kept the {kept} batches it finished"
            )
        )
    else:
        problems = absorb(ctx, info, outcome.value, evidence, progress, saturation(ctx.config))
        ledger.call_ended(info.task_id, info.call, "done")
    verdict = _decide(ctx, task, progress, problems)
    ticket = _reserve(ctx, state) if verdict.more else None
    if ticket is not None:
        state.missing[task.id] = verdict.missing
        _submit(ctx, pool, state, task, ticket)
        return
    _complete(
        ctx, task, TaskStatus.DONE, f"stopped early: {state.budget_note}" if verdict.more else verdict.reason
    )


def _recover(ctx: RunContext, state: Round) -> None:
    """Tasks whose call a crash cut short: merge the batches it finished, then decide as after a call."""
    sat = saturation(ctx.config)
    for task in ctx.doc.tasks:
        progress = _progress(ctx, state, task.id)
        if task.status is not TaskStatus.PENDING or progress.open_call is None:
            continue
        kept = recover(ctx, task.id, progress, sat)
        if not kept:
            continue
        ctx.sink(Notice(f"{task.id}: kept {kept} batches that the interrupted call had finished"))
        verdict = _decide(ctx, task, progress, [])
        if verdict.more:
            state.missing[task.id] = verdict.missing
        else:
            _complete(ctx, task, TaskStatus.DONE, verdict.reason)


def _dispatch(ctx: RunContext, pool: ThreadPoolExecutor, state: Round) -> None:
    """Start ready tasks (critical path first) while there is room under the concurrency limit."""
    room = ctx.config.concurrency - len(state.in_flight)
    if room <= 0:
        return
    ctx.refresh()
    _skip_blocked(ctx)
    for task in dispatch_order(ctx.doc)[:room]:
        ticket = _reserve(ctx, state)
        if ticket is None:
            return
        _set_status(ctx, task, TaskStatus.RUNNING)
        ctx.save(f"{task.id}-running")
        _submit(ctx, pool, state, task, ticket)


def _skip_blocked(ctx: RunContext) -> None:
    """Pending tasks that wait on a failed task can never run this round: mark them skipped."""
    status = {t.id: t.status for t in ctx.doc.tasks}
    changed = True
    while changed:
        changed = False
        for task in ctx.doc.tasks:
            blocked = [d for d in task.depends if status.get(d) in (TaskStatus.FAILED, TaskStatus.SKIPPED)]
            if task.status is TaskStatus.PENDING and blocked:
                _set_status(ctx, task, TaskStatus.SKIPPED)
                status[task.id] = TaskStatus.SKIPPED
                ctx.sink(
                    Notice(f"{task.id} skipped: it depends on {', '.join(blocked)}, which did not finish")
                )
                changed = True


def _announce_rules(ctx: RunContext) -> None:
    sat, config = saturation(ctx.config), ctx.config
    ctx.sink(
        SaturationRules(
            config.batch_calls, sat.k_initial, sat.k_expand, sat.min_batches, sat.max_batches,
            sat.saturation_threshold, sat.min_tier1_sources, config.max_calls_per_task, list(RULES),
        )
    )  # fmt: skip


def execute_round(ctx: RunContext) -> None:
    """Run every runnable pending task, at most `concurrency` at once, critical path first."""
    round_no = ctx.doc.front.round
    ctx.sink(PhaseStarted("execute", round_no))
    if ctx.tools is not None:
        ctx.tools.warm_browser()  # executors archive: Chromium starts now, beside their start-up
    _announce_rules(ctx)
    state = Round()
    _recover(ctx, state)
    with ThreadPoolExecutor(max_workers=ctx.config.concurrency, thread_name_prefix="executor") as pool:
        try:
            _dispatch(ctx, pool, state)
            while state.in_flight:
                done, _ = wait(state.in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    _finish_call(ctx, pool, state, state.in_flight.pop(future), future.result())
                _dispatch(ctx, pool, state)
        except BaseException:
            ctx.runner.stop_all()  # workers return at once; the pool can then shut down
            raise
    done_count = sum(1 for t in ctx.doc.tasks if t.status is TaskStatus.DONE)
    ctx.sink(PhaseFinished("execute", round_no, f"{done_count} tasks done, {len(ctx.doc.facts)} facts"))
