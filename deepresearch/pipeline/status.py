"""A run as seen from outside: what the live display and `deepresearch status` show.

The ui layer renders a `RunView` and never opens the workspace's files itself: every read of
task.md, its snapshots, the source registry, the lock and the agents' logs happens here.

Read-only by design: no lock is taken, nothing is written. task.md is replaced atomically by the
orchestrator, but a person may be halfway through an edit, so an unreadable task.md falls back to
the newest snapshot that parses, and then to the events alone.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from deepresearch.core.errors import StateError
from deepresearch.core.eventlog import read_events
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.economy import Economy, measure_economy
from deepresearch.pipeline.progress import RunProgress, fold
from deepresearch.sources.registry import SourceRegistry
from deepresearch.state.lock import owner_alive, read_owner
from deepresearch.state.model import TaskDoc, Verified
from deepresearch.state.parser import parse_task_md
from deepresearch.state.questions import is_follow_up
from deepresearch.state.store import StateStore

_READ_ATTEMPTS = 3
_LOG_TAIL_BYTES = 4096
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")


@dataclass
class RunView:
    """One moment of a run: its events folded, its task.md, and counts read from the workspace."""

    workspace: Workspace
    progress: RunProgress
    doc: TaskDoc | None
    doc_note: str = ""  # why the doc shown is not task.md itself, when it is not
    sources_archived: int = 0
    owner_pid: int | None = None  # a live process holding the workspace lock
    now: float = 0.0
    economy: Economy | None = None  # a follow-up's: spent on the current question, reused from earlier ones
    measures: dict[str, int] = field(default_factory=dict)  # the latest report's (knowledge.json)

    @property
    def facts_verified(self) -> int:
        """Facts whose quote was found in the archived source."""
        return sum(f.verified is Verified.YES for f in self.doc.facts) if self.doc else 0

    @property
    def report_path(self) -> str | None:
        """report.md's path when the run has written one."""
        return str(self.workspace.report_md) if self.workspace.report_md.is_file() else None

    def last_log_line(self, label: str, width: int = 90) -> str:
        """The last line an agent wrote to its log (see `last_log_line`)."""
        return last_log_line(self.workspace.log_file(label), width)

    def elapsed(self, since: float | None, until: float | None = None) -> float | None:
        """Seconds from `since` to `until` (default: now), or None when `since` is unknown."""
        return None if since is None else max(0.0, (until or self.now) - since)


def read_doc(workspace: Workspace) -> tuple[TaskDoc | None, str]:
    """task.md (or the newest good snapshot when task.md cannot be read right now) and a note."""
    store = StateStore(workspace)
    problem = ""
    for attempt in range(_READ_ATTEMPTS):
        try:
            return store.load(), ""
        except StateError as exc:
            if not store.exists() and not store.snapshots():
                return None, ""
            problem = str(exc).splitlines()[0]
        except (OSError, UnicodeDecodeError) as exc:
            problem = str(exc)
        time.sleep(0.05 * (attempt + 1))  # a rename or an editor's save may be under way
    snapshot = store.last_good_snapshot()
    if snapshot is None:
        return None, f"task.md cannot be read ({problem})"
    doc = _parse_snapshot(workspace, snapshot)
    return doc, f"task.md cannot be read right now ({problem}); showing {workspace.relative(snapshot)}"


def task_md_error(workspace: Workspace) -> StateError | None:
    """Why the workspace's task.md does not parse or validate (naming its line), or None when it
    does or is absent."""
    store = StateStore(workspace)
    if not store.exists():
        return None
    try:
        store.load()
    except StateError as exc:
        return exc
    return None


def _parse_snapshot(workspace: Workspace, snapshot: Path) -> TaskDoc | None:
    try:
        return parse_task_md(snapshot.read_text(encoding="utf-8"), path=workspace.relative(snapshot))
    except (StateError, OSError, UnicodeDecodeError):
        return None


def lock_holder(workspace: Workspace) -> int | None:
    """The PID of a live deepresearch process holding the workspace, or None."""
    owner = read_owner(workspace.lock_file)
    return owner.pid if owner is not None and owner_alive(owner) else None


def count_archived(workspace: Workspace) -> int:
    """Sources archived so far, from the source registry (read-only: takes no lock, writes nothing)."""
    registry = SourceRegistry(workspace, read_only=True)
    try:
        return registry.count()
    except (OSError, sqlite3.Error):
        return 0
    finally:
        registry.close()


def last_log_line(path: Path, width: int = 90) -> str:
    """The last non-empty line of an agent's log, without terminal escapes, cut to `width`."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - _LOG_TAIL_BYTES))
            tail = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    for line in reversed(tail.splitlines()):
        clean = _CONTROL.sub("", line).strip()
        if clean and not clean.startswith("=== "):  # the runner's own markers: command, exit status
            return clean if len(clean) <= width else clean[: width - 1] + "…"
    return ""


class WorkspaceReader:
    """Re-reads a workspace for a display that polls it: task.md only when it changed, the registry
    every time (both cheap), without taking any lock."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._doc: TaskDoc | None = None
        self._note = ""
        self._key: tuple[int, int] | None = None

    def history(self) -> RunProgress:
        """The run's events so far (logs/events.jsonl) folded: a resumed run shows its past too."""
        return fold(read_events(self.workspace))

    def read(self) -> tuple[TaskDoc | None, str, int]:
        """(task.md or its newest good snapshot, a note when it is not task.md, sources archived)."""
        try:
            stat = self.workspace.task_md.stat()
            key: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            key = None
        if key != self._key:
            self._doc, self._note = read_doc(self.workspace)
            self._key = key
        return self._doc, self._note, count_archived(self.workspace)


def report_measures(workspace: Workspace) -> dict[str, int]:
    """The latest report's measures, as knowledge.json records them ({} before there is one)."""
    try:
        data = json.loads(workspace.knowledge_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = data.get("measures") if isinstance(data, dict) else None
    return {str(k): v for k, v in found.items() if isinstance(v, int)} if isinstance(found, dict) else {}


def load_view(workspace: Workspace, progress: RunProgress | None = None) -> RunView:
    """A view of the run in `workspace`; `progress` defaults to its logs/events.jsonl folded."""
    doc, note = read_doc(workspace)
    return RunView(
        workspace=workspace,
        progress=progress if progress is not None else fold(read_events(workspace)),
        doc=doc,
        doc_note=note,
        sources_archived=count_archived(workspace),
        owner_pid=lock_holder(workspace),
        now=time.time(),
        economy=measure_economy(workspace, doc) if doc is not None and is_follow_up(doc) else None,
        measures=report_measures(workspace) if workspace.report_md.is_file() else {},
    )
