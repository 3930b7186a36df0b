"""Phase: supervise. The research supervisor writes a self-contained brief for each new task."""

from __future__ import annotations

from deepresearch.core.events import Notice, PhaseFinished, PhaseStarted
from deepresearch.core.languages import describe
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.languages import language_lines
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import SUPERVISOR, StepScope
from deepresearch.pipeline.step import output_file, run_step
from deepresearch.state.model import Task, TaskStatus


def brief_path(ctx: RunContext, task_id: str) -> str:
    """logs/briefs/<task>.md, relative to the workspace."""
    return ctx.workspace.relative(ctx.workspace.briefs / f"{task_id}.md")


def read_brief(ctx: RunContext, task: Task) -> str:
    """The task's brief (written by the supervisor, or the code fallback)."""
    path = ctx.workspace.briefs / f"{task.id}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else fallback_brief(ctx, task)


def fallback_brief(ctx: RunContext, task: Task) -> str:
    """A brief made by code from the task row, used when the supervisor fails."""
    names = {d.id: d.name for d in ctx.doc.dimensions}
    dims = ", ".join(f"{d} {names.get(d, '')}".strip() for d in task.dimensions)
    languages = ", ".join(describe(p.code) for p in ctx.doc.front.languages)
    return (
        f"Goal: {task.title}\nServes: {dims}.\n"
        + (f"Search in each of these languages: {languages}.\n" if languages else "")
        + "Prefer primary sources. Stop when the task's question is answered by archived sources, "
        "or when further searches return what you already have."
    )


def supervise(ctx: RunContext) -> None:
    """Write briefs for every pending task of the current round that has none yet."""
    doc = ctx.doc
    todo = [
        t
        for t in doc.tasks
        if t.status is TaskStatus.PENDING and not (ctx.workspace.briefs / f"{t.id}.md").exists()
    ]
    if not todo:
        return
    ctx.sink(PhaseStarted("supervise", doc.front.round))
    output = output_file(ctx, SUPERVISOR)
    todo_ids = [t.id for t in todo]
    prompt = render_prompt(
        SUPERVISOR.template,
        role=SUPERVISOR.role,
        task_id="",
        round=doc.front.round,
        output_file=ctx.workspace.relative(output),
        today=ctx.today,
        request=doc.request,
        dimensions=doc.dimensions,
        outline=doc.outline,
        tasks=todo,
        other_tasks=[t for t in doc.tasks if t.id not in todo_ids],
        known_facts=doc.facts[-40:],
        languages=language_lines(doc.front.languages),
    )
    step = run_step(ctx, SUPERVISOR, prompt, StepScope(task_ids=tuple(todo_ids)))
    briefs = step.value or {}
    if step.value is None:
        ctx.sink(
            Notice(f"supervisor failed ({step.failure}); using briefs built from the task rows", "warning")
        )
    ctx.workspace.briefs.mkdir(parents=True, exist_ok=True)
    for task in todo:
        brief = briefs.get(task.id)
        text = brief.render() if brief is not None else fallback_brief(ctx, task).rstrip() + "\n"
        (ctx.workspace.briefs / f"{task.id}.md").write_text(text, encoding="utf-8")
    ctx.sink(PhaseFinished("supervise", doc.front.round, f"{len(todo)} briefs"))
