"""Every run that reaches research ends with a report inside its ceiling (fake agent, real runs).

- research that would use every call still leaves the report its share: analysis, figures, the
  support check of its sentences;
- parallel executors cannot start more calls than research may use;
- a repair the ceiling refuses still leaves report.md, with a notice and its failed checks (exit 9),
  and the run resumable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepresearch.core.errors import ExitCode
from deepresearch.state.model import RunStatus, TaskStatus
from tests.helpers import PageServer, write_workspace_config
from tests.pipeline.test_adaptive import calls, run
from tests.pipeline.test_end_to_end import run_cli

NO_STAGES = {"analysis": "never", "max_figures": 0}


def tasks(count: int) -> dict[str, Any]:
    """A plan of `count` independent tasks on one dimension."""
    return {
        "dimensions": [{"id": "D1", "name": "Indexes", "description": "Index values"}],
        "outline": [{"section": "Indexes", "dimensions": ["D1"], "questions": "What values?"}],
        "tasks": [
            {"id": f"E{n}", "task": f"Index {n}", "dimensions": ["D1"], "priority": "high", "depends": []}
            for n in range(1, count + 1)
        ],
    }


def test_research_that_would_use_every_call_leaves_the_report_its_checks_analysis_and_figures(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    # Every batch finds something and the reflector always wants another round.
    rounds = {
        r: {"score": 3 + r / 10, "knowledge_gaps": [f"more {r}"], "recommendation": "continue"}
        for r in range(1, 9)
    }
    scenario = {
        "page_base": pages.base_url,
        "planner": tasks(2),
        "executor": {"default": {"keeps_finding": True}},
        "reflector": {"rounds": rounds},
    }
    code, out, doc, events = run(
        tmp_path, clean_env, scenario, max_agent_calls=14, analysis="always", min_improvement=0, max_rounds=8
    )
    assert code == 0, out
    started = [e for e in events if e["event"] == "agent_started"]
    assert len(started) <= 14
    (split,) = [e for e in events if e["event"] == "ceilings_set"]
    assert (split["research_calls"], split["report_calls"]) == (9, 5)
    assert "at most 14 agent calls, " in out and "; kept for the report: 5 calls (analysis, figures, " in out
    assert "; research gets 9 calls" in out
    assert doc.front.termination_reason.startswith("agent call budget spent (9 of 14, 5 kept for the report")
    assert calls(events, "analyst") >= 1 and calls(events, "charts") >= 1
    labels = [e["label"] for e in started]
    assert "verifier-report" in labels
    report = (tmp_path / "ws" / "report.md").read_text(encoding="utf-8")
    (claims,) = [line for line in report.splitlines() if line.startswith("| Claims supported |")]
    assert "not checked" not in claims and " of " in claims, claims
    assert doc.front.status is RunStatus.COMPLETED


def test_parallel_executors_never_start_more_calls_than_the_ceiling_allows(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    scenario = {"page_base": pages.base_url, "planner": tasks(5), "executor": {"default": {"sleep": 0.5}}}
    code, out, doc, events = run(tmp_path, clean_env, scenario, concurrency=3, max_agent_calls=6, **NO_STAGES)
    assert calls(events) <= 6, out
    # 3 calls are the report's (synthesizer, support check, repair): research had 3, one executor.
    assert calls(events, "executor") == 1
    assert sorted(t.status for t in doc.tasks).count(TaskStatus.PENDING) == 4
    assert (tmp_path / "ws" / "report.md").is_file(), out
    assert code == 0, out


def test_a_repair_the_ceiling_refuses_leaves_a_report_with_its_notice_and_failed_checks(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    # The synthesizer's first attempt fails (a rate limit): its retry takes the repair's call, and
    # the draft it writes cites a source that does not exist.
    synthesizer = {"fail_times": 1, "append_first": "Sales will triple by 2030 [S99]."}
    scenario = {"page_base": pages.base_url, "planner": tasks(2), "synthesizer": synthesizer}
    settings = {**NO_STAGES, "verify_support": "never", "concurrency": 1}
    code, out, doc, events = run(tmp_path, clean_env, scenario, max_agent_calls=5, **settings)
    assert code == ExitCode.BUDGET, out
    assert calls(events) == 5 and calls(events, "synthesizer") == 2
    report = (tmp_path / "ws" / "report.md").read_text(encoding="utf-8")
    notice = report.splitlines()[2]
    assert notice.startswith("> **deepresearch: this report did not pass verification.** 1 problem remains")
    assert "A call it needed was not made: agent call budget spent (5 of 5" in notice
    assert "## Verification" in report and "unknown_source" in report and "## References" in report
    assert "was written, with a notice at its top" in out
    assert doc.front.status is RunStatus.SYNTHESIZING  # resumable: a run again repairs it
    # With a higher ceiling the same command writes a report that passes.
    code, out, doc, events = run(
        tmp_path, {**clean_env, "DEEPRESEARCH_MAX_AGENT_CALLS": "8"}, scenario, **settings
    )
    assert code == 0, out
    assert doc.front.status is RunStatus.COMPLETED and calls(events, "planner") == 1
    assert "did not pass" not in (tmp_path / "ws" / "report.md").read_text(encoding="utf-8")
    # The summary describes the whole run, under the ceiling it ran under now.
    assert "agent calls: 7 (planner 1, supervisor 1, executor 1, synthesizer 4); this session 2" in out
    assert "research synthesizing" not in out and "research completed: agent call budget spent (3 of 5" in out
    assert "recorded by an earlier session; resumed with a ceiling of 8 agent calls" in out


def test_a_ceiling_too_small_for_the_report_names_the_smallest_workable_value(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work, max_agent_calls=6)
    proc = run_cli(["-p", "How do the indexes compare?", "-o", str(work)], clean_env, tmp_path)
    assert proc.returncode == ExitCode.CONFIG, proc.stderr
    assert "the smallest workable ceiling is 8" in proc.stderr
    assert "set max_agent_calls to 8 or more" in proc.stderr
    assert not (work / "task.md").exists()  # nothing started


def test_a_synthesizer_that_fails_still_leaves_a_report_of_the_verified_facts(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    scenario = {"page_base": pages.base_url, "planner": tasks(2), "synthesizer": {"crash": True}}
    code, out, doc, _events = run(tmp_path, clean_env, scenario, **NO_STAGES)
    assert code == ExitCode.AGENT, out
    report = (tmp_path / "ws" / "report.md").read_text(encoding="utf-8")
    lines = report.splitlines()
    assert lines[0] == "# How do the indexes compare?"
    assert lines[2].startswith("> **deepresearch: note.** The synthesizer did not produce a usable report")
    assert "this report lists the research's verified facts, by section, as found" in lines[2]
    for fact in doc.facts:  # every verified fact, citing its source, under its section
        assert f"- {fact.statement.rstrip('.')}. [{fact.sources[0]}]" in report
    assert "## Indexes" in report and "## References" in report and "## Verification" not in report
    assert doc.front.status is RunStatus.SYNTHESIZING  # a run again retries the synthesis
    assert "was written, with a notice at its top" in out


def test_a_run_that_never_reached_synthesis_has_status_say_what_to_run_for_a_report(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    scenario = tmp_path / "scenario.yaml"
    # The plan is saved; the supervisor's CLI then says it is not logged in: a failure no retry fixes.
    scenario.write_text('supervisor: {crash: true, stderr: "Error: 401 Unauthorized"}\n', encoding="utf-8")
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}
    proc = run_cli(["-p", "How do the indexes compare?", "-o", str(work)], env, tmp_path)
    assert proc.returncode == ExitCode.NO_AGENT, proc.stdout + proc.stderr
    assert (work / "task.md").is_file() and not (work / "report.md").exists()
    status = run_cli(["status", str(work)], clean_env, tmp_path)
    assert f"report: none yet: run `deepresearch -o {work}` to continue and write it" in status.stdout


def test_an_analyst_whose_cli_fails_for_good_costs_the_analysis_not_the_report(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    analyst = {"crash": True, "stderr": "Error: 401 Unauthorized: invalid API key\n"}
    scenario = {"page_base": pages.base_url, "planner": tasks(2), "analyst": analyst}
    code, out, doc, events = run(tmp_path, clean_env, scenario, analysis="always", max_figures=0)
    assert code == 0, out
    assert calls(events, "analyst") == 1  # a login failure is final: not retried
    assert "warning: analysis skipped: " in out
    assert doc.front.status is RunStatus.COMPLETED and (tmp_path / "ws" / "report.md").is_file()
