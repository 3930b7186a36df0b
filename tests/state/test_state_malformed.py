"""Malformed task.md inputs, each with the exact line-numbered message the parser gives."""

from __future__ import annotations

import pytest

from deepresearch.core.errors import StateError
from deepresearch.state.parser import parse_task_md
from deepresearch.state.writer import render_task_md

BASE = """\
---
id: run-1
question: Do heat pumps work in the cold?
status: researching
round: 1
mode: adaptive
created: '2026-11-02T09:00:00Z'
updated: '2026-11-02T09:30:00Z'
termination_reason: ''
complexity: ''
languages: {}
agents: {}
settings: {}
---

## Request

Do heat pumps work in the cold?

## Questions

| ID | Question | Asked | Round | Known | Report |
| --- | --- | --- | --- | --- | --- |
| Q1 | Do heat pumps work in the cold? | 2026-11-02T09:00:00Z | 1 | - | report.md |

## Dimensions

| ID | Dimension | Description | Coverage |
| --- | --- | --- | --- |
| D1 | Performance | COP below -15 °C | partial |
| D2 | Cost | Yearly bills | none |

## Outline

| Section | Dimensions | Questions |
| --- | --- | --- |
| Findings | D1, D2 | What works? |

## Research DAG

| ID | Task | Dimensions | Priority | Depends | Status | Round |
| --- | --- | --- | --- | --- | --- | --- |
| E1 | Find field trials | D1 | high | - | done | 1 |
| E2 | Compare bills | D2 | medium | E1 | pending | 1 |

## Facts

| ID | Statement | Sources | Confidence | Quote | Verified | Support | Task | Dimensions | Support reason |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
| Fact-001 | Median COP was 2.9 | S01 | high | median COP was 2.9 | yes | supported | E1 | D1 | The quote gives 2.9. |
| Fact-002 | COP fell to 1.6 at -20 °C | S01 | medium | fell to 1.6 | unchecked | unchecked | E1 | - | - |

## Sources

| ID | Title | URL | Type | Published | Accessed | Authority | Archive | SHA-256 | Copy of | Flags | Language |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
| S01 | Trial | https://agency.example/t | official | 2024-09 | 2026-11-02 | 1 | assets/web/S01.md | - | - | - | - |

## Conflicts

| ID | Topic | Facts | Severity | Preferred | Resolution |
| --- | --- | --- | --- | --- | --- |

## Quality

| Round | Score | Completeness | Depth | Reliability | Actionability | Gaps | Decision |
| --- | --- | --- | --- | --- | --- | --- | --- |
| 1 | 6.5 | 7 | 6 | 7 | 6 | 1 | continue |

## Gaps

| ID | Gap | Round | Status |
| --- | --- | --- | --- |
| G1 | Bills in deep cold | 1 | open |

## Scratchpad

Note.
"""

E2_ROW = "| E2 | Compare bills | D2 | medium | E1 | pending | 1 |"
FACT2_ROW = "| Fact-002 | COP fell to 1.6 at -20 °C | S01 | medium | fell to 1.6 | unchecked | unchecked | E1 | - | - |"
FACTS_HEADER = "| ID | Statement | Sources | Confidence | Quote | Verified | Support | Task | Dimensions | Support reason |"
COLUMNS = (
    "ID | Statement | Sources | Confidence | Quote | Verified | Support | Task | Dimensions | Support reason"
)
HEADINGS = (
    "## Request, ## Questions, ## Dimensions, ## Outline, ## Research DAG, ## Facts, ## Sources, ## Conflicts,"
    " ## Quality, ## Gaps, ## Scratchpad"
)

