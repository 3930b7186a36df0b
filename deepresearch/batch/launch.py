"""One attempt of one job: the `deepresearch` command it runs, and what its exit code means.

A job is an ordinary run: `python -m deepresearch -p PROMPT -o DIR/<id> --yes`, in its own process
group, with the job's settings as `DEEPRESEARCH_<KEY>` variables (they win over the workspace's
deepresearch.yaml and lose to nothing else). Running the same command again in the same workspace
resumes the run, so a retry never redoes finished work.
"""

from __future__ import annotations

import shutil
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.batch.state import JobStatus
from deepresearch.core.config import ENV_PREFIX
from deepresearch.core.errors import ExitCode
from deepresearch.core.process import ProcessRunner
from deepresearch.core.workspace import Workspace
from deepresearch.state.lock import owner_alive, read_owner

SHARED_CONFIG = "deepresearch.yaml"  # DIR/deepresearch.yaml: settings for every job of the batch
JOB_GRACE = 20.0  # seconds a run gets after SIGTERM to stop its agents and save task.md
LOCK_WAIT = 60.0  # seconds to wait for a previous attempt (still shutting down) to release its workspace
_FINAL = {ExitCode.USAGE, ExitCode.CONFIG, ExitCode.STATE, ExitCode.NO_AGENT}
_TAIL_LINES = 3


@dataclass(frozen=True)
class JobLaunch:
    """Everything needed to run one attempt of a job anywhere (plain data: it travels to Ray)."""

    job_id: str
    prompt: str
    workdir: str  # DIR/<id>
    log_path: str  # DIR/logs/<id>.log: the run's own plain progress lines
    env: dict[str, str] = field(default_factory=dict)  # DEEPRESEARCH_* settings of this job
    timeout: float = float("inf")

    def argv(self, workdir: str | None = None) -> list[str]:
        """The command of the attempt (in `workdir` when the workspace was moved, e.g. on a Ray node)."""
        where = workdir or self.workdir
        return [sys.executable, "-m", "deepresearch", "-p", self.prompt, "-o", where, "--yes"]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for another process."""
        return asdict(self)


@dataclass(frozen=True)
class JobOutcome:
    """How an attempt ended, as seen where it ran."""

    exit_code: int | None  # None: killed (timeout, stop, lost worker)
    run_seconds: float = 0.0  # the run's own wall time, measured beside it
    interrupted: bool = False  # stopped by us (Ctrl-C / stop_all)
    timed_out: bool = False
    message: str = ""  # the last lines the run printed on stderr, or what went wrong around it


def settings_env(settings: Mapping[str, Any]) -> dict[str, str]:
    """Job settings as DEEPRESEARCH_<KEY> variables (the config's environment layer reads them)."""
    env: dict[str, str] = {}
    for key, value in settings.items():
        if value is None:
            text = ""
        elif isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, list):
            text = " ".join(str(v) for v in value)
        else:
            text = str(value)
        env[ENV_PREFIX + key.upper()] = text
    return env


def prepare_workspace(folder: Path, job_id: str) -> Path:
    """DIR/<id>, with DIR/deepresearch.yaml copied in when the job has no configuration of its own."""
    workdir = folder / job_id
    workdir.mkdir(parents=True, exist_ok=True)
    shared, own = folder / SHARED_CONFIG, workdir / SHARED_CONFIG
    if shared.is_file() and not own.exists():
        shutil.copyfile(shared, own)
    return workdir


def wait_for_workspace(workdir: Path, timeout: float = LOCK_WAIT) -> None:
    """Wait while a live process of an earlier attempt still holds the workspace lock."""
    lock = Workspace(workdir).lock_file
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        owner = read_owner(lock)
        if owner is None or not owner_alive(owner):
            return
        time.sleep(0.2)


def run_attempt(
    processes: ProcessRunner, launch: JobLaunch, environ: Mapping[str, str], workdir: str | None = None
) -> JobOutcome:
    """Run one attempt of a job with `processes` (the one place that starts processes); blocks."""
    where = Path(workdir or launch.workdir)
    wait_for_workspace(where)
    outcome = processes.run(
        launch.argv(str(where)),
        cwd=where,
        env={**environ, **launch.env},
        timeout=launch.timeout,
        log_path=Path(launch.log_path),
        on_parent_death=signal.SIGTERM,  # a killed batch (or Ray worker) must not leave its runs behind
    )
    tail = [line for line in outcome.stderr.splitlines() if line.strip()][-_TAIL_LINES:]
    return JobOutcome(
        exit_code=outcome.exit_code,
        run_seconds=round(outcome.duration, 3),
        interrupted=outcome.interrupted,
        timed_out=outcome.timed_out,
        message=" / ".join(tail),
    )


@dataclass(frozen=True)
class Verdict:
    """What the scheduler does with an attempt's outcome."""

    status: JobStatus  # PENDING with retry=True: run it again
    retry: bool
    message: str


def judge(outcome: JobOutcome, stopping: bool) -> Verdict:
    """Done, budget, failed for good, retry, or (when we are stopping) pending again."""
    code = outcome.exit_code
    if code in (ExitCode.OK, ExitCode.CHECK_FAILED):
        return Verdict(JobStatus.DONE, False, outcome.message if code else "")
    if stopping or outcome.interrupted:
        return Verdict(JobStatus.PENDING, False, "interrupted: the workspace is resumable")
    if code == ExitCode.BUDGET:
        return Verdict(JobStatus.BUDGET, False, outcome.message or "the job's budget is spent")
    if code in _FINAL:
        return Verdict(JobStatus.FAILED, False, outcome.message or f"exit {code}")
    if outcome.timed_out:
        return Verdict(JobStatus.PENDING, True, "the job ran past --job-timeout and was stopped")
    reason = outcome.message or ("killed" if code is None else f"exit {code}")
    return Verdict(JobStatus.PENDING, True, reason)
