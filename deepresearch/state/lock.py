"""One run per workspace: a lock file holding the owner's PID, taken over when that PID is dead.

Whoever takes the lock first stops the agent processes a dead run left running (core.proctable).

The lock file (`.deepresearch/lock`) is created with O_EXCL and holds JSON: pid, start time, host,
the process's kernel start tick (so a recycled PID is not mistaken for the owner) and a random token
(so release removes the file only while it is still ours). Checking and taking over a stale lock is
serialised through an flock on a guard file beside it, so two starters cannot both take it over.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from deepresearch.core.clock import iso_seconds, utc_now
from deepresearch.core.errors import WorkspaceLockedError
from deepresearch.core.files import file_lock
from deepresearch.core.proctable import ProcessTable, proc_stat
from deepresearch.core.workspace import Workspace


@dataclass(frozen=True)
class LockOwner:
    """What a lock file says about the process holding it."""

    pid: int
    started: str = ""
    host: str = ""
    proc_start: int | None = None
    token: str = ""


class WorkspaceLock:
    """Context manager: `with WorkspaceLock(ws) as lock:`; check `lock.took_over_from` for a notice."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.path = workspace.lock_file
        self.took_over_from: int | None = None  # PID of the dead owner whose lock was taken over
        self.notice: str | None = None  # a sentence for a Notice event when a stale lock was taken over
        self.stopped: list[int] = []  # agent processes of a dead run stopped on taking the lock
        self._token = secrets.token_hex(8)
        self._held = False

    def __enter__(self) -> WorkspaceLock:
        return self.acquire()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

    def acquire(self) -> WorkspaceLock:
        """Take the lock, or raise WorkspaceLockedError when a live process holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._guard():
            if not self._create():
                owner = read_owner(self.path)
                if owner is not None and owner_alive(owner):
                    raise self._locked(owner)
                self.took_over_from = owner.pid if owner is not None else None
                self.notice = (
                    f"took over the workspace lock of PID {owner.pid} (started {owner.started or '?'}),"
                    " which is no longer running"
                    if owner is not None
                    else f"took over an unreadable lock file ({self.path})"
                )
                self.path.unlink(missing_ok=True)
                if not self._create():
                    raise WorkspaceLockedError(f"could not create the lock file {self.path}")
        self._held = True
        self.stopped = self._stop_leftovers()
        return self

    def _stop_leftovers(self) -> list[int]:
        """Agents a dead run left running (recorded in .deepresearch/agents.json) are stopped before
        this run starts its own: two agents must never write the same output file."""
        stopped = ProcessTable(self.workspace.private, self.workspace.root).stop_leftovers()
        if stopped:
            pids = ", ".join(map(str, stopped))
            note = f"stopped {len(stopped)} agent process{'es' * (len(stopped) != 1)} left by a dead run ({pids})"
            self.notice = f"{self.notice}; {note}" if self.notice else note
        return stopped

    def release(self) -> None:
        """Remove the lock file if it is still ours (idempotent)."""
        if not self._held:
            return
        with self._guard():
            owner = read_owner(self.path)
            if owner is not None and owner.token == self._token:
                self.path.unlink(missing_ok=True)
        self._held = False

    def _create(self) -> bool:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        record = {
            "pid": os.getpid(),
            "started": iso_seconds(utc_now()),
            "host": socket.gethostname(),
            "proc_start": process_start(os.getpid()),
            "token": self._token,
        }
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(record, handle)
            handle.flush()
            os.fsync(handle.fileno())
        return True

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        guard = self.path.with_name(self.path.name + ".guard")
        with file_lock(guard):
            yield

    def _locked(self, owner: LockOwner) -> WorkspaceLockedError:
        where = f" on host {owner.host}" if owner.host and owner.host != socket.gethostname() else ""
        return WorkspaceLockedError(
            f"another deepresearch run (PID {owner.pid}{where}, started {owner.started or '?'})"
            f" is using the workspace {self.workspace.root}",
            hint=f"wait for it to finish or stop it (kill {owner.pid}); if that process is not deepresearch,"
            f" delete {self.path}",
        )


def read_owner(path: Path) -> LockOwner | None:
    """The owner recorded in a lock file, or None when the file is missing or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        proc_start = data.get("proc_start")
        return LockOwner(
            pid=int(data["pid"]),
            started=str(data.get("started", "")),
            host=str(data.get("host", "")),
            proc_start=int(proc_start) if proc_start is not None else None,
            token=str(data.get("token", "")),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def owner_alive(owner: LockOwner) -> bool:
    """Whether the recorded owner still runs (a lock from another host is assumed alive)."""
    if owner.host and owner.host != socket.gethostname():
        return True
    if owner.pid <= 0:
        return False
    try:
        os.kill(owner.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, but belongs to another user
    stat = proc_stat(owner.pid)
    if stat is None:
        return True  # no /proc (macOS): the signal check is all we have
    if stat.state == "Z":  # exited, not yet reaped by its parent
        return False
    return owner.proc_start is None or owner.proc_start == stat.start


def process_start(pid: int) -> int | None:
    """The kernel's start tick of a process (Linux), to tell a recycled PID from the original."""
    stat = proc_stat(pid)
    return stat.start if stat is not None else None
