"""The live terminal view of a run: a thread-safe event sink redrawn by rich at a fixed rate.

Events only update a `RunProgress` under a lock (cheap, whatever thread sends them); rich's own
refresh thread draws the view a few times a second, reading task.md, the source registry and the
agents' logs at most once a second. So the display never slows the run down, however many events.
"""

from __future__ import annotations

import copy
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

from rich.console import Console, RenderableType
from rich.live import Live
from rich.text import Text

from deepresearch.core.events import Event, Notice, RunFinished
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.status import RunView, WorkspaceReader
from deepresearch.state.model import TaskDoc
from deepresearch.ui.render import render_summary, render_view

REFRESH_PER_SECOND = 4.0
READ_INTERVAL = 1.0  # seconds between reads of task.md and the registry


class LiveDisplay:
    """Rich live progress for a terminal; `quiet` shows only warnings and the final summary.

    Use as a context manager around the run; `paused()` stops drawing while the terminal is
    needed for questions (events keep being recorded meanwhile).
    """

    def __init__(
        self,
        workspace: Workspace,
        console: Console | None = None,
        quiet: bool = False,
        refresh_per_second: float = REFRESH_PER_SECOND,
    ) -> None:
        self.workspace = workspace
        self.console = console or Console()
        self.quiet = quiet
        self.refresh_per_second = refresh_per_second
        self.reader = WorkspaceReader(workspace)
        self.progress = self.reader.history()
        self.finished = False
        self._lock = threading.Lock()  # guards progress and finished
        self._draw_lock = threading.RLock()  # guards the Live object
        self._read_lock = threading.Lock()  # guards what was read from the workspace
        self._live: Live | None = None
        self._doc: TaskDoc | None = None
        self._doc_note = ""
        self._archived = 0
        self._read_at = 0.0

    def __call__(self, event: Event) -> None:
        data = event.to_dict()
        with self._lock:
            self.progress.apply(data)
        if isinstance(event, Notice) and event.level == "warning" and self.quiet:
            self.console.print(Text(f"warning: {event.message}", style="yellow"))
        if isinstance(event, RunFinished):
            self._finish()

    def __enter__(self) -> LiveDisplay:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        was_drawing = self.stop()
        if was_drawing and not self.finished:
            self.console.print(self.render())  # leave the last state on screen above the error

    def start(self) -> None:
        """Start drawing (no-op when quiet, finished or already drawing)."""
        with self._draw_lock:
            if self.quiet or self.finished or self._live is not None:
                return
            self._live = Live(
                console=self.console,
                get_renderable=self.render,
                refresh_per_second=self.refresh_per_second,
                transient=True,
                redirect_stderr=False,
            )
            self._live.start(refresh=True)

    def stop(self) -> bool:
        """Stop drawing and erase the view; True when it was drawing."""
        with self._draw_lock:
            live, self._live = self._live, None
        if live is None:
            return False
        live.stop()
        return True

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Hand the terminal to questions and prompts, then resume drawing."""
        was_drawing = self.stop()
        try:
            yield
        finally:
            if was_drawing:
                self.start()

    def view(self) -> RunView:
        """A consistent copy of the current state, with task.md re-read when it changed."""
        with self._lock:
            progress = copy.deepcopy(self.progress)
        self._read_workspace()
        with self._read_lock:
            doc, note, archived = self._doc, self._doc_note, self._archived
        return RunView(
            workspace=self.workspace,
            progress=progress,
            doc=doc,
            doc_note=note,
            sources_archived=archived,
            owner_pid=None if self.finished else os.getpid(),
            now=time.time(),
        )

    def render(self) -> RenderableType:
        """The view as drawn now (rich calls this from its refresh thread)."""
        return render_view(self.view())

    def _read_workspace(self) -> None:
        with self._read_lock:
            if self._read_at and time.monotonic() - self._read_at < READ_INTERVAL:
                return
            self._read_at = time.monotonic()
            self._doc, self._doc_note, self._archived = self.reader.read()

    def _finish(self) -> None:
        with self._lock:
            self.finished = True
        self.stop()
        with self._read_lock:
            self._read_at = 0.0  # the final view reads the final task.md
        view = self.view()
        self.console.print(render_summary(view) if self.quiet else render_view(view, with_summary=True))
