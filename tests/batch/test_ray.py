"""`deepresearch batch --on ray` against a local Ray head started by the test (slow: a real cluster)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.batch.conftest import base_env
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
from tests.pipeline.test_resume import wait_for

pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[test,ray]'")
pytestmark = pytest.mark.slow

RAY = str(Path(sys.executable).with_name("ray"))


@pytest.fixture
def ray_head(tmp_path: Path, pages: PageServer) -> Iterator[tuple[str, dict[str, str], Path]]:
    """A Ray head on this machine with 2 CPUs and 2 `agent_cli`; its workers see the fake agent's scenario."""
    log = tmp_path / "calls.jsonl"
    slow = {"executor": {"default": {"sleep": 3}}}
    scenario = {"page_base": pages.base_url, "calls_log": str(log), "workspaces": {"b": slow}}
    env = scenario_env(base_env(tmp_path), tmp_path / "s.yaml", scenario)
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # Ray's socket paths must stay short
    # Ray takes the machine's own address for a head whatever --node-ip-address says (ray#26293);
    # everything stays on this machine either way.
    start = [
        RAY, "start", "--head", "--node-ip-address=127.0.0.1", "--port=0", "--num-cpus=2",
        '--resources={"agent_cli": 2}', f"--temp-dir={temp}", "--include-dashboard=false", "--disable-usage-stats",
    ]  # fmt: skip
    try:
        subprocess.run(start, env=env, check=True, capture_output=True, text=True, timeout=120)
        address = (Path(temp) / "ray_current_cluster").read_text().strip()
        yield address, env, log
    finally:
        subprocess.run([RAY, "stop", "--force"], env=env, capture_output=True, timeout=120)
        shutil.rmtree(temp, ignore_errors=True)


def _run_of(folder: Path) -> int | None:
    """PID of the `deepresearch -p` run working in `folder`."""
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            if b"deepresearch" in argv and b"-p" in argv and str(folder).encode() in argv:
                return int(proc.name)
    return None


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_a_batch_of_four_on_ray_survives_a_killed_worker_by_resuming(
    tmp_path: Path, ray_head: tuple[str, dict[str, str], Path]
) -> None:
    address, env, log = ray_head
    folder = batch_folder(tmp_path)
    file = jsonl_file(tmp_path / "q.jsonl", [{"id": j, "prompt": f"Index {j}?"} for j in "abcd"])
    batch = start_batch(file, folder, env, "--on", f"ray://{address}", "--jobs", "4")
    try:
        wait_for(
            lambda: any(
                e["event"] == "agent_started" and e["role"] == "executor" for e in events(folder / "b")
            ),
            120,
        )
        run = _run_of(folder / "b")
        assert run is not None
        worker = _parent(run)
        assert b"ray::" in Path(f"/proc/{worker}/cmdline").read_bytes()  # the run is a Ray task's child
        os.kill(worker, signal.SIGKILL)
        out, err = batch.communicate(timeout=240)
    finally:
        if batch.poll() is None:
            batch.kill()
    assert batch.returncode == 0, out + err
    jobs = batch_json(folder)["jobs"]
    assert [jobs[j]["status"] for j in "abcd"] == ["done"] * 4
    # Ray retried the task itself: one attempt for the batch, two sessions in the workspace, the second resumed.
    assert jobs["b"]["attempts"] == 1 and jobs["b"]["sessions"] == 2
    assert [e["resumed"] for e in events(folder / "b") if e["event"] == "run_started"] == [False, True]
    done_b = calls_by_task(log, "b")
    assert done_b["planner"] == done_b["supervisor"] == done_b["synthesizer"] == 1, done_b
    for j in "acd":
        assert jobs[j]["sessions"] == 1 and calls_by_task(log, j)["planner"] == 1
    # Two `agent_cli` in the cluster: never more than two runs at once, whatever --jobs says.
    spans = [span for j in "abcd" for span in run_spans(folder / j)]
    assert max_overlap(spans) <= 2


def test_on_ray_without_a_cluster_starts_a_local_instance_with_room_for_the_jobs(
    tmp_path: Path, pages: PageServer
) -> None:
    env = scenario_env(base_env(tmp_path), tmp_path / "s.yaml", {"page_base": pages.base_url})
    env.update(RAY_USAGE_STATS_ENABLED="0", RAY_TMPDIR=tempfile.mkdtemp(prefix="ray", dir="/tmp"))
    folder = batch_folder(tmp_path)
    file = jsonl_file(tmp_path / "q.jsonl", [{"id": j, "prompt": f"Index {j}?"} for j in "ab"])
    try:
        result = run_batch(file, folder, env, "--on", "ray", "--jobs", "2")
    finally:
        shutil.rmtree(env["RAY_TMPDIR"], ignore_errors=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 at once (ray (default))" in result.stdout
    jobs = batch_json(folder)["jobs"]
    assert [jobs[j]["status"] for j in "ab"] == ["done", "done"]
    assert max_overlap([span for j in "ab" for span in run_spans(folder / j)]) == 2
