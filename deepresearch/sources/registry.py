"""The workspace's source registry: the one allocator of global source IDs (docs/architecture.md:
Layers, sources).

The registry lives in `.deepresearch/sources.db` (registry_db.py: SQLite, indexed by URL, content
hash, ID and task; an older workspace's `sources.jsonl` is migrated on first open). It holds every
record (`SourceRecord`: archived, or a failure), the URLs that lead to each archived source (as
asked, after redirects, or an alias: another URL whose content was the same), the copy verdicts (a
source whose main text repeats an earlier-published one's: copies.py), and the uses: an executor
task asking for a source, new or already archived, in one of its batches. A URL may lead to several
archives over time: a stale source archived again (`renew`) keeps its earlier archive, and the
newest answers for the URL.

Several processes register at once (the run's tool service, `deepresearch archive` by hand, the
orchestrator), so IDs are allocated under an exclusive `flock` on `.deepresearch/locks/sources.lock`,
which the orchestrator also holds while it merges a task's sources into task.md; each registration
is written in one transaction. Reads and uses take no file lock. The orchestrator merges the
registry into task.md between phases; the registry only reads task.md (to skip IDs already used
there), never writes it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from deepresearch.core.attribution import Attribution
from deepresearch.core.clock import iso_seconds, utc_now
from deepresearch.core.files import file_lock
from deepresearch.core.workspace import Workspace
from deepresearch.sources.copies import CopyProbe, Sketch, SketchTable, sketch
from deepresearch.sources.record import ARCHIVED, SourceRecord
from deepresearch.sources.registry_db import (
    RegistryDB,
    insert_record,
    insert_url,
    insert_use,
    record_of,
    url_key,
)
from deepresearch.state.model import format_source_id

_SOURCE_ROW = re.compile(r"^\s*\|\s*S(\d+)\s*\|")
_COLUMNS = "data, copy_of"


@dataclass(frozen=True)
class SourceUse:
    """An executor task's archive of a source (new, or already archived), in one of its batches."""

    source_id: str
    url: str
    task: str
    batch: int | None
    ok: bool = True  # False: the fetch failed (no source ID)
    time: str = ""  # ISO 8601: when it was archived or asked for


def task_md_source_ids(task_md: Path) -> list[int]:
    """The numbers of the S-IDs in task.md's Sources table (a light read-only scan; [] if absent)."""
    try:
        text = task_md.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return []
    numbers: list[int] = []
    in_sources = False
    for line in text.splitlines():
        if line.startswith("## "):
            in_sources = line[3:].strip().lower() == "sources"
            continue
        match = _SOURCE_ROW.match(line) if in_sources else None
        if match:
            numbers.append(int(match.group(1)))
    return numbers


