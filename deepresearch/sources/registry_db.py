"""The source registry's storage: `.deepresearch/sources.db`, one SQLite file (docs/architecture.md:
The workspace).

Tables: `sources` (every record, archived or failed, in registration order; the record itself as
JSON beside the indexed columns), `urls` (each normalised URL that leads to an archived source: as
asked, after redirects, or an alias found by content; a URL may lead to several archives over
time, the newest first), `uses` (what executor tasks asked for), and the copy sketches
(copies.py). Lookups by URL, content hash, ID and task are indexed, so they cost the same at 100
sources as at 10,000.

A workspace made before the database holds `sources.jsonl` (and `sketches.jsonl`): the first
process that opens the registry to write, or to read outside a read-only command, migrates them
into a new database file made aside and linked into place (so two processes migrating at once
leave one file). The JSON-lines files are kept as they were and no longer written. A read-only
reader (`deepresearch status`) reads them into memory instead and writes nothing of its own (the
last connection to close folds SQLite's write-ahead log into the file, whoever it belongs to).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from deepresearch.core.attribution import Attribution
from deepresearch.core.files import read_jsonl
from deepresearch.core.urls import normalize_url
from deepresearch.sources.copies import SKETCH_SCHEMA, Sketch, SketchTable
from deepresearch.sources.record import ARCHIVED, SourceRecord
from deepresearch.state.model import id_number

BUSY_TIMEOUT = 60.0  # seconds a write waits for another process's transaction (each takes ms)

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS sources (
    seq INTEGER PRIMARY KEY,
    id TEXT,
    number INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL,
    content_sha256 TEXT NOT NULL DEFAULT '',
    copy_of TEXT NOT NULL DEFAULT '',
    data TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS sources_by_id ON sources(id);
CREATE INDEX IF NOT EXISTS sources_by_number ON sources(number);
CREATE INDEX IF NOT EXISTS sources_by_content ON sources(content_sha256);
CREATE INDEX IF NOT EXISTS sources_copies ON sources(copy_of);
CREATE TABLE IF NOT EXISTS urls (seq INTEGER PRIMARY KEY, key TEXT NOT NULL, id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS urls_by_key ON urls(key, seq);
CREATE TABLE IF NOT EXISTS uses (
    seq INTEGER PRIMARY KEY,
    task TEXT NOT NULL,
    batch INTEGER,
    id TEXT NOT NULL,
    url TEXT NOT NULL,
    ok INTEGER NOT NULL,
    time TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS uses_by_task ON uses(task, seq);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
    + SKETCH_SCHEMA
)


def url_key(url: str) -> str:
    """The form a URL is indexed under (normalised: scheme and host case, tracking parameters...)."""
    return normalize_url(url) if url else ""


def record_of(row: tuple[str, str]) -> SourceRecord:
    """A record from its (data, copy_of) columns: the copy verdict may have come after it."""
    record = SourceRecord.from_dict(json.loads(row[0]))
    record.copy_of = row[1]
    return record


def insert_record(db: sqlite3.Connection, record: SourceRecord, urls: bool = True) -> None:
    """Add a record, its URLs (archived only; unless `urls` is False) and its use (when a task
    archived it)."""
    db.execute(
        "INSERT INTO sources (id, number, status, content_sha256, copy_of, data) VALUES (?, ?, ?, ?, ?, ?)",
        (
            record.id if record.ok and record.id else None,  # NULL: a failure takes no ID
            id_number(record.id) if record.ok and record.id else 0,
            record.status,
            record.content_sha256 if record.ok else "",
            record.copy_of,
            json.dumps(record.to_dict(), ensure_ascii=False),
        ),
    )
    if urls and record.ok and record.id:
        for url in dict.fromkeys(u for u in (record.url, record.final_url) if u):
            insert_url(db, url, record.id)
    if record.task:
        insert_use(
            db, Attribution(record.task, record.batch), record.id, record.url, record.ok, record.fetched
        )


def insert_url(db: sqlite3.Connection, url: str, source_id: str) -> None:
    """Say that `url` leads to `source_id` (the newest such line wins a lookup)."""
    db.execute("INSERT INTO urls (key, id) VALUES (?, ?)", (url_key(url), source_id))


def insert_use(
    db: sqlite3.Connection, who: Attribution, source_id: str, url: str, ok: bool, time: str
) -> None:
    """Note that task `who` asked for `url` (archived as `source_id`, or failed)."""
    db.execute(
        "INSERT INTO uses (task, batch, id, url, ok, time) VALUES (?, ?, ?, ?, ?, ?)",
        (who.task, who.batch, source_id, url, int(ok), time),
    )


class RegistryDB:
    """One connection to the registry's database, shared by the threads of a process (serialised:
    every statement takes milliseconds). Reads never create the file; writes create it."""

    def __init__(self, path: Path, legacy: Path, legacy_sketches: Path, read_only: bool = False) -> None:
        self.path = path
        self.legacy = legacy
        self.legacy_sketches = legacy_sketches
        self.read_only = read_only
        self._mutex = threading.RLock()
        self._file: sqlite3.Connection | None = None
        self._memory: sqlite3.Connection | None = None

    @contextlib.contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """A connection to read from (an empty or legacy copy in memory when there is no file yet)."""
        with self._mutex:
            yield self._connection(write=False)

    @contextlib.contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One transaction: everything in the block is written, or nothing is."""
        if self.read_only:
            raise RuntimeError("this registry was opened read-only")
        with self._mutex:
            db = self._connection(write=True)
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def close(self) -> None:
        """Close the connections (a later use opens them again)."""
        with self._mutex:
            for db in (self._file, self._memory):
                if db is not None:
                    db.close()
            self._file = self._memory = None

    def _connection(self, write: bool) -> sqlite3.Connection:
        if self._file is not None:
            return self._file
        if self.path.exists() or (not self.read_only and (write or self.legacy.exists())):
            if not self.path.exists():
                self._create()
            self._file = _open(self.path)
            if self._memory is not None:
                self._memory.close()
                self._memory = None
            return self._file
        if self._memory is None:  # nothing on disk yet, or a read-only look at an older workspace
            self._memory = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            self._memory.executescript(SCHEMA)
            if self.legacy.exists():
                migrate(self._memory, self.legacy, self.legacy_sketches)
        return self._memory

    def _create(self) -> None:
        """Make the database aside (migrating the JSON lines if any) and link it into place."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        aside = self.path.with_name(f".{self.path.stem}-{secrets.token_hex(4)}.db")
        try:
            db = _open(aside)
            try:
                db.execute("BEGIN IMMEDIATE")
                if self.legacy.exists():
                    migrate(db, self.legacy, self.legacy_sketches)
                db.execute("COMMIT")
            finally:
                db.close()
            with contextlib.suppress(FileExistsError):  # another process made it first: use theirs
                os.link(aside, self.path)
        finally:
            aside.unlink(missing_ok=True)


def _open(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT, check_same_thread=False, isolation_level=None)
    # Write-ahead log: readers never wait for a writer, and a commit appends without an fsync (a
    # power cut may lose the last registrations, never the file; the files they name are not
    # flushed either, and task.md, saved durably, keeps every ID it cites from being reused).
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.executescript(SCHEMA)
    return db


def migrate(db: sqlite3.Connection, legacy: Path, legacy_sketches: Path) -> None:
    """Replay an older workspace's `sources.jsonl` and `sketches.jsonl` into `db`, with their rules:
    the first archived record of an ID and the first source a URL or a hash led to are the ones kept."""
    for data in read_jsonl(legacy):  # a line cut short by a killed process is skipped
        _migrate_line(db, data)
    table = SketchTable(db)
    for data in read_jsonl(legacy_sketches):
        with contextlib.suppress(KeyError, TypeError, ValueError):  # not a sketch line
            table.add(str(data["id"]), Sketch.from_dict(data))


def _archived(db: sqlite3.Connection, source_id: str) -> bool:
    found = db.execute("SELECT 1 FROM sources WHERE id = ?", (source_id,)).fetchone()
    return found is not None


def _migrate_line(db: sqlite3.Connection, data: dict[str, Any]) -> None:
    if "copy" in data:
        copied, original = str(data.get("copy", "")), str(data.get("of", ""))
        if _archived(db, copied) and _archived(db, original):
            db.execute("UPDATE sources SET copy_of = ? WHERE id = ?", (original, copied))
        return
    if "use" in data:
        who = Attribution.of(data)
        insert_use(db, who, str(data.get("id", "")), str(data["use"]), True, str(data.get("time", "")))
        return
    if "alias" in data:
        target = str(data.get("id", ""))
        if _archived(db, target):
            _first_url(db, str(data["alias"]), target)
        return
    record = SourceRecord.from_dict(data)
    if record.status == ARCHIVED and record.id and _archived(db, record.id):
        if record.task:  # a second record of an ID (never written): its use still counts
            who = Attribution(record.task, record.batch)
            insert_use(db, who, record.id, record.url, record.ok, record.fetched)
        return
    if record.renews:  # a newer archive of a stale source: it answers for its URLs from now on
        insert_record(db, record)
        return
    insert_record(db, record, urls=False)
    if record.ok and record.id:  # a URL that already led to an earlier source keeps leading there
        for url in dict.fromkeys(u for u in (record.url, record.final_url) if u):
            _first_url(db, url, record.id)


def _url_known(db: sqlite3.Connection, url: str) -> bool:
    return db.execute("SELECT 1 FROM urls WHERE key = ?", (url_key(url),)).fetchone() is not None


def _first_url(db: sqlite3.Connection, url: str, source_id: str) -> None:
    if not _url_known(db, url):
        insert_url(db, url, source_id)
