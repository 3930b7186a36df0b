"""The one place that starts subprocesses: own process group, timeout, group kill, logged output.

Every agent CLI call goes through `ProcessRunner.run`. Each child gets its own session (process
group), so a timeout or Ctrl-C kills the CLI *and* everything it spawned (browsers, MCP servers,
shells), and the terminal's Ctrl-C reaches only us: we decide what to stop. On Linux each child also
asks the kernel to signal it when its parent dies (PR_SET_PDEATHSIG: SIGKILL for agents, SIGTERM for a
batch's runs, which then stop their own agents), so an agent never outlives an orchestrator killed
with SIGKILL; what it spawned is stopped by the next run (core.proctable). Short helper children
(the figure worker) go through `run_captured`, which keeps the same group discipline; a program the
person drives on the terminal (their editor) goes through `run_in_terminal`.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

_GRACE_SECONDS = 2.0  # between SIGTERM and SIGKILL of a process group
_PR_SET_PDEATHSIG = 1


def _load_prctl() -> Callable[..., int] | None:
    """libc's prctl, resolved once here (never in a forked child), or None off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None
    prctl: Callable[..., int] = libc.prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]  # type: ignore[attr-defined]
    prctl.restype = ctypes.c_int  # type: ignore[attr-defined]
    return prctl


_PRCTL = _load_prctl()


