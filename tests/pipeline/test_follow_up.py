"""Follow-up questions on a living knowledge base, end to end with the fake agent and local pages.

One first question (alpha and beta, two tasks, two archived pages, four searches, two figures) is
researched once per module; each test asks its follow-up in a copy of that workspace:
- one that needs half of the first run's evidence (alpha) plus one new source (gamma);
- one whose facts are all known (plan → synthesize, no executor);
- one with a freshness window of 0 days that needs alpha's page again (archived anew, both kept).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from deepresearch.core.files import file_sha256
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.plan import question_tasks
from deepresearch.report.citations import cited_in_order
from deepresearch.sources.registry import SourceRegistry
from deepresearch.state.model import RunStatus, TaskDoc, TaskStatus
from deepresearch.state.store import StateStore
from tests.helpers import PageServer, page_value, write_scenario, write_workspace_config
from tests.search.search_mock_server import MockProviders
from tests.stages.runs import cli, stage_env, two_task_plan

FIRST = "How did the alpha and beta indexes develop?"


@dataclass
class FirstRun:
    work: Path
    env: dict[str, str]
    pages: PageServer
    providers: MockProviders
    alpha: str  # the source ID of alpha's page (E1's), which the follow-ups reuse
    beta: str


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FirstRun]:
    home = tmp_path_factory.mktemp("follow-up")
    providers = MockProviders().start()
    with PageServer() as pages:
        work = home / "first"
        work.mkdir()
        write_workspace_config(work)
        env = {**stage_env(home), **providers.env(("serper",))}
        scenario = {
            "planner": two_task_plan("comparison"),
            "executor": {"default": {"queries": 2}},
            "page_base": pages.base_url,
        }
        env["FAKE_AGENT_SCENARIO"] = str(write_scenario(home / "first.yaml", scenario))
        proc = cli(["-p", FIRST, "-o", str(work)], env, home)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        doc = load(work)
        ids = {s.url.rsplit("/", 1)[-1]: s.id for s in doc.sources}
        yield FirstRun(work, env, pages, providers, ids["E1.html"], ids["E2.html"])
    providers.stop()


def load(work: Path) -> TaskDoc:
    return StateStore(Workspace(work)).load()


def follow_up(
    first: FirstRun, tmp_path: Path, question: str, scenario: dict[str, Any], *flags: str
) -> tuple[Path, str, list[dict[str, Any]]]:
    """Ask `question` as a follow-up in a copy of the first run's workspace: (workspace, output,
    the agent calls it made)."""
    work = tmp_path / "ws"
    shutil.copytree(first.work, work)
    calls = tmp_path / "calls.jsonl"
    scenario = {"page_base": first.pages.base_url, "calls_log": str(calls), **scenario}
    env = {
        **first.env,
        "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "follow-up.yaml", scenario)),
        "DEEPRESEARCH_MAX_FIGURES": "0",
    }
    proc = cli(["-p", question, "-o", str(work), "--follow-up", *flags], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return work, proc.stdout, [json.loads(line) for line in calls.read_text().splitlines()]


def report_cites(work: Path) -> set[str]:
    text = (work / "report.md").read_text(encoding="utf-8").split("\n## References", 1)[0]
    return set(cited_in_order(text))


def searches(folder: Path) -> int:
    return int(json.loads((folder / "searches.json").read_text())["used"])


def test_a_follow_up_researches_only_what_is_new_and_reuses_the_rest(first: FirstRun, tmp_path: Path) -> None:
    hits_before = first.providers.total_hits()
    plan = {
        "complexity": "comparison",
        "dimensions": [{"id": "D3", "name": "Gamma", "description": "The gamma index"}],
        "outline": [{"section": "Gamma against alpha", "dimensions": ["D1", "D3"], "questions": "How do they compare?"}],
        "tasks": [{"id": "E3", "task": "Research the gamma index against alpha", "dimensions": ["D3", "D1"],
                   "priority": "high", "depends": []}],
    }  # fmt: skip
    known = {  # cites alpha's source by its ID alone, without listing or archiving it
        "statement": "The alpha bulletin is published every year.",
        "sources": [first.alpha],
        "quote": "The statistics bureau publishes this bulletin every year",
        "confidence": "high",
    }
    executor = {"E3": {"queries": 2, "local": "E1 index", "known_facts": [known]}}
    scenario = {"planner": plan, "executor": executor, "synthesizer": {"outline_only": True}}
    work, out, calls = follow_up(first, tmp_path, "And how does gamma compare with alpha?", scenario)
    doc, workspace = load(work), Workspace(work)

    # The plan holds only the new task; the first question's tasks stay as they were.
    assert [t.id for t in question_tasks(doc)] == ["E3"]
    assert [(t.id, t.status) for t in doc.tasks] == [
        ("E1", TaskStatus.DONE),
        ("E2", TaskStatus.DONE),
        ("E3", TaskStatus.DONE),
    ]
    assert [c["task"] for c in calls if c["role"] == "executor"] == ["E3"]
    assert [d.id for d in doc.dimensions] == ["D1", "D2", "D3"]

    # No known source is archived again: one new archive (gamma's page), alpha cited by its ID.
    archived = SourceRegistry(workspace).archived()
    assert sorted(r.url.rsplit("/", 1)[-1] for r in archived) == ["E1.html", "E2.html", "E3.html"]
    gamma = next(r.id for r in archived if r.url.endswith("/E3.html"))
    new_facts = [f for f in doc.facts if f.task == "E3"]
    assert {s for f in new_facts for s in f.sources} == {first.alpha, gamma}
    assert all(f.verified.value == "yes" for f in new_facts), new_facts

    # Searches and archives spent on the follow-up are the new task's: 2 searches, 1 archive.
    spent = workspace.private / "questions" / "Q1"
    assert searches(spent) == 4 and searches(workspace.private) == 2
    assert first.providers.total_hits() - hits_before == 2
    assert (
        "this question (Q2): " in out
        and ", 2 searches, 1 new archive; reused from earlier questions: 1 source" in out
    )

    # Known facts are cited in the new report, beside the new source; the unrelated beta is not.
    cited = report_cites(work)
    assert {first.alpha, gamma} <= cited and first.beta not in cited
    report = (work / "report.md").read_text(encoding="utf-8")
    assert f"**[{first.alpha}]**" in report and "· reused from Q1" in report and "· new in Q2" in report
    assert "| Sources reused from earlier questions | 1 of 2 (50%) |" in report

    # The first report is kept, with the task.md it was written from, and still passes check.
    [q1, q2] = doc.questions
    assert (q1.id, q2.id, q2.report, q2.round) == ("Q1", "Q2", "report.md", 2)
    assert q1.report == "reports/01-how-did-the-alpha-and-beta-indexes-develop.md"
    kept = work / q1.report
    assert f"]({kept.stem}.figures/figure-1.png)" in kept.read_text(encoding="utf-8")
    assert "](../assets/web/" in kept.read_text(encoding="utf-8")
    assert (work / "reports" / f"{kept.stem}.figures" / "figure-1.png").is_file()
    assert "question: How did the alpha and beta" in (work / "reports" / f"{kept.stem}.task.md").read_text()
    check = cli(["check", str(kept)], first.env, tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert cli(["check", str(work)], first.env, tmp_path).returncode == 0

    # The knowledge graph grew: both questions, each node tied to the question it came with.
    knowledge = json.loads((work / "knowledge.json").read_text())
    assert [q["id"] for q in knowledge["questions"]] == ["Q1", "Q2"]
    edges = {(e["from"], e["to"]) for e in knowledge["edges"] if e["type"] == "found_for"}
    assert {(first.alpha, "Q1"), (gamma, "Q2"), ("D3", "Q2"), ("D1", "Q1")} <= edges

    # The executor was told what is known, and to look there first.
    prompt = (work / "logs" / "prompts" / "E3.md").read_text(encoding="utf-8")
    assert f"- {first.alpha}: E1 statistics bulletin" in prompt and '--local "query"' in prompt

    status = cli(["status", str(work)], first.env, tmp_path)
    assert status.returncode == 0, status.stderr
    assert "Q1 " in status.stdout and f"→ {q1.report}" in status.stdout and "Q2 " in status.stdout
    assert "latest report (report.md): facts verified" in status.stdout
    assert "this question (Q2):" in status.stdout


def test_a_follow_up_whose_facts_are_all_known_makes_no_executor_call(
    first: FirstRun, tmp_path: Path
) -> None:
    plan = {
        "complexity": "simple",
        "dimensions": [],
        "outline": [
            {"section": "The alpha index", "dimensions": ["D1"], "questions": "What did alpha reach?"}
        ],
        "tasks": [],
    }
    scenario = {"planner": plan, "synthesizer": {"outline_only": True}}
    work, out, calls = follow_up(first, tmp_path, "What did the alpha index reach?", scenario)
    doc = load(work)
    roles = [c["role"] for c in calls]
    assert roles[0] == "planner" and "synthesizer" in roles
    assert not {"supervisor", "executor", "reflector"} & set(roles)
    assert doc.front.status is RunStatus.COMPLETED
    assert doc.front.termination_reason == "everything the follow-up needs is known: no new research"
    assert question_tasks(doc) == [] and len(doc.facts) == 2
    assert first.alpha in report_cites(work)
    assert "0 searches, 0 new archives" in out
    assert not (Workspace(work).private / "searches.json").exists()  # not one search


def test_a_stale_source_is_archived_again_and_both_archives_are_kept(first: FirstRun, tmp_path: Path) -> None:
    alpha_page = f"{first.pages.base_url}/E1.html"
    value = page_value("E1")
    plan = {
        "complexity": "simple",
        "dimensions": [],
        "outline": [{"section": "Alpha now", "dimensions": ["D1"], "questions": "What is alpha now?"}],
        "tasks": [{"id": "E3", "task": "The current alpha index", "dimensions": ["D1"], "priority": "high",
                   "depends": []}],
    }  # fmt: skip
    current = {
        "sources": [{"id": "A", "url": alpha_page, "title": "E1 bulletin", "type": "official", "archive": True}],
        "facts": [{"statement": f"The E1 index reached {value} points in 2025.", "sources": ["A"],
                   "quote": f"In 2025 the E1 index reached {value} points", "confidence": "high"}],
    }  # fmt: skip
    scenario = {"planner": plan, "executor": {"E3": current}}
    work, out, _calls = follow_up(
        first, tmp_path, "What is the alpha index now?", scenario, "--freshness-days", "0"
    )
    doc = load(work)
    [old, new] = [s for s in doc.sources if s.url == alpha_page]
    assert old.id == first.alpha and new.id != old.id and new.copy_of == old.id
    for source in (old, new):  # both archives kept, each with its own hash
        assert file_sha256(work / source.archive) == source.sha256
    assert old.sha256 != new.sha256 and old.archive != new.archive
    record = SourceRegistry(Workspace(work)).get(new.id)
    assert record is not None and record.renews == old.id
    # Facts keep the archive they were quoted from.
    assert [f.sources for f in doc.facts if f.task == "E1"] == [[old.id]]
    assert [f.sources for f in doc.facts if f.task == "E3"] == [[new.id]]
    assert f"{old.id} was archived again as {new.id}" in out
    assert "1 new archive" in out
    assert f"new in Q2 (newer archive of {old.id})" in (work / "report.md").read_text(encoding="utf-8")
