"""The agent process groups a run has started, recorded in `.deepresearch/agents.json`, so that the
next run in the workspace can stop what a dead run left running.

Every agent CLI runs as the leader of its own session (core.process). While it runs, its entry
holds its PID, the kernel's start tick of that PID, the command it was started with, and the
orchestrator's PID. A run that takes the workspace lock stops every recorded group first — only the
processes it can prove are ours:

- the leader, when its PID still has the recorded start tick, its command line still names the
  program started, and its environment carries this workspace in `DEEPRESEARCH_WORKDIR` (a PID the
  system has since given to another program is left alone, and so is that program's session);
- the leader's session members (tools it started: `deepresearch archive`, browsers, shells), when
  they started after the leader and carry this workspace in `DEEPRESEARCH_WORKDIR`.

The command line is compared loosely (the program's name must appear in it) because /proc shows it
only once exec has finished, and CLIs may retitle themselves (Node's `process.title`).

Without /proc (macOS) nothing can be proved, so nothing is stopped; there the agents still die with
their orchestrator's process group only when the terminal's Ctrl-C reaches them.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from deepresearch.core.commands import WORKDIR_ENV
from deepresearch.core.files import atomic_write

_GONE_WAIT = 3.0  # seconds to wait for a killed process to disappear


@dataclass(frozen=True)
class ProcStat:
    """The fields of /proc/<pid>/stat that tell who a process is."""

    state: str
    ppid: int
    session: int
    start: int  # kernel start tick: with the PID, identifies a process across PID reuse


def proc_stat(pid: int) -> ProcStat | None:
    """/proc/<pid>/stat read (Linux), or None when there is no such process or no /proc."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the command name may hold spaces and parens
    return ProcStat(fields[0], int(fields[1]), int(fields[3]), int(fields[19]))


def proc_cmdline(pid: int) -> list[str]:
    """A process's command line from /proc ([] when it cannot be read)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]


def _proc_env_has(pid: int, name: str, value: str) -> bool:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False
    return f"{name}={value}".encode() in raw.split(b"\0")


def alive(pid: int) -> bool:
    """Whether `pid` is a running process (a zombie, dead but not yet reaped, is not)."""
    if Path("/proc").is_dir():
        stat = proc_stat(pid)
        return stat is not None and stat.state not in ("Z", "X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, but belongs to another user
    return True


@dataclass(frozen=True)
class AgentProcess:
    """One recorded agent process group."""

    pid: int
    label: str
    start: int | None = None
    cmdline: list[str] = field(default_factory=list)  # the argv it was started with
    owner: int = 0  # the orchestrator's PID

    def is_recorded_process(self, workdir: Path) -> bool:
        """Whether `pid` is still the very process recorded: the same start tick, its program named
        in its command line, and this workspace in its environment."""
        stat = proc_stat(self.pid)
        program = Path(self.cmdline[0]).name if self.cmdline else ""
        return (
            stat is not None
            and stat.state not in ("Z", "X")
            and self.start is not None
            and stat.start == self.start
            and bool(program)
            and any(program in part for part in proc_cmdline(self.pid))
            and _proc_env_has(self.pid, WORKDIR_ENV, str(workdir))
        )


class ProcessTable:
    """`.deepresearch/agents.json`: the live agent groups of the run that holds the workspace."""

    def __init__(self, private: Path, workdir: Path) -> None:
        self.path = private / "agents.json"
        self.workdir = workdir
        self._lock = threading.Lock()

    def _read(self) -> list[AgentProcess]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [AgentProcess(**item) for item in data]
        except (OSError, ValueError, TypeError):
            return []  # absent, or cut short by a crash: nothing provable to stop

    def _write(self, entries: list[AgentProcess]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, json.dumps([asdict(e) for e in entries], indent=1), durable=False)

    def add(self, pid: int, label: str, argv: Sequence[str]) -> None:
        """Record an agent process just started with `argv` (its start tick is read now)."""
        stat = proc_stat(pid)
        entry = AgentProcess(pid, label, stat.start if stat else None, list(argv), os.getpid())
        with self._lock:
            self._write([e for e in self._read() if e.pid != pid] + [entry])

    def remove(self, pid: int) -> None:
        """Forget a process group that has been stopped."""
        with self._lock:
            self._write([e for e in self._read() if e.pid != pid])

    def entries(self) -> list[AgentProcess]:
        """The recorded agent processes."""
        with self._lock:
            return self._read()

    def stop_leftovers(self, sleep: Callable[[float], None] = time.sleep) -> list[int]:
        """SIGKILL what a dead run left (see the module doc), wait until it is gone, clear the table;
        the PIDs stopped. Call only while holding the workspace lock."""
        with self._lock:
            entries = self._read()
            if not entries:
                return []
            victims = sorted({pid for entry in entries for pid in self._ours(entry)})
            for pid in victims:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + _GONE_WAIT
            while any(alive(pid) for pid in victims) and time.monotonic() < deadline:
                sleep(0.02)
            self._write([])
            return victims

    def _ours(self, entry: AgentProcess) -> list[int]:
        if entry.start is None or not Path("/proc").is_dir():
            return []
        leader = proc_stat(entry.pid)
        leader_ok = entry.is_recorded_process(self.workdir)
        if leader is not None and leader.state not in ("Z", "X") and not leader_ok:
            return []  # the PID now belongs to another program: its session is not ours either
        found = [entry.pid] if leader_ok else []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit() or int(proc.name) in (entry.pid, os.getpid()):
                continue
            stat = proc_stat(int(proc.name))
            if (
                stat is not None
                and stat.session == entry.pid
                and stat.start >= entry.start
                and stat.state not in ("Z", "X")
                and _proc_env_has(int(proc.name), WORKDIR_ENV, str(self.workdir))
            ):
                found.append(int(proc.name))
        return found
