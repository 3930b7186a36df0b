"""Scheduling queries: ready tasks, topological order, critical-path-first dispatch, resume."""

from __future__ import annotations

import pytest

from deepresearch.core.errors import StateError
from deepresearch.state import model as m
from deepresearch.state.schedule import (
    dispatch_order,
    ready_tasks,
    remaining_path_lengths,
    reset_running,
    topological_order,
)

S, P = m.TaskStatus, m.Priority


def _doc(*tasks: m.Task) -> m.TaskDoc:
    return m.TaskDoc(front=m.FrontMatter(id="r", question="q"), tasks=list(tasks))


def test_ready_means_pending_with_every_dependency_done_or_skipped() -> None:
    doc = _doc(
        m.Task("E1", "a", status=S.DONE),
        m.Task("E2", "b", status=S.SKIPPED),
        m.Task("E3", "c", depends=["E1", "E2"]),
        m.Task("E4", "d", depends=["E5"]),
        m.Task("E5", "e", status=S.FAILED),
        m.Task("E6", "f", status=S.RUNNING),
        m.Task("C1", "g", depends=["E6"]),
    )
    assert [t.id for t in ready_tasks(doc)] == ["E3"]


def test_dispatch_puts_priority_first_then_the_critical_path() -> None:
    doc = _doc(
        m.Task("E1", "short branch"),
        m.Task("E2", "start of a long chain"),
        m.Task("E3", "x", depends=["E2"]),
        m.Task("E4", "y", depends=["E3"]),
        m.Task("E5", "z", depends=["E1"]),
        m.Task("E6", "low priority, longest chain", priority=P.LOW),
        m.Task("E7", "w", depends=["E6"]),
        m.Task("E8", "w", depends=["E7"]),
        m.Task("E9", "w", depends=["E8"]),
        m.Task("C1", "urgent conflict", priority=P.HIGH),
        m.Task("E10", "lone"),
    )
    assert [t.id for t in dispatch_order(doc)] == ["C1", "E2", "E1", "E10", "E6"]
    assert remaining_path_lengths(doc)["E2"] == 3


def test_finished_dependents_do_not_lengthen_the_path() -> None:
    doc = _doc(
        m.Task("E1", "a"),
        m.Task("E2", "b", depends=["E1"], status=S.DONE),
        m.Task("E3", "c"),
        m.Task("E4", "d", depends=["E3"]),
    )
    assert [t.id for t in dispatch_order(doc)] == ["E3", "E1"]


def test_topological_order_respects_dependencies_and_document_order() -> None:
    doc = _doc(m.Task("E3", "c", depends=["E1", "E2"]), m.Task("E1", "a"), m.Task("E2", "b", depends=["E1"]))
    assert topological_order(doc) == ["E1", "E2", "E3"]


def test_cycles_are_refused() -> None:
    doc = _doc(m.Task("E1", "a", depends=["E2"]), m.Task("E2", "b", depends=["E1"]), m.Task("E3", "c"))
    with pytest.raises(StateError, match="dependency cycle E1 → E2 → E1"):
        topological_order(doc)


def test_reset_running_for_resume() -> None:
    doc = _doc(
        m.Task("E1", "a", status=S.RUNNING),
        m.Task("E2", "b", status=S.DONE),
        m.Task("E3", "c", status=S.RUNNING),
    )
    assert reset_running(doc) == ["E1", "E3"]
    assert [t.status for t in doc.tasks] == [S.PENDING, S.DONE, S.PENDING]
