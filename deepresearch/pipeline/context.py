"""What every phase needs: the workspace, config, state store, agent runner, event sink, clock."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from deepresearch.agents.runner import AgentRunner
from deepresearch.core.budget import Budget
from deepresearch.core.clock import utc_now
from deepresearch.core.commands import tool_commands
from deepresearch.core.config import Config
from deepresearch.core.errors import StateError
from deepresearch.core.events import EventSink, Notice
from deepresearch.core.workspace import Workspace
from deepresearch.service.server import ToolService
from deepresearch.state.model import TaskDoc
from deepresearch.state.store import StateStore


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
    written: str = ""  # task.md as this run last saved (or loaded) it: anything else is a person's edit
    tools: ToolService | None = None  # the run's tool service (search and archive, one browser)

    def save(self, phase: str) -> None:
        """Write task.md (atomic, with a snapshot named after the phase)."""
        snapshot = self.store.save(self.doc, phase)
        # The snapshot holds exactly what was written; task.md itself may already carry an edit.
        self.written = snapshot.read_text(encoding="utf-8")

    def refresh(self) -> bool:
        """Adopt a person's edit of task.md made since the last save (True if there was one).

        The edit is parsed and validated, including the status changes a person may make; a bad
        edit raises StateError naming the line, and the run stops with nothing lost."""
        try:
            on_disk = self.store.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            on_disk = ""
        if on_disk == self.written:
            return False
        try:
            edited = self.store.load(previous=self.doc)
        except StateError as exc:
            good = self.store.last_good_snapshot()
            raise StateError(
                f"{exc.detail} (task.md was edited during the run; the run is paused)",
                exc.path,
                exc.line,
                hint="fix that line and run the same command again to continue"
                + (f"; the last good version is {self.workspace.relative(good)}" if good else ""),
            ) from exc
        self.doc = edited
        self.written = on_disk
        self.sink(Notice("picked up your edit of task.md"))
        return True

    @property
    def budget(self) -> Budget:
        """The run's budget (shared with the agent runner)."""
        return self.runner.budget

    @property
    def today(self) -> str:
        return self.clock().date().isoformat()

    def tool_command(self, tool: str) -> str:
        """How an agent runs `deepresearch search`, `archive` or `check`: the workspace's tool
        script (core.commands), the one command its CLI's rules allow for that tool."""
        commands = tool_commands(self.workspace)
        return shlex.quote(str(getattr(commands, tool)))