# (name, text to replace, replacement, exact message)
CASES = [
    ("no front matter", "---\nid: run-1\n", "id: run-1\n",
     "task.md:1: expected YAML front matter: task.md must start with a line '---'"),
    ("front matter not closed", "settings: {}\n---\n", "settings: {}\n",
     "task.md:1: front matter is not closed: expected a line '---' after the YAML header"),
    ("missing question", "question: Do heat pumps work in the cold?\n", "",
     "task.md:1: front matter: missing required key 'question'"),
    ("bad run status", "status: researching", "status: researchin",
     "task.md:4: front matter: status 'researchin' is not one of planning, researching, reflecting,"
     " synthesizing, completed, failed"),
    ("bad round", "round: 1\n", "round: two\n",
     "task.md:5: front matter: round must be a whole number ≥ 0, got 'two'"),
    ("unknown front key", "complexity: ''", "complexty: ''",
     "task.md:10: front matter: unknown key 'complexty'; allowed keys: id, question, status, round, mode,"
     " created, updated, termination_reason, complexity, languages, agents, settings"),
    ("invalid YAML", "agents: {}", "agents: {planner: [claude}",
     "task.md:12: front matter is not valid YAML: expected ',' or ']', but got '}'"),
    ("text before sections", "---\n\n## Request", "---\n# My research\n\n## Request",
     f"task.md:15: text before the first section; allowed headings: {HEADINGS}"),
    ("unknown heading", "## Conflicts\n", "## Notes\n",
     f"task.md:59: unknown section heading '## Notes'; allowed headings: {HEADINGS}"),
    ("section twice", "## Scratchpad\n", "## Gaps\n",
     "task.md:76: section '## Gaps' appears twice (first on line 70)"),
    ("missing column", FACTS_HEADER + "\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
     "| ID | Statement | Sources | Confidence | Quote | Support | Task | Dimensions | Support reason |\n"
     "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
     f"task.md:48: Facts table: missing column(s) Verified; expected columns {COLUMNS}"),
    ("unknown column", FACTS_HEADER, FACTS_HEADER.replace("Quote", "Excerpt"),
     f"task.md:48: Facts table: unknown column 'Excerpt'; expected columns {COLUMNS}"),
    ("too many cells", FACT2_ROW, FACT2_ROW.replace("| fell to 1.6 |", "| fell to | 1.6 |"),
     f"task.md:51: Facts row Fact-002: 11 cells, expected 10 ({COLUMNS}); write a literal | as \\|"),
    ("bad priority", E2_ROW, E2_ROW.replace("medium", "urgent"),
     "task.md:44: Research DAG row E2: Priority 'urgent' is not one of high, medium, low"),
    ("bad task ID", E2_ROW, E2_ROW.replace("| E2 |", "| T2 |"),
     "task.md:44: Research DAG row T2: ID 'T2' is not a task ID (E<n> or C<n>)"),
    ("bad round cell", E2_ROW, E2_ROW.replace("pending | 1", "pending | first"),
     "task.md:44: Research DAG row E2: Round must be a whole number ≥ 0, got 'first'"),
    ("authority out of range", "| 1 | assets/web", "| 1.5 | assets/web",
     "task.md:57: Sources row S01: Authority must be a number from 0 to 1, got '1.5'"),
    ("empty statement", FACT2_ROW, FACT2_ROW.replace("COP fell to 1.6 at -20 °C", " "),
     "task.md:51: Facts row Fact-002: Statement is empty; it needs a value"),
    ("text outside table", FACT2_ROW + "\n", FACT2_ROW + "\n\nremember to check S02\n",
     "task.md:53: Facts: expected only a table with columns ID | Statement | Sources | Confidence | Quote |"
     " Verified | Support | Task | Dimensions | Support reason, found text 'remember to check S02' (notes belong"
     " in ## Scratchpad)"),
    ("blank line inside a table", FACT2_ROW, "\n" + FACT2_ROW,
     "task.md:52: Facts: a table row after a blank line; the rows of a table follow each other without"
     " blank lines"),
    ("no delimiter row", "| --- | --- | --- | --- |\n| G1", "| G1",
     "task.md:72: Gaps: not a table: expected the header row | ID | Gap | Round | Status |, then a delimiter"
     " row | --- | --- | --- | --- |"),
    ("unknown dependency", E2_ROW, E2_ROW.replace("| E1 |", "| E1, E99 |"),
     "task.md:44: Research DAG row E2: Depends names E99, which no task has"),
    ("dependency cycle", "| D1 | high | - | done |", "| D1 | high | E2 | done |",
     "task.md:43: Research DAG: dependency cycle E1 → E2 → E1"),
    ("unknown source", FACT2_ROW, FACT2_ROW.replace("| S01 |", "| S01, S09 |"),
     "task.md:51: Facts row Fact-002: Sources names S09, which no source has"),
    ("fact without source", FACT2_ROW, FACT2_ROW.replace("| S01 |", "| - |"),
     "task.md:51: Facts row Fact-002: cites no source (Sources is empty)"),
    ("fact of unknown task", FACT2_ROW, FACT2_ROW.replace("| E1 |", "| E7 |"),
     "task.md:51: Facts row Fact-002: Task names E7, which no task has"),
    ("duplicate ID", FACT2_ROW, FACT2_ROW.replace("Fact-002", "Fact-001"),
     "task.md:51: Facts row Fact-001: duplicate ID Fact-001 (also on line 50)"),
    ("unknown dimension", "| Findings | D1, D2 |", "| Findings | D1, D3 |",
     "task.md:37: Outline row 'Findings': Dimensions names D3, which no dimension has"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "old", "new", "message"), CASES, ids=[case[0] for case in CASES])
def test_malformed_input_names_line_and_expectation(name: str, old: str, new: str, message: str) -> None:
    assert BASE.count(old) == 1, f"case {name!r} must change exactly one place"
    with pytest.raises(StateError) as caught:
        parse_task_md(BASE.replace(old, new))
    assert str(caught.value) == message
    assert caught.value.line == int(message.split(":")[1])


def test_base_is_valid_and_canonical() -> None:
    assert render_task_md(parse_task_md(BASE)) == BASE


def test_missing_section_points_at_the_end() -> None:
    text = BASE.replace(
        "## Gaps\n\n| ID | Gap | Round | Status |\n| --- | --- | --- | --- |\n"
        "| G1 | Bills in deep cold | 1 | open |\n\n",
        "",
    )
    with pytest.raises(StateError) as caught:
        parse_task_md(text)
    assert str(caught.value) == f"task.md:72: missing section '## Gaps'; task.md needs all of: {HEADINGS}"


def test_several_problems_are_all_listed_first_line_first() -> None:
    text = BASE.replace(FACT2_ROW, FACT2_ROW.replace("| S01 |", "| S09 |")).replace(
        E2_ROW, E2_ROW.replace("| E1 |", "| E99 |")
    )
    with pytest.raises(StateError) as caught:
        parse_task_md(text, path="runs/x/task.md")
    assert str(caught.value) == (
        "runs/x/task.md:44: Research DAG row E2: Depends names E99, which no task has\n"
        "runs/x/task.md:51: Facts row Fact-002: Sources names S09, which no source has"
    )
    assert caught.value.line == 44
