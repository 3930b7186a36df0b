"""End to end: the real `deepresearch` command driving the fake agent CLI as real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from deepresearch.core.workspace import Workspace
from deepresearch.state.model import RunStatus, TaskStatus
from deepresearch.state.store import StateStore
from tests.helpers import PageServer, write_scenario, write_workspace_config

THREE_TASKS = {
    "complexity": "comparison",
    "dimensions": [
        {"id": "D1", "name": "Alpha", "description": "Alpha facts"},
        {"id": "D2", "name": "Beta", "description": "Beta facts"},
    ],
    "outline": [{"section": "Alpha and beta", "dimensions": ["D1", "D2"], "questions": "What are they?"}],
    "tasks": [
        {"id": "E1", "task": "Research alpha", "dimensions": ["D1"], "priority": "high", "depends": []},
        {"id": "E2", "task": "Research beta", "dimensions": ["D2"], "priority": "high", "depends": []},
        {"id": "E3", "task": "Compare alpha and beta", "dimensions": ["D1", "D2"], "priority": "medium",
         "depends": ["E1", "E2"]},
    ],
}  # fmt: skip


def run_cli(
    args: list[str], env: dict[str, str], cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`python -m deepresearch ARGS` as a real subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "deepresearch", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def intervals(workdir: Path, role: str) -> dict[str, tuple[float, float]]:
    """label → (start, end) of the agent calls of a role, from logs/events.jsonl."""
    starts: dict[str, float] = {}
    spans: dict[str, tuple[float, float]] = {}
    for line in (workdir / "logs" / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event.get("role") != role:
            continue
        if event["event"] == "agent_started":
            starts[event["label"]] = event["ts"]
        elif event["event"] == "agent_finished":
            spans[event["label"]] = (starts[event["label"]], event["ts"])
    return spans


def test_full_run_produces_state_report_logs_and_parallel_executors(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work, browser=True, concurrency=3)
    with PageServer() as pages:
        scenario = write_scenario(
            tmp_path / "scenario.yaml",
            # E1 and E2 each wait until the other runs too (a barrier, not a latency to guess).
            {
                "planner": THREE_TASKS,
                "executor": {"E1": {"meet": 2}, "E2": {"meet": 2}},
                "page_base": pages.base_url,
            },
        )
        env = {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}
        proc = run_cli(["-p", "What are alpha and beta?", "-o", str(work), "--pdf"], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    doc = StateStore(Workspace(work)).load()
    assert doc.front.status is RunStatus.COMPLETED
    assert doc.front.termination_reason.startswith("quality threshold met")
    assert [t.status for t in doc.tasks] == [TaskStatus.DONE] * 3
    assert len(doc.facts) == 3 and len(doc.sources) == 3
    assert {f.task for f in doc.facts} == {"E1", "E2", "E3"}
    assert {f.verified.value for f in doc.facts} == {"yes"}, "quotes should be found in the archived pages"
    for source in doc.sources:
        assert source.archive.startswith("assets/web/S") and (work / source.archive).is_file()
        assert len(source.sha256) == 64 and source.title.endswith("statistics bulletin")
    assert doc.quality and doc.quality[0].score == 8

    report = (work / "report.md").read_text()
    assert report.startswith("# ") and "[S01]" in report
    assert (work / "report.pdf").read_bytes().startswith(b"%PDF")  # --pdf
    for name in ("planner", "supervisor", "E1", "E2", "E3", "reflector", "analyst", "charts", "synthesizer"):
        assert (work / "logs" / f"{name}.log").is_file(), name
        assert (work / "logs" / "prompts" / f"{name}.md").is_file(), name
        assert (work / "logs" / "calls" / name / f"{name}_result.md").is_file(), name
    executor_prompt = (work / "logs" / "prompts" / "E1.md").read_text()
    assert "Output file: logs/calls/E1/E1_result.md" in executor_prompt
    assert (
        "Who published a fact belongs to its source (title and URL), not to its statement" in executor_prompt
    )
    # The verifier judged the round's facts and the report's cited sentences: one call each; task.md
    # keeps each verdict's reason, and the synthesizer was offered the facts with their sources.
    assert {f.support.value for f in doc.facts} == {"supported"}
    assert {f.support_reason for f in doc.facts} == {"The evidence states it."}
    synthesizer_prompt = (work / "logs" / "prompts" / "synthesizer.md").read_text()
    assert all(f"- {f.id} [{f.sources[0]}]: {f.statement}" in synthesizer_prompt for f in doc.facts)
    for name, prompt in (("verifier", "verifier-r1"), ("verifier-report", "verifier-report")):
        assert (work / "logs" / "calls" / name / f"{name}_result.md").is_file() and (
            work / "logs" / "prompts" / f"{prompt}.md"
        ).is_file()
    assert (work / "logs" / "orchestrator.log").read_text().count("agent_finished") == 11

    spans = intervals(work, "executor")
    (s1, e1), (s2, e2), (s3, _e3) = spans["E1"], spans["E2"], spans["E3"]
    assert s1 < e2 and s2 < e1, "E1 and E2 should have run at the same time"
    assert s3 >= max(e1, e2) - 0.05, "E3 depends on E1 and E2 and must start after both"


def test_hung_agent_is_killed_with_its_child_and_the_run_goes_on(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work, agent_timeout=8, retries=0)  # E2 must finish even on a loaded machine
    child_pid_file = tmp_path / "child.pid"
    scenario = write_scenario(
        tmp_path / "scenario.yaml",
        {"executor": {"E1": {"spawn_child": str(child_pid_file)}}, "page_base": pages.base_url},
    )
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}
    proc = run_cli(["-p", "Question with a hanging executor", "-o", str(work)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    child = int(child_pid_file.read_text())
    deadline = time.time() + 5
    while Path(f"/proc/{child}").exists() and time.time() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{child}").exists(), "the hung agent's child process survived"
    doc = StateStore(Workspace(work)).load()
    assert doc.task("E1").status is TaskStatus.FAILED
    assert doc.task("E2").status is TaskStatus.DONE
    failures = [json.loads(x) for x in (work / "logs" / "events.jsonl").read_text().splitlines()]
    timeouts = [e for e in failures if e["event"] == "agent_finished" and e.get("failure") == "timeout"]
    assert [e["label"] for e in timeouts] == ["E1"]
    assert "E1 failed" in proc.stdout


def test_retryable_failure_is_retried_with_backoff(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work, retries=2)
    scenario = write_scenario(
        tmp_path / "scenario.yaml", {"executor": {"E1": {"fail_times": 2}}, "page_base": pages.base_url}
    )
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}
    proc = run_cli(["-p", "Question with a rate-limited executor", "-o", str(work)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    events = [json.loads(x) for x in (work / "logs" / "events.jsonl").read_text().splitlines()]
    e1 = [e for e in events if e["event"] == "agent_finished" and e["label"] == "E1"]
    assert [e["ok"] for e in e1] == [False, False, True]
    assert {e["failure"] for e in e1[:2]} == {"rate_limited"}
    retries = [e for e in events if e["event"] == "agent_retry" and e["label"] == "E1"]
    assert [r["delay"] for r in retries] == [0.01, 0.02]
    assert StateStore(Workspace(work)).load().task("E1").status is TaskStatus.DONE


def test_garbage_output_is_repaired_once(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    scenario = write_scenario(
        tmp_path / "scenario.yaml", {"executor": {"E2": {"garbage_first": True}}, "page_base": pages.base_url}
    )
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}
    proc = run_cli(["-p", "Question with a sloppy executor", "-o", str(work)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    repair_prompt = (work / "logs" / "prompts" / "E2.repair.md").read_text()
    assert "Your previous output was not accepted" in repair_prompt
    assert "does not parse" in repair_prompt or "mapping" in repair_prompt
    assert StateStore(Workspace(work)).load().task("E2").status is TaskStatus.DONE


BAD_REPORT = """# Report

