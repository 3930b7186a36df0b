"""A batch as plain, timestamped lines: for logs, CI and anything that is not a terminal."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

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
from deepresearch.core.events import Event


def format_batch_event(event: Event) -> str | None:
    """The line shown for a batch event, or None for events not worth a line."""
    match event:
        case BatchStarted():
            verb = "continuing" if event.resumed else "starting"
            return (
                f"{verb} batch in {event.folder}: {event.jobs} jobs, {event.to_run} to run, "
                f"{event.parallel} at once ({event.on})"
            )
        case LineRejected():
            return f"warning: {event.file}: line {event.line}: {event.message} (skipped; the other jobs run)"
        case JobStarted():
            how = "resuming" if event.resumed else "starting"
            return f"  ▶ {event.job_id}: {how} (attempt {event.attempt})"
        case JobProgress():
            score = f", score {event.score:g}" if event.score is not None else ""
            return f"    {event.job_id}: {event.phase or '-'} round {event.round}{score}, {event.agent_calls} calls"
        case JobRetry():
            return f"  ↻ {event.job_id}: attempt {event.attempt} failed ({event.reason}); resuming it"
        case JobFinished():
            return f"  ■ {event.job_id}: {event.status}{_details(event)}"
        case BatchBudgetReached():
            return f"batch budget: {event.reason}; not started: {', '.join(event.not_started) or 'none'}"
        case BatchFinished():
            return batch_summary(event)
    return None


def _details(event: JobFinished) -> str:
    parts = [f"{event.seconds:.1f}s", f"{event.agent_calls} calls", f"${event.cost_usd:.4f}"]
    if event.score is not None:
        parts.append(f"score {event.score:g}")
    if event.verification:
        parts.append(f"report {event.verification}")
    text = " · ".join(parts)
    return f" ({text})" + (f": {event.message}" if event.message and event.status != "done" else "")


def batch_summary(event: BatchFinished) -> str:
    """The final summary of a batch: jobs by status, calls, cost and wall time."""
    counts = ", ".join(f"{n} {status}" for status, n in sorted(event.counts.items())) or "no jobs"
    lines = [
        f"batch finished: {counts}" + (f" — stopped: {event.stopped}" if event.stopped else ""),
        f"  agent calls: {event.agent_calls}; cost: ${event.cost_usd:.4f}; wall time: {event.seconds:.1f}s",
    ]
    return "\n".join(lines)


class BatchPlainDisplay:
    """One timestamped line per batch event; `quiet` keeps warnings, failures and the summary."""

    def __init__(self, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.stream = stream or sys.stdout
        self.quiet = quiet
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        if self.quiet and not _loud(event):
            return
        line = format_batch_event(event)
        if line is None:
            return
        stamp = time.strftime("%H:%M:%S", time.localtime(event.ts))
        with self._lock:
            for part in line.splitlines():
                self.stream.write(f"{stamp} {part}\n")
            self.stream.flush()


def _loud(event: Event) -> bool:
    if isinstance(event, JobFinished):
        return event.status != "done"
    return isinstance(event, (LineRejected, BatchBudgetReached, BatchFinished))
