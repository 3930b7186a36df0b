"""task.md `## Questions`: optional on reading, always written; which question each ID came with."""

from __future__ import annotations

import dataclasses

import pytest

from deepresearch.core.errors import StateError
from deepresearch.state import model as m
from deepresearch.state.parser import parse_task_md
from deepresearch.state.questions import (
    asked_in,
    current_question,
    from_earlier,
    is_follow_up,
    known_marks,
    question_rounds,
    questions_of,
)
from deepresearch.state.writer import render_task_md
from tests.state.test_state_malformed import BASE

QUESTIONS = BASE[BASE.index("## Questions") : BASE.index("## Dimensions")]
OLDER = BASE.replace(QUESTIONS, "")  # written before the section existed


def test_a_task_md_without_questions_still_parses_and_gains_the_section() -> None:
    doc = parse_task_md(OLDER)
    assert doc.questions == []
    assert questions_of(doc) == [m.Question("Q1", doc.front.question, doc.front.created, 1, [], "report.md")]
    text = render_task_md(doc)
    assert "## Questions\n\n| ID | Question | Asked | Round | Known | Report |\n| --- |" in text
    assert parse_task_md(text) == doc


def test_questions_round_trip_and_are_checked() -> None:
    doc = parse_task_md(BASE)
    doc.questions.append(
        m.Question("Q2", "And in Spain?", "2026-11-03T08:00:00Z", 3, ["D2", "S02", "Fact-002"], "report.md")
    )
    doc.questions[0].report = "reports/01-do-heat-pumps-work-in-the-cold.md"
    assert parse_task_md(render_task_md(doc)) == doc
    twice = render_task_md(doc).replace("| Q2 | And in Spain?", "| Q1 | And in Spain?")
    with pytest.raises(StateError, match="Questions row Q1: duplicate ID Q1"):
        parse_task_md(twice)
    with pytest.raises(StateError, match="Questions row Q9: Round must be a whole number"):
        parse_task_md(
            render_task_md(doc).replace(
                "| Q2 | And in Spain? | 2026-11-03T08:00:00Z | 3 |", "| Q9 | x | - | three |"
            )
        )


def _doc_with_follow_up() -> m.TaskDoc:
    doc = parse_task_md(BASE)  # D1-D2, S01, Fact-001/002, no conflict: all the first question's
    doc.questions.append(
        m.Question("Q2", "And in Spain?", "2026-11-03T08:00:00Z", 2, known_marks(doc), "report.md")
    )
    doc.sources.append(dataclasses.replace(doc.sources[0], id="S02", url="https://example.org/spain"))
    doc.facts.append(m.Fact("Fact-003", "Spain", ["S02"], task="E2"))
    doc.conflicts.append(m.Conflict("CONF-1", "COP in the cold", ["Fact-002", "Fact-003"]))
    return doc


def test_known_marks_tell_which_question_each_id_came_with() -> None:
    doc = _doc_with_follow_up()
    assert doc.questions[1].known == ["D2", "S01", "Fact-002"]
    assert is_follow_up(doc) and current_question(doc).id == "Q2"
    assert [asked_in(doc, i) for i in ("D1", "S01", "S02", "Fact-002", "Fact-003", "CONF-1")] == [
        "Q1", "Q1", "Q2", "Q1", "Q2", "Q2",
    ]  # fmt: skip
    assert from_earlier(doc, "S01") and not from_earlier(doc, "S02") and not from_earlier(doc, "CONF-1")
    assert question_rounds(doc, 2) == 1 and question_rounds(doc, 3) == 2
    assert not is_follow_up(parse_task_md(BASE)) and question_rounds(parse_task_md(BASE), 2) == 2