## Executive summary
The index reached 99 points [S99]. Nobody disputes this.

Growth was strong. Analysts expect more. Markets agree. Prices rose. Demand rose too.

See https://example.com/data for details.
"""


def test_report_violations_are_repaired_on_the_second_try(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    scenario = write_scenario(
        tmp_path / "scenario.yaml", {"synthesizer": {"report_first": BAD_REPORT}, "page_base": pages.base_url}
    )
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}
    proc = run_cli(["-p", "Question whose first report is sloppy", "-o", str(work)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    repair = (work / "logs" / "prompts" / "synthesizer.verify-repair.md").read_text()
    assert "report.md:4: unknown_source:" in repair and "bare_url" in repair and "density" in repair
    report = (work / "report.md").read_text()
    assert "[S99]" not in report and "## Verification" not in report
    assert "## References" in report and "### Cited sources" in report
    assert (work / "report.html").is_file() and (work / "knowledge.json").is_file()
    assert "verified: every check passed" in proc.stdout


def test_report_that_stays_wrong_keeps_a_verification_section_and_fails(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    scenario = write_scenario(
        tmp_path / "scenario.yaml", {"synthesizer": {"report": BAD_REPORT}, "page_base": pages.base_url}
    )
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}
    proc = run_cli(["-p", "Question whose report stays sloppy", "-o", str(work)], env, tmp_path)
    assert proc.returncode == 8, proc.stdout + proc.stderr
    assert "did not pass verification" in proc.stderr
    report = (work / "report.md").read_text()
    assert "## Verification" in report and "[S99]" in report
    assert StateStore(Workspace(work)).load().front.status is RunStatus.COMPLETED
