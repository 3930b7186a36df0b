"""What every phase needs: the workspace, config, state store, agent runner, event sink, clock."""

from __future__ import annotations

import shlex
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from deepresearch.agents.runner import AgentRunner
from deepresearch.config import Config
from deepresearch.events import EventSink
from deepresearch.state.model import TaskDoc
from deepresearch.state.store import StateStore
from deepresearch.workspace import Workspace


def utc_now() -> datetime:
    """The current time in UTC (the one clock the pipeline reads; tests replace it)."""
    return datetime.now(UTC)


@dataclass
class RunContext:
    """Shared by the phases of one run. `doc` is mutated only on the orchestrator's thread."""

    workspace: Workspace
    config: Config
    store: StateStore
    runner: AgentRunner
    sink: EventSink
    doc: TaskDoc
    clock: Callable[[], datetime] = utc_now
    started: float = field(default_factory=time.monotonic)

    def save(self, phase: str) -> None:
        """Write task.md (atomic, with a snapshot named after the phase)."""
        self.store.save(self.doc, phase)

    @property
    def today(self) -> str:
        return self.clock().date().isoformat()

    def cli_command(self, sub: str) -> str:
        """How an agent calls a deepresearch subcommand (the installed script, else this Python)."""
        script = shutil.which("deepresearch")
        base = [script] if script else [sys.executable, "-m", "deepresearch"]
        return shlex.join([*base, sub])
