"""The process runner: output logging, timeouts that kill the whole group, stop_all."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from deepresearch.core.process import ProcessRunner


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); read its state.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def test_output_is_captured_and_logged(tmp_path: Path) -> None:
    code = "import sys; print('to stdout'); print('to stderr', file=sys.stderr); sys.exit(3)"
    outcome = ProcessRunner().run(
        [sys.executable, "-c", code], tmp_path, dict(os.environ), 30, tmp_path / "x.log"
    )
    assert outcome.exit_code == 3
    assert outcome.stdout == "to stdout\n"
    assert outcome.stderr == "to stderr\n"
    log = (tmp_path / "x.log").read_text()
    assert "to stdout" in log and "to stderr" in log and "exit 3" in log


def test_stdin_is_dev_null(tmp_path: Path) -> None:
    code = "import sys; print(repr(sys.stdin.read()))"
    outcome = ProcessRunner().run(
        [sys.executable, "-c", code], tmp_path, dict(os.environ), 30, tmp_path / "x.log"
    )
    assert outcome.stdout.strip() == "''"


def test_timeout_kills_the_process_and_its_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    code = (
        "import subprocess, time, pathlib; "
        "c = subprocess.Popen(['sleep', '600']); "
        f"pathlib.Path({str(pid_file)!r}).write_text(str(c.pid)); time.sleep(600)"
    )
    outcome = ProcessRunner().run(
        [sys.executable, "-c", code], tmp_path, dict(os.environ), 1.5, tmp_path / "x.log"
    )
    assert outcome.timed_out and outcome.exit_code is None
    child = int(pid_file.read_text())
    deadline = time.time() + 5
    while _alive(child) and time.time() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the child the agent spawned outlived the timeout"
    assert "timed out" in (tmp_path / "x.log").read_text()


def test_children_left_behind_after_a_normal_exit_are_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    code = (
        "import subprocess, pathlib; "
        "c = subprocess.Popen(['sleep', '600']); "
        f"pathlib.Path({str(pid_file)!r}).write_text(str(c.pid))"
    )
    outcome = ProcessRunner().run(
        [sys.executable, "-c", code], tmp_path, dict(os.environ), 30, tmp_path / "x.log"
    )
    assert outcome.exit_code == 0
    child = int(pid_file.read_text())
    deadline = time.time() + 5
    while _alive(child) and time.time() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def test_stop_all_interrupts_running_processes(tmp_path: Path) -> None:
    runner = ProcessRunner()
    results = []

    def run() -> None:
        results.append(runner.run(["sleep", "600"], tmp_path, dict(os.environ), 600, tmp_path / "x.log"))

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.time() + 5
    while not runner.live_pids and time.time() < deadline:
        time.sleep(0.02)
    runner.stop_all()
    thread.join(timeout=10)
    assert results and results[0].interrupted and results[0].exit_code is None
    # Once stopping, no new process starts.
    late = runner.run(["true"], tmp_path, dict(os.environ), 5, tmp_path / "y.log")
    assert late.interrupted


def test_the_usage_ledger_counts_every_call_even_one_cut_short(tmp_path: Path) -> None:
    from deepresearch.core.budget import Budget, read_ledger
    from deepresearch.core.config import Config
    from deepresearch.core.workspace import Workspace

    workspace = Workspace(tmp_path)
    assert read_ledger(workspace.usage_ledger) == (0, 0.0)
    workspace.private.mkdir()
    workspace.usage_ledger.write_text('{"cost_usd": 0.25}\n{"cost_usd": null}\n\n{"cost_usd": 0.5')
    assert read_ledger(workspace.usage_ledger) == (3, 0.25)
    # The hard cap and the budget rules read the same count.
    budget = Budget(workspace, Config(max_agent_calls=3))
    assert budget.calls_made() == 3 and budget.spent().agent_calls == 3
    # The next call after the crash goes on a line of its own: both counted, its cost read.
    budget.record_call({"cost_usd": 1.0})
    assert read_ledger(workspace.usage_ledger) == (4, 1.25) and budget.calls_made() == 4


# An "orchestrator" that starts agents from worker threads (as the execute phase does), while other
# threads keep allocating, prints each agent's PID, then waits to be killed.
ORCHESTRATOR = """
import sys, threading, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from deepresearch.core.process import ProcessRunner

runner, tmp = ProcessRunner(), Path(sys.argv[1])
busy = True
def churn():
    while busy:
        [str(n) * 10 for n in range(1000)]
for _ in range(3):
    threading.Thread(target=churn, daemon=True).start()
lock = threading.Lock()
def started(pid):
    with lock:
        print(pid, flush=True)
def agent(n):
    code = "import time; time.sleep(600)"
    return runner.run([sys.executable, "-c", code], tmp, {}, 600, tmp / f"a{n}.log", on_start=started)
with ThreadPoolExecutor(8) as pool:
    for n in range(8):
        pool.submit(agent, n)
"""


def test_agents_die_with_an_orchestrator_killed_with_sigkill(tmp_path: Path) -> None:
    import signal
    import subprocess

    repo = Path(__file__).resolve().parents[2]
    parent = subprocess.Popen(
        [sys.executable, "-c", ORCHESTRATOR, str(tmp_path)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(repo)},
    )  # fmt: skip
    assert parent.stdout is not None
    agents = [int(parent.stdout.readline()) for _ in range(8)]  # eight forks under busy threads
    assert all(_alive(pid) for pid in agents)
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=10)
    deadline = time.time() + 5
    while any(_alive(pid) for pid in agents) and time.time() < deadline:
        time.sleep(0.05)
    survivors = [pid for pid in agents if _alive(pid)]
    for pid in survivors:  # clean up before failing
        os.kill(pid, 9)
    assert survivors == [], "agents outlived their orchestrator"
