"""The adaptive loop in scenarios: rounds, termination reason and agent calls, by code's rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from deepresearch.batch.measures import measure
from deepresearch.core.config import Config
from deepresearch.core.effort import PRESETS, saturation
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.saturation import next_k
from deepresearch.pipeline.taskledger import TaskProgress
from deepresearch.state.model import RunStatus, TaskDoc, TaskStatus
from deepresearch.state.store import StateStore
from tests.helpers import PageServer, write_scenario, write_workspace_config
from tests.inprocess import run_in_process


def gap_round(score: float) -> dict[str, Any]:
    return {"score": score, "knowledge_gaps": [f"gap after {score}"], "recommendation": "continue"}


def run(
    tmp_path: Path,
    env: dict[str, str],
    scenario: dict[str, Any],
    name: str = "ws",
    args: tuple[str, ...] = (),
    **config: Any,
) -> tuple[int, str, TaskDoc, list[dict[str, Any]]]:
    """One `deepresearch -p` run with the fake agent, in this process (tests/inprocess.py: the
    scenarios test the run's rules, not its process); (exit code, output, task.md, events)."""
    work = tmp_path / name
    work.mkdir(exist_ok=True)
    write_workspace_config(work, **config)
    path = write_scenario(tmp_path / f"{name}.yaml", scenario)
    proc = run_in_process(
        ["-p", "How do the indexes compare?", "-o", str(work), *args],
        {**env, "FAKE_AGENT_SCENARIO": str(path)},
        tmp_path,
    )
    log = work / "logs" / "events.jsonl"
    assert log.is_file(), proc.stdout + proc.stderr
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return proc.returncode, proc.stdout + proc.stderr, StateStore(Workspace(work)).load(), events


def calls(events: list[dict[str, Any]], role: str | None = None) -> int:
    return sum(1 for e in events if e["event"] == "agent_started" and (role is None or e["role"] == role))


def test_simple_question_stops_after_one_round_with_half_the_calls_of_fixed_depth(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    scenario = {
        "page_base": pages.base_url,
        "reflector": {"rounds": {1: {"score": 8.5, "knowledge_gaps": ["minor detail"]}}},
    }
    # The comparison is about research rounds: no analysis, figure or verifier stage on either side.
    stages = {"analysis": "never", "max_figures": 0, "verify_support": "never"}
    code, out, doc, events = run(tmp_path, clean_env, scenario, "adaptive", **stages)
    assert code == 0, out
    assert doc.front.round == 1 and doc.front.termination_reason == "quality threshold met (8.5 ≥ 7)"
    code, out, fixed, fixed_events = run(
        tmp_path, clean_env, scenario, "fixed", mode="fixed", max_rounds=2, **stages
    )
    assert code == 0, out
    assert fixed.front.round == 2 and fixed.front.termination_reason == "fixed depth of 2 rounds done"
    assert len([t for t in fixed.tasks if t.round == 2]) == 4  # fixed breadth
    assert calls(events) == 6 and calls(fixed_events) == 12
    assert calls(events) * 2 <= calls(fixed_events)


def test_complex_question_improves_until_the_threshold(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    rounds = {
        1: gap_round(4.0),
        2: gap_round(5.5),
        3: {**gap_round(7.2), "section_coverage": {"Core facts": "good"}},
    }
    code, out, doc, events = run(
        tmp_path, clean_env, {"page_base": pages.base_url, "reflector": {"rounds": rounds}}
    )
    assert code == 0, out
    assert [q.score for q in doc.quality] == [4.0, 5.5, 7.2]
    assert doc.front.termination_reason == "quality threshold met (7.2 ≥ 7)"
    assert calls(events, "reflector") == 3 and doc.front.status is RunStatus.COMPLETED
    assert [t.round for t in doc.tasks] == [1, 1, 2, 3]
    finished = [e for e in events if e["event"] == "round_finished"]
    # Each round: its executors, the verifier on their new facts, the reflector (round 1: plan too).
    assert [e["agent_calls"] for e in finished] == [6, 10, 14]
    assert calls(events, "verifier") == 4  # a call per round, one on the report
    assert finished[2]["section_coverage"] == {
        "Core facts": "good"
    }  # the reflector scores each outline section


def test_plateau_stops_on_diminishing_returns(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    rounds = {1: gap_round(5.0), 2: gap_round(5.2)}
    code, out, doc, _events = run(
        tmp_path, clean_env, {"page_base": pages.base_url, "reflector": {"rounds": rounds}}
    )
    assert code == 0, out
    assert doc.front.round == 2
    assert doc.front.termination_reason == "diminishing returns (score 5 → 5.2, gain 0.20 < 0.5)"
    assert "research completed: diminishing returns" in out


def test_ceiling_stops_at_max_rounds(tmp_path: Path, clean_env: dict[str, str], pages: PageServer) -> None:
    rounds = {1: gap_round(4.0), 2: gap_round(5.0), 3: gap_round(6.0)}
    code, out, doc, _ = run(
        tmp_path, clean_env, {"page_base": pages.base_url, "reflector": {"rounds": rounds}}, max_rounds=3
    )
    assert code == 0, out
    assert doc.front.termination_reason == "max rounds reached (3)" and len(doc.quality) == 3


FOUR_TASKS = {
    "dimensions": [{"id": "D1", "name": "Indexes", "description": "Index values"}],
    "outline": [{"section": "Indexes", "dimensions": ["D1"], "questions": "What values?"}],
    "tasks": [
        {"id": f"E{n}", "task": f"Index {n}", "dimensions": ["D1"], "priority": "high", "depends": []}
        for n in range(1, 5)
    ],
}


def test_unreadable_assessment_is_repaired_then_falls_back(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    scenario = {"page_base": pages.base_url, "reflector": {"garbage": True}}
    code, out, doc, events = run(tmp_path, clean_env, scenario)
    assert code == 0, out
    assert calls(events, "reflector") == 2
    assert [e["role"] for e in events if e["event"] == "output_repair"] == ["reflector"]
    assert doc.quality[0].score == 5.0 and [g.gap for g in doc.gaps] == ["assessment could not be read"]
    assert doc.front.termination_reason == "no new research tasks could be derived from the gaps"


def test_fenced_outputs_are_read_without_a_repair_and_counted(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    scenario = {"page_base": pages.base_url, "reflector": {"fenced": True}, "verifier": {"fenced": True}}
    code, out, doc, events = run(tmp_path, clean_env, scenario)
    assert code == 0, out
    lenient = [(e["role"], e["forms"]) for e in events if e["event"] == "output_lenient"]
    # The verifier judges the round's facts, then the report's cited sentences.
    fenced = ["fenced block"]
    assert lenient == [("verifier", fenced), ("reflector", fenced), ("verifier", fenced)], lenient
    assert "≈ reflector output read, though not written as asked: fenced block" in out
    assert [e for e in events if e["event"] == "output_repair"] == [] and calls(events, "reflector") == 1
    assert doc.quality[0].score is not None and doc.front.status is RunStatus.COMPLETED
    found = measure(Workspace(tmp_path / "ws"))
    assert (found.outputs_lenient, found.output_repairs) == (3, 0)


def test_conflict_prefers_the_heavier_source_and_a_c_task_settles_it(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    conflict = {"facts": ["Fact-001", "Fact-002"], "topic": "index level", "severity": "high",
                "suggested_wording": "The sources disagree."}  # fmt: skip
    scenario = {
        "page_base": pages.base_url,
        "executor": {"E2": {"source_type": "blog"}},
        "reflector": {
            "rounds": {1: {"score": 5, "knowledge_gaps": ["which level is right"], "conflicts": [conflict]}}
        },
    }
    code, out, doc, _events = run(tmp_path, clean_env, scenario, concurrency=1, breadth=1)
    assert code == 0, out
    (row,) = doc.conflicts
    assert row.preferred == "Fact-001"
    assert (
        row.resolution
        == "The sources disagree. — evidence weight: Fact-001 W=1.00, Fact-002 W=0.70; Fact-001 preferred, margin 0.30"
    )
    c_task = doc.task("C1")
    assert c_task is not None and c_task.round == 2 and c_task.status is TaskStatus.DONE
    assert c_task.title.startswith("Settle CONF-1: index level")
    assert any(f.task == "C1" for f in doc.facts)


def test_old_rule_one_call_per_batch_stops_a_task_that_finds_nothing_new_and_runs_a_finding_one_to_max(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    scenario = {"page_base": pages.base_url, "executor": {"E2": {"keeps_finding": True}}}
    settings = {"max_batches": 4, "min_batches": 2, "saturation_threshold": 1, "min_tier1_sources": 1}
    code, out, doc, events = run(tmp_path, clean_env, scenario, batch_calls="per_batch", **settings)
    assert code == 0, out
    started = [e["label"] for e in events if e["event"] == "agent_started" and e["role"] == "executor"]
    assert started.count("E1") == 2 and started.count("E2") == 4
    assert (
        "E1 done: saturated after 2 batches in 2 calls (1 in a row brought nothing new; dimensions covered; "
        "1 tier-1 source)" in out
    )
    assert "E2 done: max_batches (4) reached" in out
    assert (
        len([f for f in doc.facts if f.task == "E2"]) == 4
        and len([f for f in doc.facts if f.task == "E1"]) == 1
    )
    batch3 = (tmp_path / "ws" / "logs" / "prompts" / "E2.batch3.md").read_text()
    assert "Batches: from 3 to 3" in batch3 and "-k 5" in batch3
    assert "Found by this task in earlier batches" in batch3


def test_effort_presets_and_explicit_settings() -> None:
    assert saturation(Config()) == PRESETS["standard"]
    assert saturation(Config(effort="quick")).max_batches == 3
    assert saturation(Config(effort="deep", max_batches=4)).max_batches == 4
    sat = PRESETS["standard"]
    assert next_k(TaskProgress("E1"), sat) == 5
    assert next_k(TaskProgress("E1", batches=1, last_new=False), sat) == 10