class SourceRegistry:
    """Reads and writes the registry; every allocation happens under the file lock. Thread-safe."""

    def __init__(self, workspace: Workspace, read_only: bool = False) -> None:
        self.workspace = workspace
        self.path = workspace.source_registry
        self.lock_path = workspace.source_registry_lock
        # read_only: never write, not even to migrate an older workspace (`deepresearch status`).
        self.db = RegistryDB(self.path, *workspace.legacy_source_registry, read_only=read_only)
        self._task_md_seen: tuple[int, int, int] | None = None
        self._task_md_highest = 0

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the registry's exclusive lock (blocks until other processes release it).

        Not reentrant: while holding it, read (`archived`, `lookup`...) but do not call `register`,
        which takes it itself and would wait forever.
        """
        with file_lock(self.lock_path):
            yield

    def close(self) -> None:
        """Close the database connection (the next use opens it again)."""
        self.db.close()

    def records(self) -> list[SourceRecord]:
        """Every record in registration order: archived ones and failures."""
        with self.db.reading() as db:
            return [record_of(row) for row in db.execute(f"SELECT {_COLUMNS} FROM sources ORDER BY seq")]

    def archived(self) -> list[SourceRecord]:
        """The archived sources, one per ID, in allocation order."""
        query = f"SELECT {_COLUMNS} FROM sources WHERE id IS NOT NULL AND status = ? ORDER BY seq"
        with self.db.reading() as db:
            return [record_of(row) for row in db.execute(query, (ARCHIVED,))]

    def copies(self) -> list[SourceRecord]:
        """The archived sources whose main text repeats an earlier-published one's (`copy_of`)."""
        query = f"SELECT {_COLUMNS} FROM sources WHERE copy_of > '' AND id IS NOT NULL ORDER BY seq"
        with self.db.reading() as db:
            return [record_of(row) for row in db.execute(query)]

    def count(self) -> int:
        """How many sources are archived."""
        with self.db.reading() as db:
            return int(db.execute("SELECT COUNT(id) FROM sources").fetchone()[0])

    def highest_id(self) -> int:
        """The number of the highest source ID allocated (0 when none)."""
        with self.db.reading() as db:
            return int(db.execute("SELECT COALESCE(MAX(number), 0) FROM sources").fetchone()[0])

    def version(self) -> int:
        """Grows with every record registered: unchanged means nothing new was archived or failed."""
        with self.db.reading() as db:
            return int(db.execute("SELECT COALESCE(MAX(seq), 0) FROM sources").fetchone()[0])

    def get(self, source_id: str) -> SourceRecord | None:
        """The archived record with this ID, or None."""
        if not source_id:
            return None
        with self.db.reading() as db:
            return _archived_by_id(db, source_id)

    def lookup(self, url: str) -> SourceRecord | None:
        """The archived record for `url` (as asked, as final URL after redirects, or an alias); of
        several archives of one URL, the newest."""
        if not url:
            return None
        with self.db.reading() as db:
            return _by_url(db, url_key(url))

    def lookup_content(self, content_sha256: str) -> SourceRecord | None:
        """The archived record whose content has this SHA-256 (the first registered), or None."""
        if not content_sha256:
            return None
        with self.db.reading() as db:
            return _by_content(db, content_sha256)

    def history(self, url: str) -> list[SourceRecord]:
        """Every archive `url` led to, oldest first (one, unless the source was archived again)."""
        query = f"SELECT {_COLUMNS} FROM sources WHERE id IN (SELECT id FROM urls WHERE key = ?) ORDER BY seq"
        with self.db.reading() as db:
            return [record_of(row) for row in db.execute(query, (url_key(url),))]

    def register(
        self,
        url: str,
        final_url: str,
        content_sha256: str,
        build: Callable[[str], SourceRecord],
        probe: CopyProbe | None = None,
    ) -> tuple[SourceRecord, bool]:
        """Under the lock: the existing record for this URL or content (False), or a new one (True).

        `build(source_id)` writes the archive files and returns the record; it runs under the lock
        so that no registered record ever points at files that are not there yet. With a `probe`,
        a new source whose main text nearly repeats an earlier one's is recorded as a copy. The
        record, its URLs, its sketch and any copy verdict are written in one transaction.
        """
        item = sketch(probe.text) if probe is not None else None  # CPU work: before the lock
        with self.locked():
            with self.db.reading() as db:
                for candidate in dict.fromkeys(u for u in (url, final_url) if u):
                    existing = _by_url(db, url_key(candidate))
                    if existing is not None:
                        return existing, False
                existing = _by_content(db, content_sha256) if content_sha256 else None
            if existing is not None:
                with self.db.writing() as db:
                    for alias in {url, final_url} - {"", existing.url, existing.final_url}:
                        insert_url(db, alias, existing.id)
                return existing, False
            record = build(format_source_id(self._next_number()))
            with self.db.writing() as db:
                flipped = None
                if item is not None and probe is not None:
                    flipped = _judge_copy(db, record, item, probe.threshold)
                insert_record(db, record)
                if flipped is not None:  # the new source was published first: it is the original
                    db.execute("UPDATE sources SET copy_of = ? WHERE id = ?", (record.id, flipped))
            return record, True

    def renew(
        self,
        stale: SourceRecord,
        is_stale: Callable[[SourceRecord], bool],
        build: Callable[[str], SourceRecord],
    ) -> tuple[SourceRecord, bool]:
        """Under the lock: a new archive of a stale source's URL, with an ID of its own (True), or the
        URL's current record when another process renewed it meanwhile (False).

        The earlier archive is kept: the facts quoted from it keep citing it. The new record names
        it (`renews`) and counts as its copy: one page archived twice is one source of support. From
        then on the URL leads to the new archive (`lookup`); `history` lists both."""
        with self.locked():
            current = self.lookup(stale.url) or stale
            if not is_stale(current):
                return current, False
            record = dataclasses.replace(
                build(format_source_id(self._next_number())), renews=current.id, copy_of=current.id
            )
            with self.db.writing() as db:
                insert_record(db, record)
            return record, True

    def _next_number(self) -> int:
        """One above the highest ID in the registry and in task.md's Sources table (call under the lock)."""
        return max(self.highest_id(), self._task_md_max()) + 1

    def _task_md_max(self) -> int:
        """task.md's highest source number, read again only when the file changed."""
        try:
            info = self.workspace.task_md.stat()
        except FileNotFoundError:
            return 0
        seen = (info.st_ino, info.st_size, info.st_mtime_ns)
        if seen != self._task_md_seen:
            self._task_md_highest = max(task_md_source_ids(self.workspace.task_md), default=0)
            self._task_md_seen = seen
        return self._task_md_highest

    def uses(self, task_id: str) -> list[SourceUse]:
        """Every archive an executor task asked for, in order (sources new or known, failures)."""
        query = "SELECT id, url, task, batch, ok, time FROM uses WHERE task = ? ORDER BY seq"
        with self.db.reading() as db:
            rows = db.execute(query, (task_id,)).fetchall()
        return [SourceUse(sid, url, task, batch, bool(ok), time) for sid, url, task, batch, ok, time in rows]

    def record_use(self, record: SourceRecord, url: str, attribution: Attribution) -> None:
        """Note that an executor task asked for a source already archived (nothing when by hand)."""
        if not attribution or not record.id:
            return
        with self.db.writing() as db:
            insert_use(db, attribution, record.id, url, True, iso_seconds(utc_now()))

    def record_failure(self, record: SourceRecord) -> None:
        """Add a failed fetch; it takes no ID, and the URL may be archived again later."""
        with self.db.writing() as db:
            insert_record(db, record)


