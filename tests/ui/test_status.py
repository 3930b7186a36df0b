"""Plain output of a full run, and `deepresearch status` on finished and running runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deepresearch.core.config import Config
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.orchestrator import new_document
from deepresearch.pipeline.status import read_doc
from deepresearch.state.model import Dimension, Task, TaskStatus
from deepresearch.state.store import StateStore
from tests.helpers import PageServer, write_scenario, write_workspace_config

STAMP = re.compile(r"^\d\d:\d\d:\d\d \S|^\d\d:\d\d:\d\d   ")
PHASES = ("plan", "supervise", "execute", "reflect", "synthesize", "verify")


def deepresearch(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real command, its stdout a pipe (not a terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "deepresearch", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def events(work: Path) -> list[dict[str, object]]:
    lines = (work / "logs" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_plain_output_is_line_oriented_with_every_phase_and_status_summarises_the_finished_run(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    scenario = write_scenario(tmp_path / "scenario.yaml", {"page_base": pages.base_url})
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}
    proc = deepresearch(["-p", "What is alpha?", "-o", str(work)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    lines = proc.stdout.splitlines()
    assert lines and all(STAMP.match(line) for line in lines), "every line starts with a timestamp"
    assert "\x1b" not in proc.stdout, "no terminal escapes when stdout is not a terminal"
    for phase in PHASES:
        assert any(re.search(rf"\d phase {phase}\b", line) for line in lines), phase
    assert any("research completed" in line for line in lines)

    status = deepresearch(["status", str(work)], clean_env, tmp_path)
    assert status.returncode == 0, status.stderr
    out = status.stdout
    calls = sum(e["event"] == "agent_finished" for e in events(work))
    assert "What is alpha?" in out and "finished" in out
    assert "research completed: quality threshold met" in out
    assert f"report: {work / 'report.md'}" in out and "rounds: 1; scores: 8" in out
    assert f"agent calls: {calls} of 40 (planner 1, supervisor 1, executor 2," in out and "cost: $" in out
    assert "ceilings: at most 40 agent calls, 90 minutes, 200 searches (the standard effort's defaults" in out
    assert re.search(r"E1 .*done", out) and re.search(r"E2 .*done", out)
    assert "sources archived: 2" in out and "(2 verified)" in out
    # The Top-K rules and each batch's novelty, as code measured them.
    assert "Top-K rules: 1-1 batches per task, inside one call (at most 2 calls per task)" in out
    assert "a batch counts as new only with\n  - a verified fact for a dimension not yet covered\n" in out
    for task, dim in (("E1", "D1"), ("E2", "D2")):
        assert re.search(
            rf"{task} call 1 batch 1: new: verified fact for uncovered {dim}; new values \d+ point", out
        )
        assert f"{task} after 1 call, done: max_batches (1) reached" in out
    assert "this run will use at most 40 agent calls, 90 minutes, 200 searches" in proc.stdout
    assert "· E1 batch 1: new: verified fact for uncovered D1" in proc.stdout


def test_status_of_a_run_in_progress_shows_running_agents_and_leaves_the_run_alone(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    release = tmp_path / "release"  # the executors wait for it: status sees them at work
    scenario = write_scenario(
        tmp_path / "scenario.yaml",
        {"executor": {"default": {"wait_for": str(release)}}, "page_base": pages.base_url},
    )
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}
    run = subprocess.Popen(
        [sys.executable, "-m", "deepresearch", "-p", "What is alpha?", "-o", str(work)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            log = work / "logs" / "events.jsonl"
            if log.is_file() and any(e.get("label") == "E1" for e in events(work)):
                break
            time.sleep(0.1)
        status = deepresearch(["status", str(work)], clean_env, tmp_path)
        release.touch()
        stdout, stderr = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert status.returncode == 0, status.stderr
    out = status.stdout
    assert f"running (PID {run.pid})" in out
    assert "phase execute" in out and "Agents at work" in out
    assert re.search(r"E1 .*executor", out) and re.search(r"E1 .*running", out)
    assert run.returncode == 0, stdout + stderr
    doc = StateStore(Workspace(work)).load()
    assert [t.status for t in doc.tasks] == [TaskStatus.DONE, TaskStatus.DONE]


def test_status_reads_a_snapshot_while_task_md_is_half_edited(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    work = Workspace(tmp_path / "ws")
    work.ensure()
    doc = new_document("What is alpha?", Config(agent="custom"), {"planner": "custom"})
    doc.tasks = [Task("E1", "Research alpha", ["D1"])]
    doc.dimensions = [Dimension("D1", "Alpha")]
    StateStore(work).save(doc, "plan")
    work.task_md.write_text(work.task_md.read_text(encoding="utf-8").replace("| E1 |", "| E1 | broken |", 1))
    shown, note = read_doc(work)
    assert shown is not None and shown.task("E1") is not None
    assert "cannot be read right now" in note and ".deepresearch/snapshots/0001-plan.md" in note
    status = deepresearch(["status", str(work.root)], clean_env, tmp_path)
    assert status.returncode == 0, status.stderr
    assert "cannot be read right now" in status.stdout and "Research alpha" in status.stdout
    work.task_md.unlink()  # as if caught between an editor's delete and its write
    assert read_doc(work)[0] is not None


@pytest.mark.parametrize("make", [False, True])
def test_status_without_a_run_is_a_usage_error(tmp_path: Path, clean_env: dict[str, str], make: bool) -> None:
    target = tmp_path / "empty"
    if make:
        target.mkdir()
    proc = deepresearch(["status", str(target)], clean_env, tmp_path)
    assert proc.returncode == 2
    assert ("no run in" if make else "no such folder") in proc.stderr


def test_status_of_an_invalid_task_md_names_the_file_and_line(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    """A hand-written task.md with a validation error (and no snapshot to fall back on)."""
    work = Workspace(tmp_path / "ws")
    work.ensure()
    doc = new_document("What is alpha?", Config(agent="custom"), {"planner": "custom"})
    doc.tasks = [Task("E1", "Research alpha", ["D1"]), Task("E2", "Research beta", ["D1"], depends=["E1"])]
    doc.dimensions = [Dimension("D1", "Alpha")]
    StateStore(work).save(doc, "plan")
    for snapshot in work.snapshots.iterdir():
        snapshot.unlink()
    text = work.task_md.read_text(encoding="utf-8")
    work.task_md.write_text(text.replace("| E1 | pending |", "| E9 | pending |", 1), encoding="utf-8")
    line = next(n for n, row in enumerate(work.task_md.read_text().splitlines(), 1) if "| E2 |" in row)
    status = deepresearch(["status", str(work.root)], clean_env, tmp_path)
    assert status.returncode == 4, status.stdout + status.stderr
    assert f"task.md:{line}: Research DAG row E2: Depends names E9, which no task has" in status.stderr
    assert "no run in" not in status.stderr
