"""Follow-up questions, rule by rule (in-process): the plan and findings contracts against a known
base, the merge of a newer archive, the request, starting a follow-up, the freshness cutoff, the
fold of events and the conflict check of a follow-up's report."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deepresearch.cli.request import read_request
from deepresearch.cli.session import RunOptions, open_follow_up
from deepresearch.contracts.execute import parse_executor
from deepresearch.contracts.plan import KnownPlan, parse_plan
from deepresearch.core.errors import ConfigError, UsageError
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.followup import begin_follow_up, renew_before
from deepresearch.pipeline.progress import fold
from deepresearch.report.check import check_report
from deepresearch.state import model as m
from deepresearch.state.merge import merge_task_result
from deepresearch.state.parser import parse_task_md
from deepresearch.state.questions import known_marks
from deepresearch.state.store import StateStore
from tests.state.test_state_malformed import BASE

KNOWN = KnownPlan({"D1": "Size", "D2": "Cost"}, frozenset({"E1", "E2"}))


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "out.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_follow_up_plan_may_add_nothing(tmp_path: Path) -> None:
    text = (
        "---\ncomplexity: simple\nlanguages: [{code: en, reason: the question's}]\ndimensions: []\n"
        "outline:\n  - {section: Size, dimensions: [D1]}\ntasks: []\n---\n"
    )
    plan, problems = parse_plan(write(tmp_path, text), 6, KNOWN)
    assert problems == [] and plan is not None and (plan.tasks, plan.dimensions) == ([], [])
    _, problems = parse_plan(write(tmp_path, text), 6)  # a first question needs tasks
    assert any(p.startswith("dimensions: expected a non-empty list") for p in problems)


def test_a_follow_up_plan_adds_only_new_ids_and_may_build_on_known_tasks(tmp_path: Path) -> None:
    text = """---
