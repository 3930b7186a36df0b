"""The live table of a batch: one row per job (status, phase, round, score, calls, cost, time)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from types import TracebackType

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Table
from rich.text import Text

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
from deepresearch.ui.batch_plain import batch_summary, format_batch_event
from deepresearch.ui.tables import duration

_STYLE = {"done": "green", "running": "cyan", "failed": "red", "budget": "yellow", "pending": "dim"}


@dataclass
class _Row:
    status: str = "pending"
    phase: str = ""
    round: int = 0
    score: float | None = None
    calls: int = 0
    cost: float = 0.0
    attempt: int = 0
    started: float | None = None
    seconds: float = 0.0
    note: str = ""


class BatchLiveDisplay:
    """A rich table redrawn a few times a second; events only update rows under a lock."""

    def __init__(self, console: Console | None = None, quiet: bool = False) -> None:
        self.console = console or Console()
        self.quiet = quiet
        self.rows: dict[str, _Row] = {}
        self.header = ""
        self.notes: list[str] = []
        self._lock = threading.Lock()
        self._live: Live | None = None

    def __enter__(self) -> BatchLiveDisplay:
        if not self.quiet:
            self._live = Live(console=self.console, get_renderable=self.render, refresh_per_second=4)
            self._live.start(refresh=True)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._live is not None:
            self._live.stop()  # leaves the last table on screen
            self._live = None

    def __call__(self, event: Event) -> None:
        with self._lock:
            self._apply(event)
        if isinstance(event, (LineRejected, BatchBudgetReached)):
            self.console.print(Text(format_batch_event(event) or "", style="yellow"))
        elif isinstance(event, BatchFinished):
            self.console.print(batch_summary(event))

    def _apply(self, event: Event) -> None:
        match event:
            case BatchStarted():
                self.header = format_batch_event(event) or ""
                for job_id, status in event.statuses.items():
                    self.rows.setdefault(job_id, _Row()).status = status
            case JobStarted():
                row = self.rows.setdefault(event.job_id, _Row())
                row.status, row.attempt, row.started, row.note = "running", event.attempt, event.ts, ""
            case JobProgress():
                row = self.rows.setdefault(event.job_id, _Row())
                row.phase, row.round, row.score = event.phase, event.round, event.score
                row.calls, row.cost = event.agent_calls, event.cost_usd
            case JobRetry():
                self.rows.setdefault(event.job_id, _Row()).note = f"retrying: {event.reason}"
            case JobFinished():
                row = self.rows.setdefault(event.job_id, _Row())
                row.status, row.calls, row.cost, row.started = (
                    event.status,
                    event.agent_calls,
                    event.cost_usd,
                    None,
                )
                row.score, row.round, row.seconds = (
                    event.score,
                    event.rounds or row.round,
                    row.seconds + event.seconds,
                )
                row.phase = "finished" if event.status == "done" else row.phase
                row.note = event.verification if event.status == "done" else event.message

    def render(self) -> RenderableType:
        """The table as drawn now (rich calls this from its refresh thread)."""
        table = Table(box=None, pad_edge=False, header_style="bold")
        for name in ("job", "status", "phase", "round", "score", "calls", "cost", "time", "note"):
            right = name in ("round", "score", "calls", "cost")
            # One line per job however narrow the terminal: long ids and notes are cut, not wrapped.
            table.add_column(name, justify="right" if right else "left", no_wrap=True, overflow="ellipsis")
        now = time.time()
        with self._lock:
            for job_id, row in self.rows.items():
                elapsed = row.seconds + (now - row.started if row.started else 0.0)
                table.add_row(
                    job_id, Text(row.status, style=_STYLE.get(row.status, "")), row.phase or "-",
                    str(row.round or "-"), f"{row.score:g}" if row.score is not None else "-",
                    str(row.calls), f"${row.cost:.4f}", duration(elapsed), row.note[:60],
                )  # fmt: skip
            header = self.header
        return Group(Text(header, style="bold"), table)
