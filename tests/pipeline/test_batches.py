"""Top-K batches inside one executor call, in scenarios run through the real command and fake agent:
code checks each call's batch log, measures novelty, and decides whether the task needs another call."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import PageServer
from tests.pipeline.test_adaptive import run
from tests.search.search_mock_server import MockProviders

# One round, no analysis or figures: these tests are about the executor calls.
ONE_ROUND = {"analysis": "never", "max_figures": 0, "max_rounds": 1}


def plan(tasks: dict[str, list[str]]) -> dict[str, Any]:
    """A plan with dimensions D1 (Level) and D2 (Drivers) and the given tasks."""
    return {
        "dimensions": [
            {"id": "D1", "name": "Level", "description": "Index values"},
            {"id": "D2", "name": "Drivers", "description": "What moved them"},
        ],
        "outline": [{"section": "Indexes", "dimensions": ["D1", "D2"], "questions": "What and why?"}],
        "tasks": [
            {"id": tid, "task": f"Research {tid}", "dimensions": dims, "priority": "high", "depends": []}
            for tid, dims in tasks.items()
        ],
    }


def of(events: list[dict[str, Any]], kind: str, task: str | None = None) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == kind and (task is None or e.get("task_id") == task)]


def executor_calls(events: list[dict[str, Any]], task: str) -> int:
    return sum(1 for e in of(events, "agent_started", task) if e["role"] == "executor")


@pytest.fixture
def providers() -> Iterator[MockProviders]:
    mock = MockProviders().start()
    yield mock
    mock.stop()


def test_a_task_answered_in_its_first_call_ends_after_one_call(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    # The standard effort's rules (2-10 batches, 2 empty in a row, 3 tier-1 sources). Batch 1 reads
    # three official pages; batches 2 and 3 only restate what batch 1 found.
    scenario = {
        "page_base": pages.base_url,
        "planner": plan({"E1": ["D1"]}),
        "executor": {"E1": {"pages": 3, "restates": True}},
    }
    code, out, doc, events = run(tmp_path, clean_env, scenario, max_batches=None, **ONE_ROUND)
    assert code == 0, out
    assert executor_calls(events, "E1") == 1
    measured = [(e["batch"], e["trusted"], e["new"], e["claimed_new"]) for e in of(events, "batch_measured")]
    assert measured == [(1, True, True, True), (2, True, False, False), (3, True, False, False)]
    (decided,) = of(events, "task_decided", "E1")
    assert not decided["more"] and decided["reason"] == (
        "saturated after 3 batches in 1 call (2 in a row brought nothing new; dimensions covered; 3 tier-1 sources)"
    )
    # The restatement was merged as a fact (its quote is verified) but was not counted as new.
    restated = [f for f in doc.facts if f.statement.startswith("According to the bureau")]
    assert len(restated) == 1 and restated[0].verified.value == "yes"
    assert len([f for f in doc.facts if f.task == "E1"]) == 4


def test_saturation_claimed_while_a_dimension_is_uncovered_gets_a_second_call_naming_it(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    scenario = {
        "page_base": pages.base_url,
        "planner": plan({"E1": ["D1", "D2"]}),
        # Call 1 finds only D1 material and stops after a batch that brought nothing (its own
        # saturation); call 2 looks for D2 as its prompt says, and finds it in batch 3.
        "executor": {"E1": {"dimensions": ["D1"], "calls": {2: {"finds": 3, "dimensions": ["D2"]}}}},
    }
    settings = {"min_batches": 1, "saturation_threshold": 1, "min_tier1_sources": 1, "max_batches": 10}
    code, out, doc, events = run(tmp_path, clean_env, scenario, **settings, **ONE_ROUND)
    assert code == 0, out
    first, second = of(events, "task_decided", "E1")
    assert first["more"] and first["calls"] == 1 and first["batches"] == 2
    assert first["missing"] == ["no verified fact yet for dimension D2 (Drivers)"]
    prompt = (tmp_path / "ws" / "logs" / "prompts" / "E1.call2.md").read_text()
    assert "- no verified fact yet for dimension D2 (Drivers)" in prompt
    assert "Call: 2 of at most 2 for this task" in prompt and "Batches: from 3 to 10" in prompt
    assert not second["more"] and second["reason"].startswith("saturated after 4 batches in 2 calls")
    assert executor_calls(events, "E1") == 2
    assert {d for f in doc.facts for d in f.dimensions} == {"D1", "D2"}
    assert "↻ E1 needs another call: no verified fact yet for dimension D2 (Drivers)" in out


def test_a_batch_log_contradicted_by_the_search_log_is_not_trusted(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer, providers: MockProviders
) -> None:
    env = {**clean_env, **providers.env(("serper",))}
    scenario = {
        "page_base": pages.base_url,
        "planner": plan({"E1": ["D1"], "E2": ["D2"]}),
        "executor": {
            "E1": {"queries": 1, "claims_queries": 5},  # claims 5 queries per batch, searches 1
            "E2": {"queries": 2},  # honest
        },
    }
    settings = {"min_batches": 1, "saturation_threshold": 1, "min_tier1_sources": 1, "max_batches": 10}
    code, out, _doc, events = run(tmp_path, env, scenario, concurrency=1, **settings, **ONE_ROUND)
    assert code == 0, out
    liar = of(events, "batch_measured", "E1")
    assert [e["batch"] for e in liar] == [1, 2, 3] and not any(e["trusted"] for e in liar)
    assert liar[0]["queries"] == 1 and liar[0]["problems"] == [
        "batch 1 claims 5 queries; the search log shows 1 of them for this task and batch "
        "(not searched: 'e1 query 1.2', 'e1 query 1.3', 'e1 query 1.4' ...)"
    ]
    # An untrusted "nothing new" proves nothing: E1 is never saturated and uses both its calls.
    decided = of(events, "task_decided", "E1")
    assert [d["more"] for d in decided] == [True, False]
    assert decided[-1]["reason"].startswith(
        "max_calls_per_task (2) used; still missing: batch 3 claims 5 queries"
    )
    honest = of(events, "batch_measured", "E2")
    assert [(e["trusted"], e["queries"]) for e in honest] == [(True, 2), (True, 2)]
    assert executor_calls(events, "E2") == 1
    assert "batch log not trusted: batch 1 claims 5 queries" in out


def test_the_old_rule_runs_one_call_per_batch_on_the_same_research(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    scenario = {
        "page_base": pages.base_url,
        "planner": plan({"E1": ["D1"]}),
        "executor": {"E1": {"pages": 3, "restates": True}},
    }
    code, out, _doc, events = run(
        tmp_path, clean_env, scenario, batch_calls="per_batch", max_batches=None, **ONE_ROUND
    )
    assert code == 0, out
    assert executor_calls(events, "E1") == 3  # the same three batches, one call each
    assert [e["new"] for e in of(events, "batch_measured")] == [True, False, False]


def test_the_default_ceilings_stop_a_run_that_never_saturates_with_the_report_written(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    # Effort quick, no explicit limits: every batch of every executor finds something, and the
    # reflector wants another round every time (the score improves, never enough).
    rounds = {
        r: {"score": 2 + r, "knowledge_gaps": [f"more of everything {r}"], "recommendation": "continue"}
        for r in range(1, 6)
    }
    scenario = {
        "page_base": pages.base_url,
        "executor": {"default": {"keeps_finding": True}},
        "reflector": {"rounds": rounds},
    }
    code, out, doc, events = run(tmp_path, clean_env, scenario, args=("--effort", "quick"), max_batches=None)
    assert code == 0, out
    (ceilings,) = of(events, "ceilings_set")
    assert (ceilings["agent_calls"], ceilings["minutes"], ceilings["searches"]) == (20, 30, 100)
    assert (
        "this run will use at most 20 agent calls, 30 minutes, 100 searches (the quick effort's defaults"
        in out
    )
    reason = (
        "agent call budget spent (15 of 20, 5 kept for the report: synthesizer, its repair, analysis, "
        "figures, support check; the quick effort's default ceiling: set max_agent_calls to change it, 0 "
        "for no limit)"
    )
    assert doc.front.termination_reason == reason and f"research completed: {reason}" in out
    assert doc.front.status.value == "completed" and (tmp_path / "ws" / "report.md").is_file()
    started = of(events, "agent_started")
    # The report's share: analysis, figures, the synthesizer and the support check of its sentences.
    assert len(started) == 19
    assert [e["label"] for e in started[-4:]] == ["analyst", "charts", "synthesizer", "verifier-report"]
    assert all(d["reason"] == "max_batches (3) reached" for d in of(events, "task_decided"))


def test_a_call_that_times_out_keeps_the_batches_it_finished(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    # E1's first call hangs in batch 3 until its timeout; its second call goes on from there.
    executor = {"E1": {"finds": 3, "hang_at_batch": 3, "calls": {2: {"hang_at_batch": None}}}}
    scenario = {"page_base": pages.base_url, "planner": plan({"E1": ["D1"]}), "executor": executor}
    settings = {"min_batches": 1, "saturation_threshold": 1, "min_tier1_sources": 1, "max_batches": 10}
    roles = {"executor": {"timeout": 20}}
    code, out, doc, events = run(
        tmp_path, clean_env, scenario, retries=0, roles=roles, **settings, **ONE_ROUND
    )
    assert code == 0, out
    assert "E1: call 1 failed (custom did not finish within 20s); kept the 2 batches it finished" in out
    assert [(e["call"], e["batch"], e["new"]) for e in of(events, "batch_measured", "E1")] == [
        (1, 1, True), (1, 2, True), (2, 3, True), (2, 4, False),
    ]  # fmt: skip
    assert executor_calls(events, "E1") == 2 and len([f for f in doc.facts if f.task == "E1"]) == 3
