"""Semantic checks of a `TaskDoc`: IDs, references, cycles, archives, and status changes by people.

Each check returns a list of `StateError` (empty when all is well), with line numbers when a
`LineMap` from the parser is given; `raise_problems` turns a list into one raised error. Indexes are
built once per call, so a check is linear in the size of the document.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from deepresearch.core.errors import StateError
from deepresearch.state.model import TaskDoc, TaskStatus
from deepresearch.state.schema import TABLE_BY_KEY, TABLES, LineMap

MAX_SHOWN = 20

_S = TaskStatus
# Status changes a person may make between phases (the orchestrator's own moves are a subset).
ALLOWED_TRANSITIONS: dict[TaskStatus, frozenset[TaskStatus]] = {
    _S.PENDING: frozenset({_S.PENDING, _S.RUNNING, _S.SKIPPED, _S.FAILED}),
    _S.RUNNING: frozenset({_S.RUNNING, _S.PENDING, _S.DONE, _S.FAILED, _S.SKIPPED}),  # → pending: resume
    _S.DONE: frozenset({_S.DONE}),  # finished work is never redone
    _S.FAILED: frozenset({_S.FAILED, _S.PENDING, _S.SKIPPED}),  # → pending: retry
    _S.SKIPPED: frozenset({_S.SKIPPED, _S.PENDING}),
}


class StateProblems(StateError):
    """Several problems at once: the first is the error's line, all are listed in the message."""

    def __init__(self, problems: list[StateError]) -> None:
        first = problems[0]
        rest = [str(problem) for problem in problems[1:MAX_SHOWN]]
        if len(problems) > MAX_SHOWN:
            rest.append(f"... and {len(problems) - MAX_SHOWN} more problems")
        super().__init__("\n".join([first.detail, *rest]), first.path, first.line, first.hint)
        self.problems = problems


def raise_problems(problems: list[StateError]) -> None:
    """Raise nothing for no problems, the problem itself for one, `StateProblems` for several."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise StateProblems(problems)


class _Report:
    """Collects problems, locating each through the line map when there is one."""

    def __init__(self, lines: LineMap | None) -> None:
        self.lines = lines
        self.path = lines.path if lines is not None else "task.md"
        self.items: list[StateError] = []

    def row_line(self, key: str, index: int) -> int | None:
        return self.lines.row(key, index) if self.lines is not None else None

    def row(self, key: str, index: int, row: Any, message: str) -> None:
        spec = TABLE_BY_KEY[key]
        label = spec.row_label(getattr(row, spec.label_field), index)
        self.items.append(StateError(f"{label}: {message}", self.path, self.row_line(key, index)))

    def section(self, key: str, message: str, line: int | None = None) -> None:
        if line is None and self.lines is not None:
            line = self.lines.section(key)
        self.items.append(StateError(message, self.path, line))

    def sorted(self) -> list[StateError]:
        return sorted(self.items, key=lambda problem: problem.line or 0)


def validate_doc(doc: TaskDoc, lines: LineMap | None = None) -> list[StateError]:
    """Duplicate IDs, unknown IDs in references, facts without sources, dependency cycles."""
    report = _Report(lines)
    for spec in TABLES:
        if spec.key != "outline":  # outline sections are titles, not IDs
            _check_duplicates(report, spec.key, spec.label_field, getattr(doc, spec.key))
    dimensions = {d.id for d in doc.dimensions}
    tasks = {t.id for t in doc.tasks}
    facts = {f.id for f in doc.facts}
    sources = {s.id for s in doc.sources}
    for i, section in enumerate(doc.outline):
        _check_refs(report, "outline", i, section, "Dimensions", section.dimensions, dimensions, "dimension")
    for i, task in enumerate(doc.tasks):
        _check_refs(report, "tasks", i, task, "Dimensions", task.dimensions, dimensions, "dimension")
        _check_refs(report, "tasks", i, task, "Depends", task.depends, tasks, "task")
    for i, fact in enumerate(doc.facts):
        if not fact.sources:
            report.row("facts", i, fact, "cites no source (Sources is empty)")
        _check_refs(report, "facts", i, fact, "Sources", fact.sources, sources, "source")
        _check_refs(report, "facts", i, fact, "Task", [fact.task] if fact.task else [], tasks, "task")
        _check_refs(report, "facts", i, fact, "Dimensions", fact.dimensions, dimensions, "dimension")
    for i, conflict in enumerate(doc.conflicts):
        _check_refs(report, "conflicts", i, conflict, "Facts", conflict.facts, facts, "fact")
        preferred = [conflict.preferred] if conflict.preferred else []
        _check_refs(report, "conflicts", i, conflict, "Preferred", preferred, facts, "fact")
    _check_cycles(report, doc)
    return report.sorted()


def _check_duplicates(report: _Report, key: str, field: str, rows: list[Any]) -> None:
    first: dict[Any, int] = {}
    for index, row in enumerate(rows):
        value = getattr(row, field)
        if value not in first:
            first[value] = index
            continue
        earlier = report.row_line(key, first[value])
        where = f"line {earlier}" if earlier is not None else f"row {first[value] + 1}"
        what = f"round {value} already has a row" if key == "quality" else f"duplicate ID {value}"
        report.row(key, index, row, f"{what} (also on {where})")


def _check_refs(
    report: _Report,
    key: str,
    index: int,
    row: Any,
    column: str,
    refs: Iterable[str],
    known: set[str],
    kind: str,
) -> None:
    for ref in refs:
        if ref not in known:
            report.row(key, index, row, f"{column} names {ref}, which no {kind} has")


def _check_cycles(report: _Report, doc: TaskDoc) -> None:
    position = {task.id: index for index, task in enumerate(doc.tasks)}
    for cycle in find_cycles({task.id: task.depends for task in doc.tasks}):
        line = report.row_line("tasks", position[cycle[0]])
        report.section("tasks", f"Research DAG: dependency cycle {' → '.join(cycle)}", line)


def find_cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Dependency cycles of `graph` (node → its dependencies), each as [a, b, ..., a]."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    cycles: list[list[str]] = []
    for root in graph:
        if root in state:
            continue
        path: list[str] = [root]
        stack = [iter(graph[root])]
        state[root] = 1
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
            elif child in graph and state.get(child) == 1:
                cycles.append([*path[path.index(child) :], child])
            elif child in graph and child not in state:
                state[child] = 1
                path.append(child)
                stack.append(iter(graph[child]))
    return cycles


def check_transitions(previous: TaskDoc, current: TaskDoc, lines: LineMap | None = None) -> list[StateError]:
    """Task status changes `ALLOWED_TRANSITIONS` forbids, and started tasks removed by an edit."""
    report = _Report(lines)
    now = {task.id: (index, task) for index, task in enumerate(current.tasks)}
    for old in previous.tasks:
        if old.id not in now:
            if old.status in (TaskStatus.DONE, TaskStatus.RUNNING):
                report.section(
                    "tasks",
                    f"Research DAG: task {old.id} ({old.status}) was removed;"
                    " keep its row and set its Status to skipped instead",
                )
            continue
        index, new = now[old.id]
        allowed = ALLOWED_TRANSITIONS[old.status]
        if new.status not in allowed:
            choices = ", ".join(sorted(status.value for status in allowed))
            report.row(
                "tasks",
                index,
                new,
                f"Status cannot change from {old.status} to {new.status} (from {old.status}: {choices})",
            )
    return report.sorted()