def _by_url(db: sqlite3.Connection, key: str) -> SourceRecord | None:
    row = db.execute(
        f"SELECT {_COLUMNS} FROM sources WHERE id = (SELECT id FROM urls WHERE key = ? ORDER BY seq DESC LIMIT 1)",
        (key,),
    ).fetchone()
    return record_of(row) if row is not None else None


def _by_content(db: sqlite3.Connection, content_sha256: str) -> SourceRecord | None:
    row = db.execute(
        f"SELECT {_COLUMNS} FROM sources WHERE content_sha256 = ? ORDER BY seq LIMIT 1", (content_sha256,)
    ).fetchone()
    return record_of(row) if row is not None else None


def _judge_copy(db: sqlite3.Connection, record: SourceRecord, item: Sketch, threshold: float) -> str | None:
    """Set `record.copy_of` when its text copies an earlier source's; when the new one was published
    earlier than that text's original, return the original's ID (to become a copy)."""
    sketches = SketchTable(db)
    found = sketches.similar(item, threshold)
    sketches.add(record.id, item)
    match = next((m for sid, _ in found if (m := _archived_by_id(db, sid)) is not None), None)
    if match is None:
        return None
    original = match
    seen = {original.id}
    while original.copy_of and original.copy_of not in seen:
        earlier = _archived_by_id(db, original.copy_of)
        if earlier is None:
            break
        original = earlier
        seen.add(original.id)
    if record.published and original.published and record.published < original.published:
        return original.id
    record.copy_of = original.id
    return None


def _archived_by_id(db: sqlite3.Connection, source_id: str) -> SourceRecord | None:
    row = db.execute(f"SELECT {_COLUMNS} FROM sources WHERE id = ?", (source_id,)).fetchone()
    return record_of(row) if row is not None else None