complexity: comparison
languages: [{code: en, reason: the question's}]
dimensions:
  - {id: D2, name: Cost again, description: x}
  - {id: D3, name: Spain, description: y}
outline:
  - {section: Spain against the rest, dimensions: [D1, D3]}
tasks:
  - {id: E1, task: Size again, dimensions: [D1], depends: []}
  - {id: E3, task: Spain, dimensions: [D3, D1], depends: [E2]}
---
"""
    plan, problems = parse_plan(write(tmp_path, text), 6, KNOWN)
    assert plan is None and problems == [
        "dimensions item 1: D2 is already a dimension (Cost); list only new dimensions, numbered from D3,"
        " and name known ones by their ID",
        "tasks item 1: E1 is a task of an earlier question; number new tasks from E3",
    ]
    fixed = text.replace("  - {id: D2, name: Cost again, description: x}\n", "").replace(
        "  - {id: E1, task: Size again, dimensions: [D1], depends: []}\n", ""
    )
    plan, problems = parse_plan(write(tmp_path, fixed), 6, KNOWN)
    assert problems == [] and plan is not None and plan.tasks[0].depends == ["E2"]


def test_findings_may_cite_a_known_source_by_its_id_alone(tmp_path: Path) -> None:
    known = {"S07": m.Source("S07", "Known page", "https://example.org/known")}
    text = """---
task: E3
sources:
  - {id: A, url: "https://example.org/new", title: New}
  - {id: S07}
facts:
  - {statement: New, sources: [A], quote: new, confidence: high}
  - {statement: Known, sources: [S07], quote: known, confidence: high}
---
"""
    output, problems = parse_executor(write(tmp_path, text), "E3", None, known)
    assert problems == [] and output is not None
    assert [(s.id, s.url) for s in output.sources] == [
        ("A", "https://example.org/new"),
        ("S07", "https://example.org/known"),
    ]
    unlisted = text.replace("  - {id: S07}\n", "")
    output, problems = parse_executor(write(tmp_path, unlisted), "E3", None, known)
    assert problems == [] and output is not None and output.sources[-1].id == "S07"
    _, problems = parse_executor(write(tmp_path, unlisted.replace("[S07]", "[S08]")), "E3", None, known)
    assert problems == ["facts item 2: cites S08, which is not in your sources list"]


def test_a_newer_archive_of_a_known_page_keeps_its_own_row(tmp_path: Path) -> None:
    doc = parse_task_md(BASE)
    old = doc.sources[0]
    old.sha256 = "a" * 64
    newer = dataclasses.replace(old, id="S05", sha256="b" * 64, archive="assets/web/S05.md", copy_of=old.id)
    fact = m.Fact("F1", "Now 3.1", ["S05"], quote="3.1")
    outcome = merge_task_result(doc, "E2", [newer], [fact])
    assert outcome.new_source_ids == ["S05"] and outcome.rejected == []
    assert [f.sources for f in doc.facts][-1] == ["S05"]
    # Citing the old archive by its ID and URL still means the old one.
    outcome = merge_task_result(
        doc, "E2", [dataclasses.replace(old)], [m.Fact("F2", "Was 2.9", [old.id], quote="x")]
    )
    assert outcome.rejected == [] and doc.facts[-1].sources == [old.id]
    # The same page under another ID, not a newer archive: folded into the page's newest row.
    twin = dataclasses.replace(old, id="S06", copy_of="")
    assert merge_task_result(doc, "E2", [twin], []).label_map == {"S06": "S05"}


def test_follow_up_in_the_front_matter_is_a_request_property(tmp_path: Path) -> None:
    path = tmp_path / "input.md"
    path.write_text("---\nfollow_up: true\nmax_rounds: 2\n---\nAnd in Spain?\n", encoding="utf-8")
    request = read_request(None, path)
    assert request is not None and request.follow_up and request.front_matter == {"max_rounds": 2}
    path.write_text("---\nmax_rounds: 2\nfollow_up: maybe\n---\nAnd in Spain?\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"input\.md:3: follow_up: expected true or false, got 'maybe'"):
        read_request(None, path)


def _finished(root: Path, status: m.RunStatus = m.RunStatus.COMPLETED) -> Workspace:
    workspace = Workspace(root)
    workspace.ensure()
    doc = parse_task_md(BASE)  # E1 done, E2 pending: research stopped before it
    doc.front.status = status
    StateStore(workspace).save(doc, "completed")
    (root / "report.md").write_text("# Report\n\nMedian COP was 2.9 [S01].\n", encoding="utf-8")
    (workspace.usage_ledger).write_text('{"role": "planner"}\n', encoding="utf-8")
    return workspace


def test_a_follow_up_starts_only_from_a_finished_run(tmp_path: Path) -> None:
    options = RunOptions(None, None, tmp_path)
    request = read_request("And in Spain?", None)
    with pytest.raises(UsageError, match="nothing to follow up in"):
        open_follow_up(Workspace(tmp_path / "empty"), request, options)
    workspace = _finished(tmp_path / "ws")
    with pytest.raises(UsageError, match="--follow-up needs the follow-up question"):
        open_follow_up(workspace, None, options)
    doc, resumed, pending = open_follow_up(workspace, request, options)
    assert (resumed, pending) == (False, "And in Spain?") and doc.front.status is m.RunStatus.COMPLETED
    unfinished = _finished(tmp_path / "ws2", m.RunStatus.RESEARCHING)
    with pytest.raises(UsageError, match=r"is not finished \(researching"):
        open_follow_up(unfinished, request, options)
    same = read_request("Do heat pumps work in the cold?", None)
    assert open_follow_up(unfinished, same, options)[1:] == (True, None)  # the follow-up under way: resume


def test_starting_a_follow_up_keeps_the_report_and_sets_the_ledgers_aside(tmp_path: Path) -> None:
    workspace = _finished(tmp_path / "ws")
    doc = StateStore(workspace).load()
    for name in ("prompts/planner.md", "E1.log", "E1_result.md", "orchestrator.log", "events.jsonl"):
        (workspace.logs / name).write_text(name, encoding="utf-8")
    marks = known_marks(doc)
    now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    doc = begin_follow_up(workspace, doc, "And in Spain?\nWith numbers.", now, [workspace.usage_ledger])
    [q1, q2] = doc.questions
    assert (
        q1.report == "reports/01-do-heat-pumps-work-in-the-cold.md" and (workspace.root / q1.report).is_file()
    )
    assert (q2.id, q2.question, q2.asked, q2.round, q2.known, q2.report) == (
        "Q2", "And in Spain?", "2026-12-01T09:00:00Z", 2, marks, "report.md",
    )  # fmt: skip
    assert doc.request == "And in Spain?\nWith numbers." and doc.front.status is m.RunStatus.PLANNING
    assert [t.status for t in doc.tasks] == [m.TaskStatus.DONE, m.TaskStatus.SKIPPED]
    assert not workspace.report_md.exists() and not workspace.usage_ledger.exists()
    assert (workspace.private / "questions" / "Q1" / "usage.jsonl").read_text() == '{"role": "planner"}\n'
    assert doc.outline == [] and [d.id for d in doc.dimensions] == ["D1", "D2"]
    kept_logs = workspace.logs / "Q1"
    assert sorted(p.relative_to(kept_logs).as_posix() for p in kept_logs.rglob("*.*")) == [
        "E1.log", "E1_result.md", "prompts/planner.md",
    ]  # fmt: skip
    assert (workspace.logs / "orchestrator.log").is_file() and (workspace.logs / "events.jsonl").is_file()
    assert workspace.prompts.is_dir() and not any(workspace.prompts.iterdir())


def test_the_freshness_cutoff() -> None:
    doc = parse_task_md(BASE)
    now = datetime(2026, 12, 31, tzinfo=UTC)
    assert renew_before(doc, 30, now) is None  # a first question: nothing is stale
    doc.questions.append(m.Question("Q2", "And?", "2026-12-30T12:00:00Z", 2))
    assert renew_before(doc, 0, now) == datetime(2026, 12, 30, 12, tzinfo=UTC)  # all that came before it
    assert renew_before(doc, 30, now) == now - timedelta(days=30)


def test_the_status_of_a_follow_up_counts_only_its_own_events() -> None:
    events = [
        {"event": "run_started", "question": "First?", "workdir": "/w", "ts": 1.0},
        {"event": "agent_finished", "role": "executor", "label": "E1", "ts": 2.0, "cost_usd": 0.5},
        {"event": "run_finished", "status": "completed", "ts": 3.0},
        {"event": "question_started", "question_id": "Q2", "question": "And?", "ts": 4.0},
        {"event": "run_started", "question": "And?", "workdir": "/w", "ts": 4.0},
        {"event": "agent_finished", "role": "planner", "label": "planner", "ts": 5.0},
    ]
    progress = fold(events)
    assert (progress.question, progress.agent_calls, progress.calls_by_role, progress.cost_usd) == (
        "And?", 1, {"planner": 1}, 0.0,
    )  # fmt: skip
    assert progress.finished is None and progress.started == 4.0 and progress.workdir == "/w"


def test_a_follow_up_report_answers_for_an_earlier_conflict_only_when_it_uses_it(tmp_path: Path) -> None:
    doc = parse_task_md(BASE)
    doc.sources.append(dataclasses.replace(doc.sources[0], id="S02", url="https://example.org/b"))
    doc.facts[1].sources = ["S02"]
    doc.conflicts.append(m.Conflict("CONF-1", "COP", ["Fact-001", "Fact-002"], m.Severity.HIGH))
    doc.questions.append(m.Question("Q2", "And?", "2026-12-30T12:00:00Z", 2, known_marks(doc)))

    def conflicts(report: str) -> list[str]:
        return [
            v.message[:29] for v in check_report(report, doc, tmp_path) if v.kind == "unaddressed_conflict"
        ]

    assert conflicts("# R\n\nSomething else entirely.\n") == []
    assert conflicts("# R\n\nMedian COP was 2.9 [S01].\n") == ["high-severity conflict CONF-1"]
    doc.questions.pop()  # in the question that found it, it is always answered for
    assert conflicts("# R\n\nSomething else entirely.\n") == ["high-severity conflict CONF-1"]
    assert json.dumps(known_marks(doc)) == '["D2", "S02", "Fact-002", "CONF-1"]'
