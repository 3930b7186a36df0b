"""Output files as small local models write them: read when the content is unambiguous (and the
form recorded, so a run counts it), rejected otherwise with the line of the file where parsing
stopped."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.contracts.plan import parse_plan
from deepresearch.contracts.verify import parse_verdicts
from deepresearch.contracts.yamlfile import Lenient, read_output, read_text

PLAN = """complexity: simple
languages:
  - {code: en, reason: the language of the question}
dimensions:
  - {id: D1, name: Size, description: Market size}
tasks:
  - {id: E1, task: Find the size, dimensions: [D1], priority: high, depends: []}"""
PLAN_JSON = (
    '{"complexity": "simple", "languages": [{"code": "en", "reason": "the language of the question"}],'
    ' "dimensions": [{"id": "D1", "name": "Size", "description": "Market size"}],'
    ' "tasks": [{"id": "E1", "task": "Find the size", "dimensions": ["D1"], "priority": "high", "depends": []}]}'
)
EXPLANATION = "I chose one dimension because the question asks about the size only."

READ = [
    ("as asked", f"---\n{PLAN}\n---\nnotes\n", [], "notes"),
    ("yaml fence, text around it", f"Here is the plan:\n\n```yaml\n{PLAN}\n```\n\n{EXPLANATION}\n",
     [Lenient.FENCED], f"Here is the plan:\n\n\n\n{EXPLANATION}"),
    ("bare fence with the --- lines inside", f"```\n---\n{PLAN}\n---\n```\n", [Lenient.FENCED], ""),
    ("two identical fences", f"```yaml\n{PLAN}\n```\nAgain:\n```yaml\n{PLAN}\n```\n", [Lenient.FENCED], None),
    ("text before the front matter", f"Sure! Here is the file.\n\n---\n{PLAN}\n---\n", [Lenient.TEXT_BEFORE], ""),
    ("text before bare yaml", f"Here is my plan:\n\n{PLAN}\n", [Lenient.TEXT_BEFORE, Lenient.NO_RULES], ""),
    ("json instead of yaml", PLAN_JSON + "\n", [Lenient.JSON], ""),
    ("json after text", f"The plan, as JSON:\n{PLAN_JSON}\nDone.\n", [Lenient.TEXT_BEFORE, Lenient.JSON], "Done."),
    ("json fence", f"```json\n{PLAN_JSON}\n```\n", [Lenient.FENCED, Lenient.JSON], ""),
    ("trailing explanation", f"{PLAN}\n\n{EXPLANATION}\nIt is enough.\n", [Lenient.NO_RULES, Lenient.TEXT_AFTER],
     f"{EXPLANATION}\nIt is enough."),
    ("unclosed front matter and an explanation", f"---\n{PLAN}\n\n{EXPLANATION}\n",
     [Lenient.UNCLOSED, Lenient.TEXT_AFTER], EXPLANATION),
    ("no --- lines at all", f"{PLAN}\n", [Lenient.NO_RULES], ""),
]  # fmt: skip


@pytest.mark.parametrize(("text", "forms", "notes"), [pytest.param(*case[1:], id=case[0]) for case in READ])
def test_unambiguous_outputs_are_read_and_the_form_recorded(
    tmp_path: Path, text: str, forms: list[Lenient], notes: str | None
) -> None:
    found = read_text(text)
    assert found.problems == [] and found.lenient == forms
    assert found.data is not None and found.data["complexity"] == "simple"
    assert found.data["tasks"][0]["id"] == "E1"
    if notes is not None:
        assert found.notes == notes
    # ... and the role's contract accepts it.
    path = tmp_path / "planner_result.md"
    path.write_text(text, encoding="utf-8")
    plan, problems = parse_plan(path, max_tasks=6)
    assert problems == [] and plan is not None and [t.id for t in plan.tasks] == ["E1"]


REJECTED = [
    ("a broken line in front matter",
     "---\ncomplexity: simple\ntasks:\n  - id: E1 task: Find the size\n---\n",
     "the YAML does not parse at line 4 of the file (`- id: E1 task: Find the size`): "
     "mapping values are not allowed here — a ': ' inside a plain value: put the value in quotes"),
    ("garbage", "this is not: [valid yaml\n  - at all",
     "the YAML does not parse at line 2 of the file (`- at all`): expected ',' or ']', but got '<stream end>'"
     " (while parsing a flow sequence) — a [ ... ] list that is not closed"),
    ("two different fences", f"```yaml\n{PLAN}\n```\nOr:\n```yaml\ncomplexity: analytical\n```\n",
     "the file has 2 different fenced blocks (at lines 1, 11); write YAML front matter: a mapping between two "
     "'---' lines, once"),
    ("a list, not a mapping", "---\n- complexity: simple\n- tasks: []\n---\n",
     "the YAML starting at line 2 is a list, not a mapping; write YAML front matter: a mapping between two "
     "'---' lines"),
    ("only a sentence", "I could not finish the plan because the question is unclear.\n",
     "the YAML starting at line 1 is plain text, not a mapping; write YAML front matter: a mapping between two "
     "'---' lines"),
    ("a broken json fence", '```json\n{"complexity": "simple",}\n```\n',
     "the JSON does not parse at line 2 of the file: Expecting property name enclosed in double quotes; write "
     "YAML front matter: a mapping between two '---' lines"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "problem"), [pytest.param(*case[1:], id=case[0]) for case in REJECTED])
def test_ambiguous_or_broken_outputs_are_rejected_with_the_line(text: str, problem: str) -> None:
    found = read_text(text)
    assert found.data is None and found.problems == [problem]


def test_a_repair_prompt_problem_names_the_line_and_shows_it(tmp_path: Path) -> None:
    path = tmp_path / "verifier_result.md"
    path.write_text("---\nverdicts:\n  - id: F1\n    support: supported\n   reason: odd indent\n---\n")
    verdicts, problems = parse_verdicts(path, ["F1"])
    assert verdicts is None
    assert problems == [
        "the YAML does not parse at line 5 of the file (`reason: odd indent`): expected <block end>, but found "
        "'<block mapping start>' (while parsing a block collection) — this line's indentation does not match the "
        "lines above it"
    ]


def test_missing_and_empty_files(tmp_path: Path) -> None:
    assert read_output(tmp_path / "none.md").problems == ["the output file none.md was not written"]
    (tmp_path / "empty.md").write_text("\n \n")
    assert read_output(tmp_path / "empty.md").problems == ["the output file empty.md is empty"]
