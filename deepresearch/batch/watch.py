"""What a running job is doing, read incrementally from its logs/events.jsonl (never from the run)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from deepresearch.core.workspace import Workspace


@dataclass(frozen=True)
class Snapshot:
    """The part of a run's progress the batch table shows."""

    phase: str = ""
    round: int = 0
    score: float | None = None
    agent_calls: int = 0
    cost_usd: float = 0.0


class JobWatcher:
    """Reads only the lines appended since the last poll; a half-written last line waits."""

    def __init__(self, workdir: Path) -> None:
        self.path = Workspace(workdir).events_jsonl
        self._offset = 0
        self._phase, self._round = "", 0
        self._score: float | None = None
        self._calls, self._cost = 0, 0.0

    def poll(self) -> Snapshot:
        """The progress after every complete line written so far."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
        except OSError:
            return self._snapshot()
        complete = chunk[: chunk.rfind(b"\n") + 1]
        self._offset += len(complete)
        for line in complete.decode("utf-8", "replace").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(event, dict):
                self._apply(event)
        return self._snapshot()

    def _apply(self, event: dict[str, object]) -> None:
        kind = event.get("event")
        if kind == "phase_started":
            self._phase = str(event.get("phase", ""))
            value = event.get("round")
            self._round = value if isinstance(value, int) and value else self._round
        elif kind == "round_finished":
            score = event.get("score")
            self._score = float(score) if isinstance(score, (int, float)) else self._score
        elif kind == "agent_finished":
            self._calls += 1
            cost = event.get("cost_usd")
            self._cost += float(cost) if isinstance(cost, (int, float)) else 0.0
        elif kind == "run_finished":
            self._phase = "finished"

    def _snapshot(self) -> Snapshot:
        return Snapshot(self._phase, self._round, self._score, self._calls, round(self._cost, 6))
