"""`deepresearch batch --on ray` against a local Ray head started by the test (slow: a real cluster)."""

from __future__ import annotations

import contextlib
import importlib.util
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
    run_spans,
    scenario_env,
    start_batch,
)
from tests.helpers import PageServer
from tests.pipeline.test_resume import wait_for

# Looked up, not imported: importing Ray costs ~1 s of CPU in every pytest process that collects this.
if importlib.util.find_spec("ray") is None:
    pytest.skip("the ray extra is not installed: pip install -e '.[test,ray]'", allow_module_level=True)
pytestmark = [pytest.mark.slow, pytest.mark.serial]  # `ray stop --force` stops every Ray on the machine

RAY = str(Path(sys.executable).with_name("ray"))


def ray_env(env: dict[str, str]) -> dict[str, str]:
    """Hermetic Ray settings for head, workers and driver: no usage stats, and no token auth (the cluster
    is this machine's own; without this, a token left in ~/.ray by any earlier local Ray switches a new
    head to token mode, and a new local instance would write one there)."""
    return {**env, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


@pytest.fixture
def ray_head(tmp_path: Path, pages: PageServer) -> Iterator[tuple[str, dict[str, str], Path]]:
    """A Ray head on this machine with 2 CPUs and 2 `agent_cli`; its workers see the fake agent's scenario."""
    log = tmp_path / "calls.jsonl"
    # Executors take 3 s: a run is surely mid-job when the test sees its executors start.
    scenario = {"page_base": pages.base_url, "calls_log": str(log), "executor": {"default": {"sleep": 3}}}
    env = ray_env(scenario_env(base_env(tmp_path), tmp_path / "s.yaml", scenario))
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


def _executing(folder: Path) -> str | None:
    """The first job whose executors have started (its run is then mid-job for a few seconds)."""
    for job in "abcd":
        if any(e["event"] == "agent_started" and e["role"] == "executor" for e in events(folder / job)):
            return job
    return None


def test_a_batch_of_four_on_ray_survives_a_killed_worker_by_resuming(
    tmp_path: Path, ray_head: tuple[str, dict[str, str], Path]
) -> None:
    address, env, log = ray_head
    folder = batch_folder(tmp_path)
    file = jsonl_file(tmp_path / "q.jsonl", [{"id": j, "prompt": f"Index {j}?"} for j in "abcd"])
    batch = start_batch(file, folder, env, "--on", f"ray://{address}", "--jobs", "4")
    try:
        try:
            wait_for(lambda: _executing(folder) is not None or batch.poll() is not None, 240)
        except AssertionError:
            batch.kill()
            raise AssertionError("no job reached its executors:\n" + "".join(batch.communicate())) from None
        victim = _executing(folder)
        assert victim is not None, "".join(batch.communicate())
        run = _run_of(folder / victim)
        assert run is not None
        worker = _parent(run)
        assert b"ray::" in Path(f"/proc/{worker}/cmdline").read_bytes()  # the run is a Ray task's child
        os.kill(worker, signal.SIGKILL)
        out, err = batch.communicate(timeout=400)
    finally:
        if batch.poll() is None:
            batch.kill()
    assert batch.returncode == 0, out + err
    jobs = batch_json(folder)["jobs"]
    assert [jobs[j]["status"] for j in "abcd"] == ["done"] * 4
    # Ray retried the task itself: one attempt for the batch, two sessions in the workspace, the second resumed.
    assert jobs[victim]["attempts"] == 1 and jobs[victim]["sessions"] == 2, jobs[victim]
    assert [e["resumed"] for e in events(folder / victim) if e["event"] == "run_started"] == [False, True]
    done = calls_by_task(log, victim)
    assert done["planner"] == done["supervisor"] == done["synthesizer"] == 1, done
    for job in set("abcd") - {victim}:
        assert jobs[job]["sessions"] == 1 and calls_by_task(log, job)["planner"] == 1
    # Two `agent_cli` in the cluster: never more than two runs at once, whatever --jobs says.
    spans = [span for j in "abcd" for span in run_spans(folder / j)]
    assert max_overlap(spans) <= 2