def die_with_parent(sig: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A preexec_fn that makes the child get `sig` when the thread that starts it dies (Linux), else
    None. Every child we start waits in the thread that started it, so that is when we die.

    It runs in the forked child before exec, where locks held by our other threads stay held: so it
    takes none — it calls the prctl resolved at import and two system calls, and allocates only small
    Python objects (Python's own allocator, under the GIL the child holds). The parent may have died
    between fork and prctl: then the child kills itself."""
    if _PRCTL is None:
        return None
    prctl, parent = _PRCTL, os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


@dataclass(frozen=True)
class ProcessOutcome:
    """What the runner observed of one subprocess."""

    exit_code: int | None  # None when killed on timeout / interrupt
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    interrupted: bool = False


class ProcessRunner:
    """Starts processes and keeps track of the live ones so they can all be stopped at once."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, grace: float = _GRACE_SECONDS) -> None:
        self._clock = clock
        self._grace = grace  # a child that cleans up on SIGTERM (a whole run) needs longer than an agent
        self._live: dict[int, subprocess.Popen[bytes]] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    def run(
        self,
        argv: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        timeout: float,
        log_path: Path,
        on_start: Callable[[int], None] | None = None,
        on_parent_death: int = signal.SIGKILL,
    ) -> ProcessOutcome:
        """Run `argv` with stdin from /dev/null, stream stdout+stderr to `log_path`, and return
        what happened; on timeout or `stop_all()` the whole process group is killed.

        The child gets `on_parent_death` when this process dies, even by SIGKILL (Linux): an agent
        never outlives its run, and a run started by a batch (SIGTERM: it stops its own agents and
        saves) never outlives a killed batch or Ray worker, holding its workspace."""
        if self._stopping.is_set():
            return ProcessOutcome(None, "", "", 0.0, interrupted=True)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        start = self._clock()
        with open(log_path, "ab") as log:
            header = f"=== {time.strftime('%Y-%m-%dT%H:%M:%S')} $ {' '.join(argv)}\n"
            log.write(header.encode())
            log.flush()
            proc = _spawn(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                preexec=die_with_parent(on_parent_death),
            )
            with self._lock:
                self._live[proc.pid] = proc
            try:
                if on_start:
                    on_start(proc.pid)
                return self._supervise(proc, log, timeout, start)
            finally:
                with self._lock:
                    self._live.pop(proc.pid, None)

    def _supervise(
        self, proc: subprocess.Popen[bytes], log: IO[bytes], timeout: float, start: float
    ) -> ProcessOutcome:
        write_lock = threading.Lock()
        out: list[bytes] = []
        err: list[bytes] = []
        assert proc.stdout is not None and proc.stderr is not None
        readers = [
            threading.Thread(target=_pump, args=(proc.stdout, out, log, write_lock), daemon=True),
            threading.Thread(target=_pump, args=(proc.stderr, err, log, write_lock), daemon=True),
        ]
        for reader in readers:
            reader.start()
        timed_out = False
        deadline = start + timeout
        while proc.poll() is None:
            if self._stopping.is_set():
                break
            if self._clock() >= deadline:
                timed_out = True
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.05)
        # Killed by stop_all (or about to be): the call did not finish on its own.
        interrupted = self._stopping.is_set() and (proc.returncode is None or proc.returncode < 0)
        # The call is over: nothing it spawned may outlive it (and keep our pipes open).
        kill_group(proc, self._grace)
        for reader in readers:
            reader.join(timeout=5)
        exit_code = None if (timed_out or interrupted) else proc.returncode
        duration = self._clock() - start
        with write_lock:
            note = "timed out" if timed_out else "interrupted" if interrupted else f"exit {exit_code}"
            log.write(f"=== {note} after {duration:.1f}s\n".encode())
        return ProcessOutcome(
            exit_code=exit_code,
            stdout=b"".join(out).decode("utf-8", "replace"),
            stderr=b"".join(err).decode("utf-8", "replace"),
            duration=duration,
            timed_out=timed_out,
            interrupted=interrupted,
        )

    def stop_all(self) -> None:
        """Kill every running process group and refuse new starts (Ctrl-C, SIGTERM)."""
        self._stopping.set()
        with self._lock:
            live = list(self._live.values())
        for proc in live:
            kill_group(proc, self._grace)

    @property
    def live_pids(self) -> list[int]:
        """PIDs of the processes running now."""
        with self._lock:
            return list(self._live)


def _pump(stream: IO[bytes], sink: list[bytes], log: IO[bytes], lock: threading.Lock) -> None:
    for line in iter(stream.readline, b""):
        sink.append(line)
        with lock:
            log.write(line)
            log.flush()
    stream.close()


def kill_group(proc: subprocess.Popen[bytes], grace: float = _GRACE_SECONDS) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left after a grace period."""
    try:
        pgid = os.getpgid(proc.pid)
    except ProcessLookupError:
        pgid = proc.pid  # the leader is gone; its group may still have members
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)
        if sig == signal.SIGTERM:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=grace)
            if not _group_alive(pgid):
                break
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=_GRACE_SECONDS)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def run_captured(
    argv: Sequence[str],
    *,
    input_text: str = "",
    timeout: float,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> ProcessOutcome:
    """Run a short child in its own process group with `input_text` on stdin; capture its output.
    Past `timeout` seconds the whole group is killed and the outcome says `timed_out`."""
    start = time.monotonic()
    proc = _spawn(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, preexec=die_with_parent())
    try:
        out, err = proc.communicate(input_text.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        return ProcessOutcome(None, _text(out), _text(err), time.monotonic() - start, timed_out=True)
    return ProcessOutcome(proc.returncode, _text(out), _text(err), time.monotonic() - start)


def run_in_terminal(argv: Sequence[str]) -> int:
    """Run a program the person uses on this terminal (their editor) and wait; its exit status.
    It stays in our process group so it owns the terminal while it runs."""
    return _spawn(argv, capture=False, own_group=False).wait()


def _spawn(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: int | None = None,
    capture: bool = True,
    own_group: bool = True,
    preexec: Callable[[], None] | None = None,
) -> subprocess.Popen[bytes]:
    """The one place a process is started: in its own session (process group) unless it must share
    our terminal, with stdout and stderr piped unless it talks to the person directly."""
    pipe = subprocess.PIPE if capture else None
    return subprocess.Popen(
        list(argv),
        cwd=str(cwd) if cwd is not None else None,
        env=dict(env) if env is not None else None,
        stdin=stdin,
        stdout=pipe,
        stderr=pipe,
        start_new_session=own_group,
        preexec_fn=preexec,
    )


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")
