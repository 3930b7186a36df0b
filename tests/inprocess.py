"""The `deepresearch` command run inside the test's own process.

A rule-level scenario (the adaptive loop, batches, stop rules, ceilings, repairs) needs what a run
leaves — its exit code, its output, task.md, the events — not a new interpreter: starting and
stopping one costs ~1 s of CPU and 2-4 s of wall time a run on a busy 2-CPU machine, more than the
scenario itself. `run_in_process` calls the same entry point as the console script (argv, the
environment, the working folder, stdin at end of file, stdout and stderr captured) and returns
what `subprocess.run` would. The agents are still the fake agent CLI as real subprocesses, through
the real runner and tool service. Tests of what only a process shows (signals, a kill, the exit of
the interpreter, start-up) keep running the real command (`tests.pipeline.test_end_to_end.run_cli`).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

_ONE_AT_A_TIME = threading.Lock()  # the environment and the working folder belong to the process


@contextlib.contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _folder(cwd: Path) -> Iterator[None]:
    saved = Path.cwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved)


@contextlib.contextmanager
def _stdin_at_eof() -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.StringIO("")  # as stdin=DEVNULL: not a terminal, nothing to read
    try:
        yield
    finally:
        sys.stdin = saved


def run_in_process(args: list[str], env: Mapping[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`deepresearch ARGS` as `subprocess.run(..., capture_output=True, text=True)` would report it."""
    from deepresearch.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    captured = (contextlib.redirect_stdout(out), contextlib.redirect_stderr(err))
    with _ONE_AT_A_TIME, _environment(env), _folder(cwd), _stdin_at_eof(), captured[0], captured[1]:
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return subprocess.CompletedProcess(["deepresearch", *args], code, out.getvalue(), err.getvalue())
