"""The batch loop: start jobs up to `--jobs` at once, retry failures by resuming, honour budgets.

batch.json is saved after every change. Ctrl-C (or SIGTERM) stops every running job through the
executor (each run saves its task.md) and leaves the batch resumable: the same command continues it.
Batch-wide budgets are checked before each job starts, and a starting job gets what is left of them
as its own cap (`max_agent_calls`, `max_cost_usd` count a workspace's calls across sessions); a job
whose cap would be below the least a run needs to end with a report is not started.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.batch.events import (
    BatchBudgetReached,
    BatchFinished,
    BatchStarted,
    JobFinished,
    JobProgress,
    JobRetry,
    JobStarted,
    LineRejected,
)
from deepresearch.batch.jobs import BatchInput
from deepresearch.batch.launch import JobLaunch, JobOutcome, judge, prepare_workspace, settings_env
from deepresearch.batch.local import Executor
from deepresearch.batch.measures import measure
from deepresearch.batch.state import BatchState, JobRecord, JobStatus, load_state, save_state
from deepresearch.batch.watch import JobWatcher, Snapshot
from deepresearch.core.budget import ledger_usage
from deepresearch.core.events import EventSink
from deepresearch.core.spendplan import ReportShare, smallest_ceiling
from deepresearch.core.workspace import Workspace
from deepresearch.state.model import RunStatus

LOG_FOLDER = "logs"  # DIR/logs/<id>.log: each job's own progress lines
LEAST_RUN = smallest_ceiling(ReportShare())  # the fewest calls any run can end with a report in


@dataclass(frozen=True)
class BatchOptions:
    """How to run the batch (the command's flags)."""

    jobs: int = 1
    retries: int = 2  # extra attempts per job and per invocation; each resumes the workspace
    settings: dict[str, Any] = field(default_factory=dict)  # for every job, below each job's own
    max_agent_calls_total: int | None = None
    max_cost_total: float | None = None
    job_timeout: float | None = None  # seconds
    retry_delay: float = 1.0
    poll_interval: float = 1.0


@dataclass
class _Running:
    job_id: str
    started: float
    watcher: JobWatcher
    shown: Snapshot = field(default_factory=Snapshot)


class BatchScheduler:
    """Runs one batch in DIR to the end (or to a budget, or to Ctrl-C); returns its state."""

    def __init__(
        self,
        folder: Path,
        batch: BatchInput,
        options: BatchOptions,
        executor: Executor,
        sink: EventSink,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.folder, self.batch, self.options = folder, batch, options
        self.executor, self.sink, self.clock = executor, sink, clock
        self.state = BatchState(file=str(batch.path))
        self._queue: deque[str] = deque()
        self._delayed: list[tuple[float, str]] = []
        self._running: dict[Future[JobOutcome], _Running] = {}
        self._tries: dict[str, int] = {}
        self._stopping = False
        self._began = clock()
        self._pool = ThreadPoolExecutor(max_workers=options.jobs, thread_name_prefix="batch-job")

    def run(self) -> BatchState:
        """Run every job that still has work; KeyboardInterrupt stops all and is re-raised."""
        self._open()
        try:
            self._loop()
        except BaseException:
            self._stop_all("interrupted")
            raise
        finally:
            self._finish()
            self._pool.shutdown(wait=True)
            self.executor.close()
        return self.state

    def _open(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        previous = load_state(self.folder)
        resumed = previous is not None
        self.state = previous or self.state
        self.state.file, self.state.stopped = str(self.batch.path), ""
        self.state.merge_input(self.batch.jobs, self.batch.problems)
        for problem in self.batch.problems:
            self.sink(LineRejected(str(self.batch.path), problem.line, problem.message))
        for spec in self.batch.jobs:
            record = self.state.jobs[spec.id]
            if record.status is JobStatus.RUNNING:
                record.status = JobStatus.PENDING  # the batch was killed while it ran
            if record.status is not JobStatus.DONE and not self._finished_already(record):
                self._queue.append(spec.id)
        save_state(self.folder, self.state)
        self.sink(
            BatchStarted(
                str(self.folder), len(self.batch.jobs), len(self._queue), self.options.jobs,
                self.executor.name, resumed,
                {spec.id: self.state.jobs[spec.id].status.value for spec in self.batch.jobs},
            )
        )  # fmt: skip

    def _finished_already(self, record: JobRecord) -> bool:
        """A job whose run completed after batch.json was last written is recorded, not run again."""
        workdir = self.folder / record.id
        found = measure(Workspace(workdir)) if (workdir / "task.md").is_file() else None
        if found is None or found.status != RunStatus.COMPLETED.value:
            return False
        self._record_measures(record)
        record.status, record.finished = JobStatus.DONE, record.finished or self.clock()
        return True

    def _loop(self) -> None:
        while True:
            self._start_ready()
            if not self._running and not self._delayed and not self._queue:
                return
            if not self._running:
                time.sleep(min(self.options.poll_interval, self._next_retry_in()))
                continue
            done, _ = wait(list(self._running), self.options.poll_interval, FIRST_COMPLETED)
            for future in done:
                self._finished(future)
            self._watch()

    def _next_retry_in(self) -> float:
        return max(0.0, min((at for at, _ in self._delayed), default=0.0) - self.clock())

    def _start_ready(self) -> None:
        now = self.clock()
        due = [job for at, job in self._delayed if at <= now]
        self._delayed = [(at, job) for at, job in self._delayed if at > now]
        self._queue.extendleft(reversed(due))
        while self._queue and len(self._running) < self.options.jobs and not self._stopping:
            caps = self._caps(self._queue[0])
            if caps is None:
                return
            self._start(self._queue.popleft(), caps)

    def _start(self, job_id: str, caps: dict[str, Any]) -> None:
        record = self.state.jobs[job_id]
        workdir = prepare_workspace(self.folder, job_id)
        resumed = (workdir / "task.md").is_file()
        settings = {**self.options.settings, **record.settings}
        for key, cap in caps.items():
            settings[key] = cap if settings.get(key) is None else min(settings[key], cap)
        launch = JobLaunch(
            job_id, record.prompt, str(workdir), str(self.folder / LOG_FOLDER / f"{job_id}.log"),
            settings_env(settings), self.options.job_timeout or float("inf"),
        )  # fmt: skip
        self._tries[job_id] = self._tries.get(job_id, 0) + 1
        record.status, record.attempts = JobStatus.RUNNING, record.attempts + 1
        record.started, record.message = record.started or self.clock(), ""
        save_state(self.folder, self.state)
        self.sink(JobStarted(job_id, record.attempts, resumed))
        future = self._pool.submit(self.executor.run, launch)
        self._running[future] = _Running(job_id, self.clock(), JobWatcher(workdir))

    def _caps(self, job_id: str) -> dict[str, Any] | None:
        """The batch-wide budget left for a starting job, or None (and the batch stops) when spent."""
        total_calls, total_cost = self.options.max_agent_calls_total, self.options.max_cost_total
        if total_calls is None and total_cost is None:
            return {}
        usage = {job: ledger_usage(Workspace(self.folder / job).usage_ledger) for job in self.state.jobs}
        calls = sum(u.calls for u in usage.values())
        cost = sum(u.cost_usd for u in usage.values())
        caps: dict[str, Any] = {}
        if total_calls is not None:
            if calls >= total_calls:
                self._budget_stop(f"batch agent-call budget spent ({calls} of {total_calls})")
                return None
            cap = usage[job_id].calls + (total_calls - calls)
            if cap < LEAST_RUN:  # a run with fewer calls could not end with a report: not started
                self._budget_stop(
                    f"batch agent-call budget spent ({calls} of {total_calls}; the {total_calls - calls} "
                    f"left are fewer than the {LEAST_RUN} a run needs)"
                )
                return None
            caps["max_agent_calls"] = cap
        if total_cost is not None:
            if cost >= total_cost:
                self._budget_stop(f"batch cost budget spent (${cost:.4f} of ${total_cost:.4f})")
                return None
            caps["max_cost_usd"] = round(usage[job_id].cost_usd + (total_cost - cost), 6)
        return caps

    def _budget_stop(self, reason: str) -> None:
        left = list(self._queue) + [job for _, job in self._delayed]
        self._queue.clear()
        self._delayed.clear()
        for job_id in left:
            self.state.jobs[job_id].message = "not started: " + reason
        self.state.stopped = reason
        save_state(self.folder, self.state)
        self.sink(BatchBudgetReached(reason, left))

    def _finished(self, future: Future[JobOutcome]) -> None:
        running = self._running.pop(future)
        outcome = future.result()
        record = self.state.jobs[running.job_id]
        seconds = round(self.clock() - running.started, 3)
        record.seconds = round(record.seconds + seconds, 3)
        record.exit_code = outcome.exit_code
        self._record_measures(record)
        verdict = judge(outcome, self._stopping)
        record.status, record.message = verdict.status, verdict.message
        if verdict.retry:
            self._retry_or_fail(record, verdict.message)
        if record.status in (JobStatus.DONE, JobStatus.FAILED, JobStatus.BUDGET):
            record.finished = self.clock()
        save_state(self.folder, self.state)
        self.sink(
            JobFinished(
                record.id, record.status.value, record.attempts, outcome.exit_code, seconds,
                record.agent_calls, record.cost_usd, outcome.run_seconds, record.score, record.rounds,
                record.verification, record.message,
            )
        )  # fmt: skip

    def _retry_or_fail(self, record: JobRecord, reason: str) -> None:
        tries = self._tries.get(record.id, 0)
        left = self.options.retries + 1 - tries
        if left <= 0:
            record.status = JobStatus.FAILED
            record.message = f"failed after {tries} attempt{'s' * (tries != 1)}: {reason}"
            return
        self.sink(JobRetry(record.id, record.attempts, left, reason))
        self._delayed.append((self.clock() + self.options.retry_delay, record.id))

    def _record_measures(self, record: JobRecord) -> None:
        workspace = Workspace(self.folder / record.id)
        found = measure(workspace)
        record.agent_calls, record.cost_usd = found.agent_calls, found.cost_usd
        record.input_tokens, record.output_tokens = found.input_tokens, found.output_tokens
        record.rounds, record.score, record.sessions = found.rounds, found.score, found.sessions
        record.termination_reason, record.verification = found.termination_reason, found.verification
        record.report = f"{record.id}/report.md" if found.report else None

    def _watch(self) -> None:
        for running in self._running.values():
            snapshot = running.watcher.poll()
            if snapshot != running.shown:
                running.shown = snapshot
                self.sink(
                    JobProgress(
                        running.job_id, snapshot.phase, snapshot.round, snapshot.score,
                        snapshot.agent_calls, snapshot.cost_usd,
                    )
                )  # fmt: skip

    def _stop_all(self, reason: str) -> None:
        """Stop every running job (each saves its workspace) and record them as pending."""
        self._stopping = True
        self.executor.stop_all()
        for future in list(self._running):
            if future.exception() is not None:  # waits: the executor has told the run to stop
                self.state.jobs[self._running.pop(future).job_id].status = JobStatus.PENDING
                continue
            self._finished(future)
        self.state.stopped = self.state.stopped or reason
        save_state(self.folder, self.state)

    def _finish(self) -> None:
        counts: dict[str, int] = {}
        for spec in self.batch.jobs:
            status = self.state.jobs[spec.id].status.value
            counts[status] = counts.get(status, 0) + 1
        jobs = [self.state.jobs[spec.id] for spec in self.batch.jobs]
        self.sink(
            BatchFinished(
                counts, sum(r.agent_calls for r in jobs), round(sum(r.cost_usd for r in jobs), 6),
                round(self.clock() - self._began, 3), self.state.stopped,
            )
        )  # fmt: skip
