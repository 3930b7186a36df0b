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
