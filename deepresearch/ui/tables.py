"""Rich tables of task.md: the plan (dimensions, outline, DAG) and the DAG with progress."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from deepresearch.core.languages import language_name
from deepresearch.pipeline.progress import RunProgress, TaskTiming
from deepresearch.state.model import TaskDoc
from deepresearch.state.questions import current_question

STATUS_STYLE = {
    "pending": "dim",
    "running": "bold yellow",
    "done": "green",
    "failed": "bold red",
    "skipped": "dim strike",
}


def duration(seconds: float | None) -> str:
    """12s, 3m05s, 1h02m: short and stable in width."""
    if seconds is None:
        return "-"
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def dimensions_table(doc: TaskDoc) -> Table:
    """The plan's dimensions: ID, name, description."""
    table = Table(title="Dimensions", title_justify="left", expand=False)
    table.add_column("ID", no_wrap=True)
    table.add_column("Dimension")
    table.add_column("Description")
    for dim in doc.dimensions:
        table.add_row(dim.id, dim.name, dim.description)
    return table


def languages_table(doc: TaskDoc) -> Table:
    """The languages the research searches in, and why each."""
    table = Table(title="Languages to search", title_justify="left", expand=False)
    table.add_column("Code", no_wrap=True)
    table.add_column("Language", no_wrap=True)
    table.add_column("Why")
    for planned in doc.front.languages:
        table.add_row(planned.code, language_name(planned.code), planned.reason)
    return table


def outline_table(doc: TaskDoc) -> Table:
    """The report outline: section, dimensions, questions."""
    table = Table(title="Report outline", title_justify="left")
    table.add_column("Section")
    table.add_column("Dimensions", no_wrap=True)
    table.add_column("Questions")
    for section in doc.outline:
        table.add_row(section.section, ", ".join(section.dimensions), section.questions)
    return table


def plan_dag_table(doc: TaskDoc) -> Table:
    """The research DAG as planned for the current question (a follow-up's new tasks only): ID,
    task, dimensions, priority, depends."""
    table = Table(title="Research DAG", title_justify="left")
    for name in ("ID", "Task", "Dimensions", "Priority", "Depends"):
        table.add_column(name, no_wrap=name != "Task")
    first = current_question(doc).round
    for task in (t for t in doc.tasks if t.round >= first):
        table.add_row(
            task.id,
            task.title,
            ", ".join(task.dimensions),
            task.priority.value,
            ", ".join(task.depends) or "-",
        )
    return table


def progress_dag_table(doc: TaskDoc | None, progress: RunProgress, now: float) -> Table:
    """The DAG with each task's status and elapsed time (task.md first, events for what it lacks)."""
    table = Table(title="Research DAG", title_justify="left")
    for name in ("ID", "Task", "Round", "Depends", "Status", "Batches", "Calls", "Elapsed"):
        table.add_column(name, no_wrap=name != "Task")
    known: set[str] = set()
    for task in doc.tasks if doc else []:
        known.add(task.id)
        timing = progress.tasks.get(task.id)
        # task.md is the truth for the status, except that it only learns "running" at merge time.
        status = task.status.value
        if timing is not None and timing.status == "running" and status == "pending":
            status = "running"
        elapsed = _task_elapsed(timing, status, now)
        batches, calls = _batches(progress, task.id)
        table.add_row(
            task.id, task.title, str(task.round), ", ".join(task.depends) or "-", _status(status),
            batches, calls, elapsed,
        )  # fmt: skip
    for task_id, timing in progress.tasks.items():
        if task_id not in known:
            batches, calls = _batches(progress, task_id)
            table.add_row(
                task_id, "", "", "", _status(timing.status), batches, calls,
                _task_elapsed(timing, timing.status, now),
            )  # fmt: skip
    return table


def _batches(progress: RunProgress, task_id: str) -> tuple[str, str]:
    """A task's merged batches and its executor calls, "-" before its first call ends."""
    task = progress.batches.get(task_id)
    if task is None:
        return "-", "-"
    calls = task.calls or len({b.call for b in task.batches})
    return str(max((b.batch for b in task.batches), default=0)), str(calls)


def _task_elapsed(timing: TaskTiming | None, status: str, now: float) -> str:
    if timing is None or timing.started is None:
        return "-"
    end = timing.ended if timing.ended is not None and status != "running" else now
    return duration(end - timing.started)


def _status(status: str) -> Text:
    return Text(status, style=STATUS_STYLE.get(status, ""))
