"""No agent call spent on a rule's mistake, in scenarios run through the real command and fake agent:

- a task citing sources another task archived is trusted and ends in one call;
- a conflict-resolution task answered in one batch ends after that batch, in one call;
- an executor that runs the self-check tool fixes its output inside its call: no repair call.
"""

from __future__ import annotations

import json
from pathlib import Path

from deepresearch.core.workspace import Workspace
from deepresearch.sources.registry import SourceRegistry
from tests.helpers import PageServer, page_value
from tests.pipeline.test_adaptive import run
from tests.pipeline.test_batches import ONE_ROUND, executor_calls, of, plan

ONE_CALL_RULES = {"min_batches": 1, "saturation_threshold": 1, "min_tier1_sources": 1, "max_batches": 10}


def test_a_task_citing_sources_another_task_archived_is_trusted_and_needs_one_call(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    tasks = plan({"E1": ["D1"], "E2": ["D1"]})
    tasks["tasks"][1]["depends"] = ["E1"]
    scenario = {
        "page_base": pages.base_url,
        "planner": tasks,
        # E2 also read E1's archived page (S01) and lists it in its batch log without archiving it.
        "executor": {"E2": {"lists_archived": ["S01"]}},
    }
    code, out, doc, events = run(tmp_path, clean_env, scenario, concurrency=1, **ONE_CALL_RULES, **ONE_ROUND)
    assert code == 0, out
    assert [s.id for s in doc.sources][:1] == ["S01"] and doc.sources[0].url.endswith("/E1.html")
    measured = of(events, "batch_measured", "E2")
    assert measured and all(e["trusted"] for e in measured), measured
    assert executor_calls(events, "E2") == 1
    (decided,) = of(events, "task_decided", "E2")
    assert decided["reason"].startswith("saturated after 2 batches in 1 call")
    uses = SourceRegistry(Workspace(tmp_path / "ws")).uses("E2")
    assert {(u.source_id, u.batch) for u in uses if u.source_id == "S01"} == {("S01", 1), ("S01", 2)}


def test_a_conflict_task_answered_in_one_batch_ends_after_one_call(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    conflict = {"facts": ["Fact-001", "Fact-002"], "topic": "index level", "severity": "high"}
    scenario = {
        "page_base": pages.base_url,
        "executor": {"E2": {"source_type": "blog"}},
        "reflector": {
            "rounds": {1: {"score": 5, "knowledge_gaps": ["which level is right"], "conflicts": [conflict]}}
        },
    }
    # The standard effort's Top-K rules (2-10 batches, 2 empty in a row, 3 tier-1 sources) would
    # need more batches and calls; the C-task ends on the verified fact that decides its conflict.
    settings = {"analysis": "never", "max_figures": 0, "max_batches": None}
    code, out, doc, events = run(tmp_path, clean_env, scenario, concurrency=1, breadth=1, **settings)
    assert code == 0, out
    assert executor_calls(events, "C1") == 1
    assert [e["batch"] for e in of(events, "batch_measured", "C1")] == [1]
    (decided,) = of(events, "task_decided", "C1")
    assert not decided["more"]
    assert (
        decided["reason"].startswith("CONF-1 settled by Fact-")
        and "after 1 batch in 1 call" in decided["reason"]
    )
    prompt = (Workspace(tmp_path / "ws").prompts / "C1.md").read_text(encoding="utf-8")
    assert "This task settles conflict CONF-1 (Fact-001, Fact-002 disagree on index level)" in prompt
    assert any(f.task == "C1" for f in doc.facts)


def test_an_executor_that_runs_the_self_check_fixes_its_number_in_the_call_without_a_repair_call(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    value = page_value("E1")
    # The first output states a number its quote lacks (a repair call, without the self-check).
    wrong = {
        "statement": f"The E1 index reached {value} points in 2025, up from 9.9 points in 2024.",
        "sources": ["A"],
        "quote": f"In 2025 the E1 index reached {value} points",
        "confidence": "high",
    }
    scenario = {
        "page_base": pages.base_url,
        "planner": plan({"E1": ["D1"]}),
        "executor": {"E1": {"facts_first": [wrong], "self_check": True}},
    }
    code, out, doc, events = run(tmp_path, clean_env, scenario, **ONE_CALL_RULES, **ONE_ROUND)
    assert code == 0, out
    assert executor_calls(events, "E1") == 1
    assert not [e for e in of(events, "output_repair") if e["role"] == "executor"]
    tools = [json.loads(line) for line in Workspace(tmp_path / "ws").tools_log.read_text().splitlines()]
    checks = [t for t in tools if t.get("op") == "check" and t.get("task") == "E1"]
    assert [c["problems"] for c in checks][:2] == [1, 0]
    log = Workspace(tmp_path / "ws").log_file("E1").read_text(encoding="utf-8")
    assert "ungrounded_number: facts item 1" in log and "states 9.9" in log
    assert "batch 1: new: verified fact for uncovered D1" in log
    (fact,) = [f for f in doc.facts if f.task == "E1"][:1]
    assert "9.9" not in fact.statement and fact.verified.value == "yes"


def test_an_executor_one_batch_short_of_saturation_runs_it_in_the_same_call(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    # Batch 2 finds a new page, but the executor judges it as bringing nothing new and would stop
    # there (its own saturation); code counts it as new. Told so by the self-check, it runs batch 3.
    spec = {"finds": [1, 2], "judges_old": [2], "restates": True}
    scenario = {"page_base": pages.base_url, "planner": plan({"E1": ["D1"]}), "executor": {"E1": spec}}
    code, out, _doc, events = run(tmp_path, clean_env, scenario, **ONE_CALL_RULES, **ONE_ROUND)
    assert code == 0, out
    assert executor_calls(events, "E1") == 2  # without the self-check: a call only to prove saturation
    scenario["executor"]["E1"]["self_check"] = True
    code, out, _doc, events = run(
        tmp_path, clean_env, scenario, name="checked", **ONE_CALL_RULES, **ONE_ROUND
    )
    assert code == 0, out
    assert executor_calls(events, "E1") == 1
    measured = [(e["batch"], e["new"], e["claimed_new"]) for e in of(events, "batch_measured", "E1")]
    assert measured == [(1, True, True), (2, True, False), (3, False, False)]
    log = Workspace(tmp_path / "checked").log_file("E1").read_text(encoding="utf-8")
    assert "task E1: NOT saturated by code's rules yet" in log and "run batch 3 now" in log


def test_a_synthesizer_that_runs_the_self_check_fixes_its_draft_without_a_repair_call(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    synthesizer = {"append_first": "Sales will triple by 2030 [S99].", "self_check": True}
    scenario = {"page_base": pages.base_url, "planner": plan({"E1": ["D1"]}), "synthesizer": synthesizer}
    code, out, _doc, events = run(tmp_path, clean_env, scenario, **ONE_ROUND)
    assert code == 0, out
    assert [e["role"] for e in events if e["event"] == "agent_started"].count("synthesizer") == 1
    assert not of(events, "output_repair")
    ws = Workspace(tmp_path / "ws")
    log = ws.log_file("synthesizer").read_text(encoding="utf-8")
    assert "unknown_source" in log and f"no problems in {ws.relative(ws.result_file('synthesizer'))}" in log
    assert "did not pass" not in (tmp_path / "ws" / "report.md").read_text(encoding="utf-8")
