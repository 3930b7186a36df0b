"""`.deepresearch/batches.jsonl`: each executor task's calls and merged batches, so that a resumed run
continues a task where it stopped instead of starting its batches again.

One JSON line per fact, appended by the orchestrator's thread only (the one writer):

- `{"kind": "call", "task": "E1", "call": 2, "first_batch": 4, "started": ISO}` before a call starts;
- `{"kind": "batch", "task": "E1", "call": 2, "batch": 4, "trusted": true, "new": false, ...}` when a
  batch has been merged into task.md (task.md is saved first, so a batch line never runs ahead);
- `{"kind": "end", "task": "E1", "call": 2, "status": "done"}` when the call's output is dealt with.

A call with no end line was cut short by a crash: the next run merges what its output file already
holds (pipeline/execute.py) before it gives the task its next call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from deepresearch.core.clock import iso_seconds
from deepresearch.core.files import append_jsonl, read_jsonl
from deepresearch.core.workspace import Workspace

LOST = "lost"  # an interrupted call whose output held nothing usable: not counted against the task


@dataclass(frozen=True)
class OpenCall:
    """A call that started and never ended (its orchestrator died)."""

    call: int
    first_batch: int
    started: datetime


@dataclass
class TaskProgress:
    """One task's batches and calls so far, across sessions."""

    task_id: str
    calls: int = 0  # calls used (an interrupted call that left nothing is not counted)
    numbered: int = 0  # the highest call number given out (call numbers are never reused)
    batches: int = 0  # the number of the last merged batch
    streak: int = 0  # trusted batches in a row, at the end, that brought nothing new
    last_new: bool = True  # whether the last batch brought something (sets the next k)
    open_call: OpenCall | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # the batch lines, oldest first

    def apply_batch(self, batch: int, trusted: bool, new: bool) -> None:
        """Count one merged batch."""
        self.batches = max(self.batches, batch)
        self.last_new = new
        self.streak = self.streak + 1 if trusted and not new else 0


class TaskLedger:
    """Reads and appends `.deepresearch/batches.jsonl`."""

    def __init__(self, workspace: Workspace) -> None:
        self.path = workspace.batch_ledger

    def _lines(self) -> list[dict[str, Any]]:
        return read_jsonl(self.path)  # a line cut short by a kill: the work it described is redone

    def _append(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        append_jsonl(self.path, data)

    def progress(self, task_id: str) -> TaskProgress:
        """The task's progress, folded from its lines."""
        state = TaskProgress(task_id)
        opened: dict[int, OpenCall] = {}
        for line in self._lines():
            if line.get("task") != task_id:
                continue
            kind, call = line.get("kind"), int(line.get("call") or 0)
            if kind == "call":
                state.numbered = max(state.numbered, call)
                state.calls += 1
                started = datetime.fromisoformat(str(line.get("started")))
                opened[call] = OpenCall(call, int(line.get("first_batch") or 1), started)
            elif kind == "batch":
                state.apply_batch(
                    int(line.get("batch") or 0), bool(line.get("trusted")), bool(line.get("new"))
                )
                state.history.append(line)
            elif kind == "end":
                opened.pop(call, None)
                state.calls -= line.get("status") == LOST
        state.open_call = opened[max(opened)] if opened else None
        return state

    def call_started(self, task_id: str, call: int, first_batch: int, started: datetime) -> None:
        """Record a call about to start."""
        self._append(
            {
                "kind": "call",
                "task": task_id,
                "call": call,
                "first_batch": first_batch,
                "started": iso_seconds(started),
            }
        )

    def batch_merged(
        self, task_id: str, call: int, batch: int, trusted: bool, new: bool, reasons: list[str]
    ) -> None:
        """Record a batch merged into task.md (after task.md was saved)."""
        self._append(
            {"kind": "batch", "task": task_id, "call": call, "batch": batch, "trusted": trusted, "new": new,
             "reasons": reasons}
        )  # fmt: skip

    def call_ended(self, task_id: str, call: int, status: str) -> None:
        """Record that a call's output has been dealt with (done, failed, recovered...)."""
        self._append({"kind": "end", "task": task_id, "call": call, "status": status})
