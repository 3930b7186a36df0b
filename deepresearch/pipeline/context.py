"""What every phase needs: the workspace, config, state store, agent runner, event sink, clock."""

from __future__ import annotations

import shlex
import time
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

# How long an edit that does not parse is watched for more writes (an editor saving in place).
EDIT_SETTLE_SECONDS = 0.25
EDIT_SETTLE_TRIES = 8


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
        on_disk = self._on_disk()
        if on_disk == self.written:
            return False
        try:
            edited, on_disk = self._settled_edit(on_disk)
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

    def _on_disk(self) -> str:
        try:
            return self.store.path.read_text(encoding="utf-8")
        except (FileNotFoundError, UnicodeDecodeError):
            return ""

    def _settled_edit(self, text: str) -> tuple[TaskDoc, str]:
        """The edit and its text, parsed once the file has stopped changing: an editor that writes
        task.md in place can be read half-way (empty, or cut short), so an edit that does not parse is
        read again while it still changes; one that stays the same is the person's."""
        for _ in range(EDIT_SETTLE_TRIES):
            try:
                return self.store.parse(text, previous=self.doc), text
            except StateError:
                time.sleep(EDIT_SETTLE_SECONDS)
                again = self._on_disk()
                if again == text:
                    break
                text = again
        # The same text twice: the person's. Read by the store, which names an unreadable file as such.
        return self.store.load(previous=self.doc), text

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
