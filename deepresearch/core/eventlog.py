"""The run's event log: `logs/events.jsonl` (machine-readable) and `logs/orchestrator.log` (readable)."""

from __future__ import annotations

import threading
import time

from deepresearch.core.events import Event
from deepresearch.core.files import append_jsonl, read_jsonl
from deepresearch.core.workspace import Workspace


def describe(event: Event) -> str:
    """One readable line for an event: its kind and its fields, compactly."""
    data = event.to_dict()
    data.pop("event")
    data.pop("ts")
    fields = " ".join(f"{k}={v}" for k, v in data.items() if v not in (None, "", [], {}))
    return f"{event.kind} {fields}".strip()


class EventLog:
    """An event sink that appends every event to both log files (thread-safe, flushed per event)."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        self.workspace.logs.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(event.ts))
        with self._lock:
            append_jsonl(self.workspace.events_jsonl, event.to_dict())
            with open(self.workspace.orchestrator_log, "a", encoding="utf-8") as log:
                log.write(f"{stamp} {describe(event)}\n")


def read_events(workspace: Workspace) -> list[dict[str, object]]:
    """Every event recorded in the workspace, oldest first (unreadable lines are skipped)."""
    return list(read_jsonl(workspace.events_jsonl))  # a line cut short by a kill is skipped
