"""Agent output contracts: what is accepted, and the exact problems sent back for repair."""

from __future__ import annotations

from pathlib import Path

from deepresearch.contracts.execute import parse_executor
from deepresearch.contracts.plan import parse_plan
from deepresearch.contracts.reflect import parse_assessment
from deepresearch.contracts.supervise import parse_briefs

PLAN = """---
complexity: comparison
languages:
  - {code: en, reason: the language of the question}
dimensions:
  - {id: D1, name: Size, description: Market size}
outline:
  - {section: Size, dimensions: [D1], questions: "How big?"}
tasks:
  - {id: E1, task: Find the size, dimensions: [D1], priority: high, depends: []}
  - {id: E2, task: Find growth, dimensions: [D1], priority: low, depends: [E1]}
---
notes the agent added
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "out.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_plan_is_parsed(tmp_path: Path) -> None:
    plan, problems = parse_plan(write(tmp_path, PLAN), max_tasks=6)
    assert problems == []
    assert plan is not None and [t.id for t in plan.tasks] == ["E1", "E2"]
    assert plan.tasks[1].depends == ["E1"] and plan.tasks[1].priority.value == "low"


def test_plan_in_a_yaml_fence_is_accepted(tmp_path: Path) -> None:
    fenced = "Here is the plan:\n```yaml\n" + PLAN.split("---\n")[1] + "```\n"
    plan, problems = parse_plan(write(tmp_path, fenced), max_tasks=6)
    assert problems == [] and plan is not None


def test_plan_problems_are_specific(tmp_path: Path) -> None:
    bad = PLAN.replace("complexity: comparison", "complexity: huge").replace("depends: [E1]", "depends: [E9]")
    bad = bad.replace("dimensions: [D1], priority: high", "dimensions: [D7], priority: urgent")
    plan, problems = parse_plan(write(tmp_path, bad), max_tasks=1)
    assert plan is None
    assert problems == [
        "complexity: must be one of simple, comparison, analytical, got 'huge'",
        "tasks: at most 1 tasks are allowed, you listed 2; merge some",
        "task E1: dimension D7 is not one of the dimensions you listed",
        "task E1: priority must be high, medium or low, got 'urgent'",
        "task E2: depends on E9, which is not another task in the list",
    ]


def test_missing_and_unparseable_files(tmp_path: Path) -> None:
    assert parse_plan(tmp_path / "none.md", 6) == (None, ["the output file none.md was not written"])
    _plan, problems = parse_plan(write(tmp_path, "---\nkey: [unclosed\n---\n"), 6)
    assert problems[0].startswith("the YAML does not parse at line 2 of the file (`key: [unclosed`): ")


def test_briefs_must_cover_every_task(tmp_path: Path) -> None:
    text = (
        "---\nbriefs:\n  - task: E1\n    brief: Goal - find the market size from official statistics.\n---\n"
    )
    briefs, problems = parse_briefs(write(tmp_path, text), ["E1", "E2"])
    assert briefs is None and problems == ["no brief for E2: write one brief per task listed"]


def test_executor_facts_must_cite_listed_sources_with_quotes(tmp_path: Path) -> None:
    text = """---
task: E1
sources:
  - {id: S03, url: "https://stats.example.gov/x", title: X, type: official}
  - {id: B, url: "not a url"}
facts:
  - {statement: A is 5., sources: [S03], quote: "A is 5", confidence: high}
  - {statement: B is 6., sources: [Z], quote: ""}
---
"""
    out, problems = parse_executor(write(tmp_path, text), "E1")
    assert out is None
    assert problems == [
        "sources item 2: url must be an http(s) (or file://) URL, got 'not a url'",
        "facts item 2: quote is empty; copy a short verbatim excerpt of the source",
        "facts item 2: cites Z, which is not in your sources list",
    ]
    good = text.replace('  - {id: B, url: "not a url"}\n', "").split("  - {statement: B")[0] + "---\n"
    out, problems = parse_executor(write(tmp_path, good), "E1")
    assert problems == [] and out is not None
    assert out.facts[0].sources == ["S03"] and out.facts[0].task == "E1" and out.sources[0].type == "official"


def test_executor_batch_log_is_read_and_its_form_checked(tmp_path: Path) -> None:
    text = """---
task: E1
sources:
  - {id: S03, url: "https://stats.example.gov/x", title: X, type: official}
facts:
  - {id: F1, statement: A is 5., sources: [S03], quote: "A is 5", dimensions: [D2]}
  - {id: F2, statement: B is 6., sources: [S03], quote: "B is 6"}
batches:
  - {batch: 3, queries: [a index, "a  2024"], k: 5, sources: [S03], facts: [F1], new: true, reason: first}
  - {batch: 4, queries: [], k: 10, facts: [], new: false, reason: nothing}
---
"""
    out, problems = parse_executor(write(tmp_path, text), "E1", ["D1", "D2"])
    assert problems == [] and out is not None
    first, second = out.batches
    assert (first.number, first.queries, first.k, first.sources, first.facts, first.new) == (
        3, ["a index", "a  2024"], 5, ["S03"], ["F1"], True,
    )  # fmt: skip
    assert (second.number, second.new, second.reason) == (4, False, "nothing")
    assert [(f.id, f.dimensions) for f in out.facts] == [("F1", ["D2"]), ("F2", [])]
    bad = (
        text.replace("dimensions: [D2]", "dimensions: [D7]")
        .replace("facts: [F1], new: true", "facts: [F1, F9], new: yes-ish")
        .replace("batch: 4,", "batch: 3,")
        .replace("facts: [], new: false", "facts: [F1], new: false")
    )
    out, problems = parse_executor(write(tmp_path, bad), "E1", ["D1", "D2"])
    assert out is None and problems == [
        "facts item 1: dimensions D7 are not dimensions of the plan",
        "batches item 1: facts F1, F9 are not ids of your facts list",
        "batches item 1: new must be true or false (did this batch bring new relevant information?)",
        "batches item 2: facts F1 are not ids of your facts list",  # F1 was refused above
        "batches: numbers must increase, each once; found [3, 3]",
    ]
    twice = text.replace("facts: [], new: false", "facts: [F1], new: false")
    out, problems = parse_executor(write(tmp_path, twice), "E1", ["D1", "D2"])
    assert out is None and problems == ["batches: facts F1 are listed in more than one batch"]


def test_assessment_scores_and_conflicts(tmp_path: Path) -> None:
    text = """---
score: 6.5
completeness: 6
depth: 11
knowledge_gaps: [missing X]
conflicts:
  - {facts: [Fact-001, Fact-009], topic: size, severity: high}
coverage: {D1: good, D9: good}
section_coverage: {"Market size": partial, "Regulation": excellent}
---
"""
    assessment, problems = parse_assessment(write(tmp_path, text), {"Fact-001", "Fact-002"}, {"D1"})
    assert assessment is None
    assert problems == [
        "depth: must be between 1 and 10, got 11.0",
        "conflicts item 1: facts must list at least two existing fact IDs; unknown: Fact-009",
    ]
    fixed = text.replace("depth: 11", "depth: 7").replace("Fact-009", "Fact-002")
    assessment, problems = parse_assessment(write(tmp_path, fixed), {"Fact-001", "Fact-002"}, {"D1"})
    assert problems == [] and assessment is not None
    assert assessment.score == 6.5 and assessment.sub_scores == {"completeness": 6.0, "depth": 7.0}
    assert assessment.coverage == {"D1": "good"} and assessment.conflicts[0].severity.value == "high"
    assert assessment.section_coverage == {"Market size": "partial"}
