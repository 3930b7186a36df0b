"""Typed events of a batch: the scheduler emits them, `ui/` renders them (table or plain lines)."""

from __future__ import annotations

from dataclasses import dataclass, field

from deepresearch.core.events import Event


@dataclass(frozen=True)
class BatchStarted(Event):
    folder: str
    jobs: int  # jobs in the batch (finished ones included)
    to_run: int  # jobs that still have work to do
    parallel: int
    on: str  # "local" or the Ray address
    resumed: bool
    statuses: dict[str, str] = field(default_factory=dict)  # job → status at the start, in file order


@dataclass(frozen=True)
class LineRejected(Event):
    """A line of the batch file that cannot become a job (the others still run)."""

    file: str
    line: int
    message: str


@dataclass(frozen=True)
class JobStarted(Event):
    job_id: str
    attempt: int
    resumed: bool  # the workspace already held this job's run


@dataclass(frozen=True)
class JobProgress(Event):
    """What a running job is doing, read from its workspace's events (emitted when it changes)."""

    job_id: str
    phase: str
    round: int
    score: float | None
    agent_calls: int
    cost_usd: float


@dataclass(frozen=True)
class JobFinished(Event):
    job_id: str
    status: str  # JobStatus value
    attempt: int
    exit_code: int | None
    seconds: float  # this attempt, as the batch saw it
    agent_calls: int
    cost_usd: float
    run_seconds: float = 0.0  # this attempt, as measured beside the run (the rest is overhead)
    score: float | None = None
    rounds: int = 0
    verification: str = ""
    message: str = ""


@dataclass(frozen=True)
class JobRetry(Event):
    job_id: str
    attempt: int  # the attempt that failed
    retries_left: int
    reason: str


@dataclass(frozen=True)
class BatchBudgetReached(Event):
    """A batch-wide budget is spent: no further job is started."""

    reason: str
    not_started: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class BatchFinished(Event):
    counts: dict[str, int]  # status → jobs
    agent_calls: int
    cost_usd: float
    seconds: float
    stopped: str = ""  # why jobs were left unstarted (budget, interrupted), if any
