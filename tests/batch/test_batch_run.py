"""`deepresearch batch` with the fake agent: parallelism, a bad line, retries that resume, a kill, budgets."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

from tests.batch.conftest import BAD_LINE, QUESTIONS, FinishedBatch, base_env
from tests.batch.helpers import (
    batch_folder,
    batch_json,
    calls_by_task,
    events,
    jsonl_file,
    max_overlap,
    run_batch,
    run_spans,
    scenario_env,
    start_batch,
)
from tests.helpers import PageServer
from tests.pipeline.test_resume import fake_agent_pids, wait_for


def test_six_jobs_run_three_at_a_time_and_a_bad_line_is_reported(six_jobs: FinishedBatch) -> None:
    result, folder = six_jobs.result, six_jobs.folder
    # The bad line is reported by number, the batch exits 11 for it, and every other job ran.
    assert result.returncode == 11, result.stdout + result.stderr
    assert f"line {BAD_LINE}: not valid JSON" in result.stdout
    assert f"line {BAD_LINE}: not valid JSON" in result.stderr
    state = batch_json(folder)
    assert state["problems"] == [{"line": BAD_LINE, "message": state["problems"][0]["message"]}]
    assert sorted(state["jobs"]) == [f"q{n}" for n in range(1, 7)]
    for n, job in enumerate(state["jobs"].values(), 1):
        assert job["status"] == "done" and job["attempts"] == 1 and job["exit_code"] == 0, job
        assert job["prompt"] == QUESTIONS[n - 1] and job["verification"] == "passed"
        assert job["agent_calls"] == 6 and job["cost_usd"] == 0.06 and job["report"] == f"q{n}/report.md"
        assert (folder / job["report"]).is_file()
    # From the jobs' own event times: three runs at once, never more.
    spans = [span for n in range(1, 7) for span in run_spans(folder / f"q{n}")]
    assert len(spans) == 6
    assert max_overlap(spans) == 3
    firsts = sorted(spans)[:3]
    assert max(s for s, _ in firsts) < min(e for _, e in firsts)  # the first three overlap
    fourth = sorted(spans)[3]
    assert fourth[0] >= min(e for _, e in firsts)  # the fourth waits for a free slot


def test_a_job_that_crashes_twice_is_retried_resuming_its_workspace(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    folder = batch_folder(tmp_path, retries=0)  # no retry inside the run: the run itself fails
    log = tmp_path / "calls.jsonl"
    scenario = {
        "page_base": pages.base_url,
        "calls_log": str(log),
        "workspaces": {"flaky": {"synthesizer": {"fail_times": 2}}},
    }
    env = scenario_env(clean_env, tmp_path / "s.yaml", scenario)
    file = jsonl_file(
        tmp_path / "q.jsonl",
        [{"id": "steady", "prompt": "Index alpha?"}, {"id": "flaky", "prompt": "Index beta?"}],
    )
    result = run_batch(file, folder, env, "--jobs", "2", "--retries", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("flaky: attempt") == 2 and "resuming it" in result.stdout
    flaky = batch_json(folder)["jobs"]["flaky"]
    assert flaky["status"] == "done" and flaky["attempts"] == 3 and flaky["sessions"] == 3
    assert batch_json(folder)["jobs"]["steady"]["attempts"] == 1
    # Every finished agent call happened once: the retries resumed at the synthesis.
    once = {"planner": 1, "supervisor": 1, "E1": 1, "E2": 1, "reflector": 1, "synthesizer": 1}
    assert calls_by_task(log, "flaky") == once
    sessions = [e for e in events(folder / "flaky") if e["event"] == "run_started"]
    assert [e["resumed"] for e in sessions] == [False, True, True]
    started = [e["label"] for e in events(folder / "flaky") if e["event"] == "agent_started"]
    assert started.count("synthesizer") == 3 and started.count("planner") == 1


def test_sigkill_of_the_batch_then_the_same_command_continues(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    folder = batch_folder(tmp_path)
    log = tmp_path / "calls.jsonl"
    slow = {"executor": {"default": {"sleep": 4}}}
    scenario = {"page_base": pages.base_url, "calls_log": str(log), "workspaces": {"b": slow, "c": slow}}
    env = scenario_env(clean_env, tmp_path / "s.yaml", scenario)
    file = jsonl_file(tmp_path / "q.jsonl", [{"id": j, "prompt": f"Index {j}?"} for j in ("a", "b", "c")])
    first = start_batch(file, folder, env, "--jobs", "2")

    def a_done_and_b_running() -> bool:
        jobs = batch_json(folder)["jobs"] if (folder / "batch.json").is_file() else {}
        return jobs.get("a", {}).get("status") == "done" and jobs.get("b", {}).get("status") == "running"

    wait_for(a_done_and_b_running, timeout=120)
    wait_for(
        lambda: any(e["event"] == "agent_started" and e["role"] == "executor" for e in events(folder / "b"))
    )
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=30)
    # The runs of the killed batch stop by themselves (their parent died) and leave no agent behind.
    wait_for(lambda: not fake_agent_pids(folder / "b") and not fake_agent_pids(folder / "c"), timeout=60)
    assert batch_json(folder)["jobs"]["b"]["status"] == "running"  # what the killed batch last wrote

    second = run_batch(file, folder, env, "--jobs", "2")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "continuing batch" in second.stdout and "▶ a:" not in second.stdout
    jobs = batch_json(folder)["jobs"]
    assert [jobs[j]["status"] for j in "abc"] == ["done"] * 3
    assert jobs["a"]["attempts"] == 1 and jobs["a"]["sessions"] == 1  # finished: not run again
    assert jobs["b"]["attempts"] == 2 and jobs["b"]["sessions"] == 2
    assert [e["resumed"] for e in events(folder / "b") if e["event"] == "run_started"] == [False, True]
    assert calls_by_task(log, "a")["planner"] == 1 and calls_by_task(log, "b")["planner"] == 1


def test_a_batch_wide_call_budget_stops_starting_jobs_and_says_so(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    folder = batch_folder(tmp_path)
    env = scenario_env(clean_env, tmp_path / "s.yaml", {"page_base": pages.base_url})
    file = jsonl_file(tmp_path / "q.jsonl", [{"id": j, "prompt": f"Index {j}?"} for j in ("a", "b", "c")])
    result = run_batch(file, folder, env, "--jobs", "1", "--max-agent-calls-total", "8")
    assert result.returncode == 9, result.stdout + result.stderr
    # After a's 6 calls, the 2 left are fewer than a run needs to end with a report: b is not started.
    reason = "batch agent-call budget spent (6 of 8; the 2 left are fewer than the 5 a run needs)"
    assert f"batch budget: {reason}; not started: b, c" in result.stdout
    state = batch_json(folder)
    jobs = state["jobs"]
    assert jobs["a"]["status"] == "done" and jobs["a"]["agent_calls"] == 6
    for job in "bc":
        assert jobs[job]["status"] == "pending" and jobs[job]["attempts"] == 0
        assert jobs[job]["message"] == f"not started: {reason}"
        assert not (folder / job / "task.md").exists()
    assert state["stopped"] == reason
    assert "raise the budget and run the same command again" in result.stderr


def test_rerunning_a_finished_batch_runs_nothing(six_jobs: FinishedBatch, tmp_path: Path) -> None:
    env = base_env(six_jobs.folder.parent)
    before = six_jobs.calls_log.read_text().count("\n")
    again = run_batch(six_jobs.file, six_jobs.folder, env, "--jobs", "3")
    assert "6 jobs, 0 to run" in again.stdout, again.stdout + again.stderr
    # Without batch.json (lost, or never written after the jobs ended) the workspaces still tell.
    copy = Path(shutil.copytree(six_jobs.folder, tmp_path / "copy", symlinks=True))
    (copy / "batch.json").unlink()
    fresh = run_batch(six_jobs.file, copy, env, "--jobs", "3")
    assert "starting batch" in fresh.stdout and "6 jobs, 0 to run" in fresh.stdout, (
        fresh.stdout + fresh.stderr
    )
    assert [job["status"] for job in batch_json(copy)["jobs"].values()] == ["done"] * 6
    assert batch_json(copy)["jobs"]["q1"]["agent_calls"] == 6
    assert six_jobs.calls_log.read_text().count("\n") == before


def test_ctrl_c_stops_every_job_and_the_same_command_resumes_them(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    folder = batch_folder(tmp_path)
    slow = {"executor": {"default": {"sleep": 30}}}
    scenario = {"page_base": pages.base_url, "workspaces": {"a": slow, "b": slow}}
    env = scenario_env(clean_env, tmp_path / "s.yaml", scenario)
    file = jsonl_file(tmp_path / "q.jsonl", [{"id": j, "prompt": f"Index {j}?"} for j in ("a", "b")])
    batch = start_batch(file, folder, env, "--jobs", "2")
    wait_for(lambda: len(fake_agent_pids(folder / "a")) == 2 and len(fake_agent_pids(folder / "b")) == 2, 120)
    batch.send_signal(signal.SIGINT)
    out, err = batch.communicate(timeout=90)
    assert batch.returncode == 130, out + err
    assert (
        "interrupted: every running job was stopped and saved" in err and "run the same command again" in err
    )
    assert fake_agent_pids(folder / "a") == [] and fake_agent_pids(folder / "b") == []
    state = batch_json(folder)
    assert state["stopped"] == "interrupted"
    assert [state["jobs"][j]["status"] for j in "ab"] == ["pending", "pending"]
    assert all("resumable" in state["jobs"][j]["message"] for j in "ab")

    fast = scenario_env(clean_env, tmp_path / "fast.yaml", {"page_base": pages.base_url})
    again = run_batch(file, folder, fast, "--jobs", "2")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "▶ a: resuming (attempt 2)" in again.stdout
    assert [e["resumed"] for e in events(folder / "a") if e["event"] == "run_started"] == [False, True]
