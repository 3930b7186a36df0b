"""Phase: execute. Executors run in parallel in DAG order up to the concurrency limit, each task in
batches until code says it is saturated (pipeline/saturation.py).

Worker threads only run agents and parse their files; the orchestrator's thread merges each batch
into task.md as it arrives (one writer), so what a batch found is saved before the next starts and
is never redone after a crash.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from deepresearch.contracts.execute import ExecutorOutput
from deepresearch.core.effort import saturation
from deepresearch.core.events import FactsMerged, Notice, PhaseFinished, PhaseStarted, TaskStatusChanged
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.evidence import collect, merge_evidence
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import EXECUTOR, StepScope
from deepresearch.pipeline.saturation import BatchState, after_batch, covered_dimensions, measure, next_k
from deepresearch.pipeline.step import StepOutcome, output_file, run_step
from deepresearch.pipeline.supervise import read_brief
from deepresearch.state.model import Task, TaskStatus
from deepresearch.state.schedule import dispatch_order

Outcome = StepOutcome[ExecutorOutput]


@dataclass
class Round:
    """The execute phase's in-memory bookkeeping: futures in flight and each task's batches."""

    in_flight: dict[Future[Outcome], str] = field(default_factory=dict)
    batches: dict[str, BatchState] = field(default_factory=dict)
    budget_note: str = ""


def executor_prompt(ctx: RunContext, task: Task, state: BatchState) -> str:
    """The executor's rendered prompt for one batch of one task."""
    doc = ctx.doc
    dims_of = {t.id: set(t.dimensions) for t in doc.tasks}
    mine = set(task.dimensions)
    sat = saturation(ctx.config)
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
        batch=state.batches + 1,
        max_batches=sat.max_batches,
        k=next_k(state, sat),
        search_command=ctx.tool_command("search"),
        archive_command=ctx.tool_command("archive"),
        provided=[s for s in doc.sources if s.type == "provided"],
    )


def run_executor(ctx: RunContext, task_id: str, batch: int, prompt: str) -> Outcome:
    """Worker-thread body: run one batch of the executor and parse its file (no task.md access)."""
    name = task_id if batch == 1 else f"{task_id}.batch{batch}"
    return run_step(ctx, EXECUTOR, prompt, StepScope(task_id=task_id), prompt_name=name)


def _set_status(ctx: RunContext, task: Task, status: TaskStatus) -> None:
    task.status = status
    ctx.sink(TaskStatusChanged(task.id, status.value, ctx.doc.front.round))


def _submit(ctx: RunContext, pool: ThreadPoolExecutor, state: Round, task: Task) -> None:
    batch = state.batches.setdefault(task.id, BatchState(task.id))
    prompt = executor_prompt(ctx, task, batch)
    state.in_flight[pool.submit(run_executor, ctx, task.id, batch.batches + 1, prompt)] = task.id


def _complete(ctx: RunContext, task: Task, status: TaskStatus, why: str) -> None:
    _set_status(ctx, task, status)
    if why:
        ctx.sink(
            Notice(f"{task.id} {status.value}: {why}", "warning" if status is TaskStatus.FAILED else "info")
        )
    ctx.save(f"{task.id}-{status.value}")


def _finish_batch(
    ctx: RunContext, pool: ThreadPoolExecutor, state: Round, task_id: str, outcome: Outcome
) -> None:
    """Merge one batch (orchestrator thread), save, and start the next batch if one is worth it."""
    evidence = collect(ctx, outcome.value) if outcome.value is not None else None
    ctx.refresh()  # a person may have edited task.md while the executor ran
    task = ctx.doc.task(task_id)
    batch = state.batches[task_id]
    if task is None or task.status is not TaskStatus.RUNNING:
        ctx.sink(
            Notice(f"{task_id} was removed or re-marked in task.md while it ran; its result is set aside")
        )
        return
    if evidence is None:
        found_before = batch.batches > 0
        status = TaskStatus.DONE if found_before else TaskStatus.FAILED
        _complete(ctx, task, status, f"batch {batch.batches + 1} failed: {outcome.failure}")
        return
    covered_before = covered_dimensions(ctx.doc)
    merged = merge_evidence(ctx, task_id, evidence, f"{task_id}-batch{batch.batches + 1}")
    for problem in merged.rejected:
        ctx.sink(Notice(f"{task_id}: {problem}", "warning"))
    doc = ctx.doc
    novelty = measure(doc, merged, covered_before, task, len(evidence.contradictions))
    ctx.sink(
        FactsMerged(
            task_id, len(merged.new_fact_ids), len(merged.new_source_ids), len(doc.facts), len(doc.sources)
        )
    )
    more = after_batch(batch, novelty, doc, task, saturation(ctx.config))
    spent = ctx.budget.research_stop_reason()
    if more and not spent:
        _submit(ctx, pool, state, task)
        return
    _complete(ctx, task, TaskStatus.DONE, batch.reason or (spent and f"stopped early: {spent}") or "")


def _dispatch(ctx: RunContext, pool: ThreadPoolExecutor, state: Round) -> None:
    """Start ready tasks (critical path first) while there is room under the concurrency limit."""
    room = ctx.config.concurrency - len(state.in_flight)
    if room <= 0:
        return
    ctx.refresh()
    _skip_blocked(ctx)
    ready = dispatch_order(ctx.doc)[:room]
    spent = ctx.budget.research_stop_reason() if ready else None
    if spent:
        if not state.budget_note:
            state.budget_note = spent
            ctx.sink(
                Notice(f"{spent}: {len(dispatch_order(ctx.doc))} ready tasks are left pending", "warning")
            )
        return
    for task in ready:
        _set_status(ctx, task, TaskStatus.RUNNING)
        ctx.save(f"{task.id}-running")
        _submit(ctx, pool, state, task)


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


def execute_round(ctx: RunContext) -> None:
    """Run every runnable pending task, at most `concurrency` at once, critical path first."""
    round_no = ctx.doc.front.round
    ctx.sink(PhaseStarted("execute", round_no))
    state = Round()
    with ThreadPoolExecutor(max_workers=ctx.config.concurrency, thread_name_prefix="executor") as pool:
        try:
            _dispatch(ctx, pool, state)
            while state.in_flight:
                done, _ = wait(state.in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    _finish_batch(ctx, pool, state, state.in_flight.pop(future), future.result())
                _dispatch(ctx, pool, state)
        except BaseException:
            ctx.runner.stop_all()  # workers return at once; the pool can then shut down
            raise
    done_count = sum(1 for t in ctx.doc.tasks if t.status is TaskStatus.DONE)
    ctx.sink(PhaseFinished("execute", round_no, f"{done_count} tasks done, {len(ctx.doc.facts)} facts"))
