"""Load and save a workspace's task.md: validated reads, atomic writes, a snapshot per phase."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from deepresearch.core.clock import iso_seconds, utc_now
from deepresearch.core.errors import StateError
from deepresearch.core.files import atomic_write
from deepresearch.core.workspace import Workspace
from deepresearch.state.model import TaskDoc
from deepresearch.state.parser import Parsed, parse_task_md, parse_with_lines
from deepresearch.state.validate import check_transitions, raise_problems, validate_doc
from deepresearch.state.writer import render_task_md

_SNAPSHOT = re.compile(r"([0-9]{4,})-([a-z0-9-]+)\.md")


class StateStore:
    """task.md of one workspace. Only the orchestrator saves; people may edit between phases."""

    def __init__(self, workspace: Workspace, clock: Callable[[], datetime] = utc_now) -> None:
        self.workspace = workspace
        self.clock = clock

    @property
    def path(self) -> Path:
        return self.workspace.task_md

    def exists(self) -> bool:
        """Whether the workspace has a task.md."""
        return self.path.is_file()

    def load(self, previous: TaskDoc | None = None) -> TaskDoc:
        """Read, parse and validate task.md; StateError names the line of any problem.

        With `previous` (the document as last saved), also refuse status changes a person may not
        make between phases, such as done → pending (see `validate.ALLOWED_TRANSITIONS`)."""
        return self.parse(self._text(self.path), previous)

    def parse(self, text: str, previous: TaskDoc | None = None) -> TaskDoc:
        """`load` of text already read from task.md."""
        parsed = self._valid(text, self.path)
        if previous is not None:
            raise_problems(check_transitions(previous, parsed.doc, parsed.lines))
        return parsed.doc

    def save(self, doc: TaskDoc, phase: str) -> Path:
        """Stamp `updated`, write task.md atomically and a snapshot for `phase`; return the snapshot."""
        stamp = iso_seconds(self.clock())
        doc.front.updated = stamp
        if not doc.front.created:
            doc.front.created = stamp
        text = render_task_md(doc)
        # Refuse to write what could not be read back: a bug must not cost the person their run.
        parse_task_md(text, path=f"{self.path.name} (not saved)")
        atomic_write(self.path, text)
        snapshot = self.workspace.snapshots / f"{self._next_number():04d}-{_slug(phase)}.md"
        atomic_write(snapshot, text)
        return snapshot

    def snapshots(self) -> list[Path]:
        """Every snapshot, oldest first."""
        if not self.workspace.snapshots.is_dir():
            return []
        found = [(m, p) for p in self.workspace.snapshots.iterdir() if (m := _SNAPSHOT.fullmatch(p.name))]
        return [path for match, path in sorted(found, key=lambda item: int(item[0].group(1)))]

    def last_good_snapshot(self) -> Path | None:
        """The newest snapshot that still parses and validates, or None."""
        for snapshot in reversed(self.snapshots()):
            try:
                self._read(snapshot)
            except (StateError, OSError, UnicodeDecodeError):
                continue
            return snapshot
        return None

    def _read(self, path: Path) -> Parsed:
        return self._valid(self._text(path), path)

    def _valid(self, text: str, path: Path) -> Parsed:
        """`text` parsed and validated; StateError names `path` and the line of any problem."""
        parsed = parse_with_lines(text, path=display_path(path))
        raise_problems(validate_doc(parsed.doc, parsed.lines))
        return parsed

    def _text(self, path: Path) -> str:
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise StateError(
                "not found", display_path(path), hint="start a new run, or pass the run's folder with -o"
            ) from None
        except UnicodeDecodeError as exc:
            raise StateError(
                f"is not UTF-8 text ({exc.reason} at byte {exc.start})", display_path(path)
            ) from None

    def _next_number(self) -> int:
        existing = self.snapshots()
        match = _SNAPSHOT.fullmatch(existing[-1].name) if existing else None
        return int(match.group(1)) + 1 if match else 1


def display_path(path: Path) -> str:
    """`path` as messages show it: relative to the current folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def _slug(phase: str) -> str:
    slug = "-".join(re.findall(r"[a-z0-9]+", phase.lower()))
    return slug or "state"
