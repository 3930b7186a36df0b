"""WorkspaceLock with real processes: a live owner refuses a second run, a dead one is taken over."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deepresearch.core.errors import WorkspaceLockedError
from deepresearch.core.workspace import Workspace
from deepresearch.state.lock import WorkspaceLock, process_start, read_owner

REPO = Path(__file__).resolve().parents[2]
# Takes the lock, says so, then either waits for a line on stdin (and releases) or dies holding it.
CHILD = """
import os, sys
from pathlib import Path
from deepresearch.state.lock import WorkspaceLock
from deepresearch.core.workspace import Workspace
lock = WorkspaceLock(Workspace(Path(sys.argv[1]))).acquire()
print("locked", flush=True)
if sys.argv[2] == "die":
    os._exit(0)
sys.stdin.readline()
lock.release()
"""


def _child(root: Path, mode: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None and child.stdout.readline() == "locked\n"
    return child


def test_second_live_owner_is_refused_until_the_first_leaves(tmp_path: Path) -> None:
    child = _child(tmp_path, "hold")
    try:
        with pytest.raises(WorkspaceLockedError) as caught:
            WorkspaceLock(Workspace(tmp_path)).acquire()
        assert f"another deepresearch run (PID {child.pid}, started " in str(caught.value)
        assert f"kill {child.pid}" in str(caught.value)
    finally:
        assert child.stdin is not None
        child.stdin.write("\n")
        child.stdin.close()
        child.wait(timeout=30)
    assert not Workspace(tmp_path).lock_file.exists()
    with WorkspaceLock(Workspace(tmp_path)) as lock:
        assert lock.took_over_from is None and lock.notice is None


def test_lock_of_a_dead_process_is_taken_over_with_a_notice(tmp_path: Path) -> None:
    child = _child(tmp_path, "die")
    child.wait(timeout=30)
    with WorkspaceLock(Workspace(tmp_path)) as lock:
        assert lock.took_over_from == child.pid
        assert lock.notice is not None and f"PID {child.pid}" in lock.notice
        owner = read_owner(lock.path)
        assert owner is not None and owner.pid == os.getpid()
    assert not lock.path.exists()


def test_lock_of_an_unreaped_zombie_is_taken_over(tmp_path: Path) -> None:
    child = _child(tmp_path, "die")
    deadline = time.monotonic() + 30
    while Path(f"/proc/{child.pid}/stat").read_text().split(") ")[1][0] != "Z":
        assert time.monotonic() < deadline, "child did not exit"
        time.sleep(0.01)
    try:
        with WorkspaceLock(Workspace(tmp_path)) as lock:
            assert lock.took_over_from == child.pid
    finally:
        child.wait(timeout=30)


def test_a_recycled_pid_does_not_keep_the_lock(tmp_path: Path) -> None:
    lock_file = Workspace(tmp_path).lock_file
    lock_file.parent.mkdir(parents=True)
    start = process_start(os.getpid())
    assert start is not None
    # Our own PID is alive, but a process started at another tick wrote this lock.
    lock_file.write_text(json.dumps({"pid": os.getpid(), "proc_start": start - 1, "token": "old"}))
    with WorkspaceLock(Workspace(tmp_path)) as lock:
        assert lock.took_over_from == os.getpid()


def test_unreadable_lock_file_is_taken_over(tmp_path: Path) -> None:
    lock_file = Workspace(tmp_path).lock_file
    lock_file.parent.mkdir(parents=True)
    lock_file.write_text("{not json")
    with WorkspaceLock(Workspace(tmp_path)) as lock:
        assert lock.took_over_from is None
        assert lock.notice == f"took over an unreadable lock file ({lock_file})"


def test_release_leaves_a_lock_that_is_no_longer_ours(tmp_path: Path) -> None:
    lock = WorkspaceLock(Workspace(tmp_path)).acquire()
    lock.path.write_text(json.dumps({"pid": os.getpid(), "token": "someone-else"}))
    lock.release()
    assert lock.path.exists()


# A run that dies holding the lock while its agent (the leader of its own session, with a tool it
# started) keeps running: what a run killed before PR_SET_PDEATHSIG existed, or on another OS, leaves.
DEAD_RUN = """
import os, subprocess, sys
from pathlib import Path
from deepresearch.core.proctable import ProcessTable
from deepresearch.core.workspace import Workspace
from deepresearch.state.lock import WorkspaceLock
ws = Workspace(Path(sys.argv[1]))
WorkspaceLock(ws).acquire()
env = {**os.environ, "DEEPRESEARCH_WORKDIR": str(ws.root)}
agent = subprocess.Popen(
    [sys.executable, "-c", "import subprocess, sys, time; subprocess.Popen(['sleep', '600']); time.sleep(600)"],
    start_new_session=True, env=env, stdout=subprocess.DEVNULL)
