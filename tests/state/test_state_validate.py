"""Semantic checks: archives against their hashes, status changes by people, docs built in code."""

from __future__ import annotations

import pytest

from deepresearch.state import model as m
from deepresearch.state.parser import parse_task_md, parse_with_lines
from deepresearch.state.validate import check_transitions, find_cycles, validate_doc
from tests.state.test_state_malformed import BASE

S = m.TaskStatus


# (status before, status after, allowed)
TRANSITIONS = [
    (S.PENDING, S.RUNNING, True),
    (S.PENDING, S.SKIPPED, True),
    (S.PENDING, S.DONE, False),
    (S.RUNNING, S.PENDING, True),  # resume
    (S.RUNNING, S.DONE, True),
    (S.DONE, S.DONE, True),
    (S.DONE, S.PENDING, False),
    (S.DONE, S.SKIPPED, False),
    (S.FAILED, S.PENDING, True),  # retry
    (S.SKIPPED, S.PENDING, True),
    (S.SKIPPED, S.DONE, False),
]


@pytest.mark.parametrize(("before", "after", "allowed"), TRANSITIONS)
def test_status_transitions(before: m.TaskStatus, after: m.TaskStatus, allowed: bool) -> None:
    previous = parse_task_md(BASE)
    previous.tasks[1].status = before
    edited = parse_with_lines(BASE.replace("| E1 | pending | 1 |", f"| E1 | {after} | 1 |"))
    problems = check_transitions(previous, edited.doc, edited.lines)
    assert (problems == []) is allowed
    if not allowed:
        [problem] = problems
        assert problem.line == 44
        assert problem.detail.startswith(
            f"Research DAG row E2: Status cannot change from {before} to {after}"
        )


def test_removing_a_done_task_is_refused_but_a_pending_one_may_go() -> None:
    previous = parse_task_md(BASE)
    without_e2 = parse_task_md(BASE.replace("| E2 | Compare bills | D2 | medium | E1 | pending | 1 |\n", ""))
    assert check_transitions(previous, without_e2) == []
    previous.tasks[1].status = S.DONE
    [problem] = check_transitions(previous, without_e2)
    assert problem.detail == (
        "Research DAG: task E2 (done) was removed; keep its row and set its Status to skipped instead"
    )


def test_document_built_in_code_is_checked_without_lines() -> None:
    doc = parse_task_md(BASE)
    doc.tasks.append(m.Task("E3", "x", depends=["E3"]))
    doc.facts.append(m.Fact("Fact-002", "again", ["S01"], task="E1"))
    assert [str(p) for p in validate_doc(doc)] == [
        "task.md: Facts row Fact-002: duplicate ID Fact-002 (also on row 2)",
        "task.md: Research DAG: dependency cycle E3 → E3",
    ]


def test_find_cycles_names_each_cycle() -> None:
    graph = {"E1": ["E3"], "E2": ["E1"], "E3": ["E2"], "E4": ["E4"], "E5": ["E1", "E9"]}
    assert find_cycles(graph) == [["E1", "E3", "E2", "E1"], ["E4", "E4"]]
