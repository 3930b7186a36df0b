"""Jobs as child processes of this machine, through the one ProcessRunner."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Protocol

from deepresearch.batch.launch import JOB_GRACE, JobLaunch, JobOutcome, run_attempt
from deepresearch.core.process import ProcessRunner


class Executor(Protocol):
    """Where jobs run: `run` blocks until the attempt ends (called from several threads at once)."""

    name: str

    def run(self, launch: JobLaunch) -> JobOutcome:
        """Run one attempt of a job and report how it ended."""
        ...

    def stop_all(self) -> None:
        """Stop every running attempt, leaving each workspace resumable; refuse new ones."""
        ...

    def close(self) -> None:
        """Release what the executor holds (connections); idempotent."""
        ...


class LocalExecutor:
    """Each attempt is `deepresearch` as a child in its own process group, killed with the batch."""

    name = "local"

    def __init__(self, environ: Mapping[str, str] | None = None, grace: float = JOB_GRACE) -> None:
        self.environ = dict(os.environ if environ is None else environ)
        self.processes = ProcessRunner(grace=grace)

    def run(self, launch: JobLaunch) -> JobOutcome:
        """Run the attempt here and wait for it."""
        return run_attempt(self.processes, launch, self.environ)

    def stop_all(self) -> None:
        """SIGTERM every run (each stops its agents and saves task.md), SIGKILL after the grace."""
        self.processes.stop_all()

    def close(self) -> None:
        """Nothing to release."""
        return None