ProcessTable(ws.private, ws.root).add(agent.pid, "E1", agent.args)
print(agent.pid, flush=True)
os._exit(0)
"""


def _session_members(session: int) -> list[int]:
    from deepresearch.core.proctable import alive, proc_stat

    found = []
    for proc in Path("/proc").iterdir():
        stat = proc_stat(int(proc.name)) if proc.name.isdigit() else None
        if stat is not None and stat.session == session and alive(int(proc.name)):
            found.append(int(proc.name))
    return found


def test_taking_over_a_stale_lock_stops_the_agents_the_dead_run_left(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    dead = subprocess.Popen(
        [sys.executable, "-c", DEAD_RUN, str(tmp_path)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert dead.stdout is not None
    agent = int(dead.stdout.readline())
    dead.wait(timeout=30)
    deadline = time.monotonic() + 10
    while len(_session_members(agent)) < 2:  # the agent and the tool it started
        assert time.monotonic() < deadline, "the agent did not start its tool"
        time.sleep(0.02)
    members = _session_members(agent)
    try:
        with WorkspaceLock(Workspace(tmp_path)) as lock:
            assert lock.took_over_from == dead.pid
            assert sorted(lock.stopped) == sorted(members)
            assert lock.notice is not None and "stopped 2 agent processes left by a dead run" in lock.notice
            assert _session_members(agent) == []
    finally:
        for pid in _session_members(agent):
            os.kill(pid, 9)
    assert json.loads((tmp_path / ".deepresearch" / "agents.json").read_text()) == []


def test_a_recorded_pid_that_is_now_another_program_is_left_alone(tmp_path: Path) -> None:
    from deepresearch.core.proctable import ProcessTable, alive

    ws = Workspace(tmp_path)
    env = {**os.environ, "DEEPRESEARCH_WORKDIR": str(tmp_path)}
    innocent = subprocess.Popen(["sleep", "600"], start_new_session=True, env=env)
    other = subprocess.Popen(["sleep", "601"], start_new_session=True, env=env)
    stranger = subprocess.Popen(["sleep", "602"], start_new_session=True)  # not of this workspace
    try:
        start = process_start(innocent.pid)
        assert start is not None
        records = [
            # the PID was recycled: another start tick (and the same program)
            {"pid": innocent.pid, "label": "E1", "start": start - 1, "cmdline": ["sleep", "600"]},
            # the same start tick but another program
            {"pid": other.pid, "label": "E2", "start": process_start(other.pid), "cmdline": ["claude", "-p"]},
            # the same start tick and program, but not started for this workspace
            {"pid": stranger.pid, "label": "E3", "start": process_start(stranger.pid), "cmdline": ["sleep"]},
        ]
        ws.private.mkdir(parents=True)
        (ws.private / "agents.json").write_text(json.dumps(records))
        assert ProcessTable(ws.private, ws.root).stop_leftovers() == []
        assert alive(innocent.pid) and alive(other.pid) and alive(stranger.pid)
    finally:
        for proc in (innocent, other, stranger):
            proc.kill()
            proc.wait()
