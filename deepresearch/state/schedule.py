"""Scheduling queries on the research DAG: what is ready, in which order to dispatch it, resume."""

from __future__ import annotations

import heapq

from deepresearch.core.errors import StateError
from deepresearch.state.model import Task, TaskDoc, TaskStatus, id_number
from deepresearch.state.validate import find_cycles

FINISHED = frozenset({TaskStatus.DONE, TaskStatus.SKIPPED})
_REMAINING = frozenset({TaskStatus.PENDING, TaskStatus.RUNNING})


def ready_tasks(doc: TaskDoc) -> list[Task]:
    """Pending tasks whose dependencies are all done or skipped, in document order."""
    status = {task.id: task.status for task in doc.tasks}
    return [
        task
        for task in doc.tasks
        if task.status == TaskStatus.PENDING and all(status.get(dep) in FINISHED for dep in task.depends)
    ]


def topological_order(doc: TaskDoc) -> list[str]:
    """Task IDs with every task after its dependencies (ties in document order); StateError on a cycle."""
    position = {task.id: index for index, task in enumerate(doc.tasks)}
    waiting = {task.id: sum(1 for dep in set(task.depends) if dep in position) for task in doc.tasks}
    dependents: dict[str, list[str]] = {task.id: [] for task in doc.tasks}
    for task in doc.tasks:
        for dep in set(task.depends):
            if dep in dependents:
                dependents[dep].append(task.id)
    heap = [(position[tid], tid) for tid, count in waiting.items() if count == 0]
    heapq.heapify(heap)
    order: list[str] = []
    while heap:
        _, tid = heapq.heappop(heap)
        order.append(tid)
        for child in dependents[tid]:
            waiting[child] -= 1
            if waiting[child] == 0:
                heapq.heappush(heap, (position[child], child))
    if len(order) < len(position):
        cycles = find_cycles({task.id: task.depends for task in doc.tasks})
        shown = " → ".join(cycles[0]) if cycles else "?"
        raise StateError(f"Research DAG: dependency cycle {shown}")
    return order


def remaining_path_lengths(doc: TaskDoc) -> dict[str, int]:
    """For each task, how many tasks the longest chain of unfinished work from it holds (itself too)."""
    dependents: dict[str, list[str]] = {task.id: [] for task in doc.tasks}
    for task in doc.tasks:
        for dep in set(task.depends):
            if dep in dependents:
                dependents[dep].append(task.id)
    status = {task.id: task.status for task in doc.tasks}
    length: dict[str, int] = {}
    for tid in reversed(topological_order(doc)):
        below = [length[child] for child in dependents[tid] if status[child] in _REMAINING]
        length[tid] = 1 + max(below, default=0)
    return length


def dispatch_order(doc: TaskDoc) -> list[Task]:
    """Ready tasks to start first: high priority, then the longest remaining path (critical path), then ID."""
    length = remaining_path_lengths(doc)
    return sorted(ready_tasks(doc), key=lambda t: (t.priority.rank, -length[t.id], id_number(t.id), t.id))


def reset_running(doc: TaskDoc) -> list[str]:
    """Put tasks left running by a dead process back to pending (for resume); return their IDs."""
    reset = [task for task in doc.tasks if task.status == TaskStatus.RUNNING]
    for task in reset:
        task.status = TaskStatus.PENDING
    return [task.id for task in reset]
