"""Phase: execute. Executors run in parallel in DAG order up to the concurrency limit.

Worker threads only run agents and parse their files; the orchestrator's thread merges each result
into task.md as it arrives (one writer), so a task that finished is saved before the next starts and
is never redone after a crash.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from deepresearch.contracts.execute import ExecutorOutput, parse_executor
from deepresearch.events import FactsMerged, Notice, PhaseFinished, PhaseStarted, TaskStatusChanged
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.evidence import collect, merge_evidence
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.step import StepOutcome, run_step
from deepresearch.pipeline.supervise import read_brief
from deepresearch.state.model import Task, TaskStatus
from deepresearch.state.schedule import dispatch_order

FINISHED = (TaskStatus.DONE, TaskStatus.FAILED, TaskStatus.SKIPPED)


def executor_prompt(ctx: RunContext, task: Task) -> str:
    """The executor's rendered prompt for one task."""
    doc = ctx.doc
    dims = [d for d in doc.dimensions if d.id in task.dimensions]
    sections = [s.section for s in doc.outline if set(s.dimensions) & set(task.dimensions)]
    known = [f for f in doc.facts if set(task.dimensions) & set(_fact_dimensions(ctx, f.task))][-30:]
    return render_prompt(
        "executor",
        role="executor",
        task_id=task.id,
        round=doc.front.round,
        output_file=ctx.workspace.relative(ctx.workspace.result_file(task.id)),
        today=ctx.today,
        task=task,
        task_dimensions=dims,
        sections=sections,
        brief=read_brief(ctx, task),
        request=doc.request,
        known_facts=known,
        search_command=ctx.cli_command("search"),
        archive_command=ctx.cli_command("archive"),
    )


def _fact_dimensions(ctx: RunContext, task_id: str) -> list[str]:
    task = ctx.doc.task(task_id)
    return task.dimensions if task else []


def run_executor(ctx: RunContext, task: Task, prompt: str) -> StepOutcome[ExecutorOutput]:
    """Worker-thread body: run the executor and parse its file (no task.md access)."""
    output = ctx.workspace.result_file(task.id)
    return run_step(ctx, "executor", task.id, task.id, prompt, output, lambda p: parse_executor(p, task.id))


def _set_status(ctx: RunContext, task: Task, status: TaskStatus) -> None:
    task.status = status
    ctx.sink(TaskStatusChanged(task.id, status.value, ctx.doc.front.round))


def _finish(ctx: RunContext, task_id: str, outcome: StepOutcome[ExecutorOutput]) -> None:
    """Merge one executor's findings (orchestrator thread) and save."""
    evidence = collect(ctx, outcome.value) if outcome.value is not None else None
    ctx.refresh()  # a person may have edited task.md while the executor ran
    task = ctx.doc.task(task_id)
    if task is None or task.status is not TaskStatus.RUNNING:
        ctx.sink(
            Notice(f"{task_id} was removed or re-marked in task.md while it ran; its result is set aside")
        )
        return
    if evidence is None:
        _set_status(ctx, task, TaskStatus.FAILED)
        ctx.sink(Notice(f"{task_id} failed: {outcome.failure}", "warning"))
        ctx.save(f"{task_id}-failed")
        return
    _set_status(ctx, task, TaskStatus.DONE)
    merged = merge_evidence(ctx, task_id, evidence, f"{task_id}-done")
    for problem in merged.rejected:
        ctx.sink(Notice(f"{task_id}: {problem}", "warning"))
    doc = ctx.doc
    new_facts, new_sources = len(merged.new_fact_ids), len(merged.new_source_ids)
    ctx.sink(FactsMerged(task_id, new_facts, new_sources, len(doc.facts), len(doc.sources)))


def _dispatch(
    ctx: RunContext, pool: ThreadPoolExecutor, in_flight: dict[Future[StepOutcome[ExecutorOutput]], str]
) -> None:
    """Start ready tasks (critical path first) while there is room under the concurrency limit."""
    room = ctx.config.concurrency - len(in_flight)
    if room <= 0:
        return
    ctx.refresh()
    _skip_blocked(ctx)
    for task in dispatch_order(ctx.doc)[:room]:
        prompt = executor_prompt(ctx, task)
        _set_status(ctx, task, TaskStatus.RUNNING)
        ctx.save(f"{task.id}-running")
        in_flight[pool.submit(run_executor, ctx, task, prompt)] = task.id


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
    in_flight: dict[Future[StepOutcome[ExecutorOutput]], str] = {}
    with ThreadPoolExecutor(max_workers=ctx.config.concurrency, thread_name_prefix="executor") as pool:
        try:
            _dispatch(ctx, pool, in_flight)
            while in_flight:
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    _finish(ctx, in_flight.pop(future), future.result())
                _dispatch(ctx, pool, in_flight)
        except BaseException:
            ctx.runner.stop_all()  # workers return at once; the pool can then shut down
            raise
    done_count = sum(1 for t in ctx.doc.tasks if t.status is TaskStatus.DONE)
    ctx.sink(PhaseFinished("execute", round_no, f"{done_count} tasks done, {len(ctx.doc.facts)} facts"))
