"""The questions asked in one workspace (task.md `## Questions`): the first, then each follow-up.

A follow-up keeps the knowledge base (dimensions, facts, sources, conflicts) and adds to it. IDs are
global and never renumbered, so each question records the highest dimension, source, fact and
conflict IDs that task.md held when it was asked (`Question.known`): an ID numbered above its
family's mark came with that question or a later one. Pure functions over the model, no I/O.
"""

from __future__ import annotations

import re

from deepresearch.state.model import Question, TaskDoc, id_number

# The families a question's `known` marks: dimensions, sources, facts, conflicts.
KNOWN_FAMILIES = ("D", "S", "Fact-", "CONF-")
_FAMILY = re.compile(r"^([A-Za-z]+-?)[0-9]+$")
REPORT = "report.md"


def family(identifier: str) -> str:
    """The family prefix of an ID: `S` for S07, `Fact-` for Fact-012 ("" when it has none)."""
    match = _FAMILY.match(identifier)
    return match.group(1) if match else ""


def known_marks(doc: TaskDoc) -> list[str]:
    """The highest ID of each known family in `doc` (families with no entry are left out)."""
    ids = {
        "D": [d.id for d in doc.dimensions],
        "S": [s.id for s in doc.sources],
        "Fact-": [f.id for f in doc.facts],
        "CONF-": [c.id for c in doc.conflicts],
    }
    return [max(found, key=id_number) for name in KNOWN_FAMILIES if (found := ids[name])]


def _mark(question: Question, name: str) -> int:
    """The highest number of family `name` that was known when `question` was asked."""
    return max((id_number(i) for i in question.known if family(i) == name), default=0)


def first_question(doc: TaskDoc) -> Question:
    """The Questions row of the first question, for a task.md written before the section existed."""
    return Question("Q1", doc.front.question, doc.front.created, 1, [], REPORT)


def questions_of(doc: TaskDoc) -> list[Question]:
    """The workspace's questions, oldest first (one, from the front matter, when none are recorded)."""
    return list(doc.questions) or [first_question(doc)]


def current_question(doc: TaskDoc) -> Question:
    """The question being answered now: the last one."""
    return questions_of(doc)[-1]


def is_follow_up(doc: TaskDoc) -> bool:
    """Whether the current question follows earlier ones in this workspace."""
    return len(doc.questions) > 1


def asked_in(doc: TaskDoc, identifier: str) -> str:
    """The ID of the question with which a dimension, source, fact or conflict entered task.md."""
    name, number = family(identifier), id_number(identifier)
    found = questions_of(doc)[0].id
    for question in questions_of(doc):
        if _mark(question, name) < number:
            found = question.id
    return found


def from_earlier(doc: TaskDoc, identifier: str) -> bool:
    """Whether an ID was already known when the current question was asked."""
    name = family(identifier)
    return name in KNOWN_FAMILIES and id_number(identifier) <= _mark(current_question(doc), name)


def question_rounds(doc: TaskDoc, round_no: int) -> int:
    """`round_no` counted within the current question: its first research round is 1."""
    return round_no - current_question(doc).round + 1
