"""`deepresearch search --local`: BM25 over everything archived in the workspace (SQLite FTS5).

The index lives in `.deepresearch/search.sqlite`. Before each query it catches up with the source
registry: an archive not indexed yet (or re-archived: another SHA-256) is cut into passages of about
`PASSAGE_WORDS` words, within one page, caption run or chapter, so a hit names its position. Text
is indexed as the quote checker reads it (NFKC, case-folded, markers dropped) with Chinese,
Japanese and Korean characters as single-character tokens, so a CJK query (a phrase of them) finds
text without spaces. Queries match all their words first, then any of them to fill up to k.
Several `search --local` processes may run at once: SQLite's own locking serialises the catch-up.
No web search is made and none is counted against the budget.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from deepresearch.core.workspace import Workspace
from deepresearch.sources.positions import segments
from deepresearch.sources.quotes import tokens
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry

PASSAGE_WORDS = 120
SNIPPET_CHARS = 400
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    source_id TEXT PRIMARY KEY, sha256 TEXT NOT NULL, title TEXT, url TEXT, archive TEXT,
    kind TEXT, provided INTEGER NOT NULL DEFAULT 0
);
CREATE VIRTUAL TABLE IF NOT EXISTS passages USING fts5(
    source_id UNINDEXED, position UNINDEXED, original UNINDEXED, title, body,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
"""


@dataclass(frozen=True)
class Hit:
    """One passage that matched: its source, where in the source, the passage, and its BM25 score."""

    id: str
    title: str
    url: str
    archive: str
    kind: str
    provided: bool
    position: str  # "p. 3", "2:03", "ch. 2 (Title)", or ""
    passage: str
    score: float  # higher is better

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class LocalOutcome:
    """What a local search found, and the index it searched."""

    query: str
    hits: list[Hit]
    indexed_now: int  # archives added to the index by this call
    documents: int  # archives in the index


def _indexable(text: str) -> str:
    return " ".join(tokens(text))


def body_of(archive_text: str) -> str:
    """An archive's text without the metadata header written above its `---` line."""
    head, sep, rest = archive_text.partition("\n---\n")
    return rest if sep and head.startswith("# ") else archive_text


def passages(text: str) -> Iterator[tuple[str, str]]:
    """(position, passage) pieces of an archive's body, each within one marked part."""
    for position, piece in segments(text):
        where = position.describe() if position else ""
        chunk: list[str] = []
        size = 0
        for paragraph in (p.strip() for p in re.split(r"\n\s*\n", piece)):
            if not paragraph:
                continue
            words = len(paragraph.split()) + len(_CJK.findall(paragraph)) // 2
            if chunk and size + words > PASSAGE_WORDS:
                yield where, "\n\n".join(chunk)
                chunk, size = [], 0
            chunk.append(paragraph)
            size += words
        if chunk:
            yield where, "\n\n".join(chunk)


def match_expression(query: str, any_word: bool = False) -> str:
    """The FTS5 query for `query`: each word quoted (no FTS syntax leaks through), a run of CJK
    characters as one phrase, `"quoted phrases"` kept; all words must match unless `any_word`."""
    terms: list[str] = []
    for phrase, word in re.findall(r'"([^"]+)"|(\S+)', query):
        words = tokens(phrase or word)
        if phrase:
            if words:
                terms.append('"' + " ".join(words) + '"')
            continue
        run: list[str] = []
        for token in [*words, ""]:
            if token and _CJK.fullmatch(token):
                run.append(token)
                continue
            if run:
                terms.append('"' + " ".join(run) + '"')
                run = []
            if token:
                terms.append(f'"{token}"')
    return (" OR " if any_word else " AND ").join(dict.fromkeys(terms))


def _snippet(passage: str, query: str) -> str:
    if len(passage) <= SNIPPET_CHARS:
        return passage
    lowered = passage.casefold()
    found = [i for w in tokens(query) if (i := lowered.find(w)) >= 0]
    start = max(min(found, default=0) - SNIPPET_CHARS // 4, 0)
    text = passage[start : start + SNIPPET_CHARS].strip()
    return ("…" if start else "") + text + ("…" if start + SNIPPET_CHARS < len(passage) else "")


class LocalIndex:
    """The workspace's passage index; `search` catches up with the registry first."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.path = workspace.private / "search.sqlite"

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=120, isolation_level=None)
        try:
            connection.executescript(_SCHEMA)
            yield connection
        finally:
            connection.close()

    def _registry_stamp(self) -> str:
        """The registry's version: it grows with every record, so unchanged means nothing new."""
        return f"v{SourceRegistry(self.workspace).version()}"

    def sync(self) -> int:
        """Index every archived source not indexed yet (or changed); the number indexed."""
        stamp = self._registry_stamp()  # taken before reading: an append after it is seen next time
        with self._connect() as db:
            seen = db.execute("SELECT value FROM meta WHERE key = 'registry'").fetchone()
            if seen is not None and seen[0] == stamp:
                return 0  # the common case: nothing archived since the last search
            records = [r for r in SourceRegistry(self.workspace).archived() if r.archive]
            db.execute("BEGIN IMMEDIATE")  # one process catches up; the others wait, then find it done
            try:
                known = dict(db.execute("SELECT source_id, sha256 FROM docs").fetchall())
                added = sum(self._add(db, r, r.id in known) for r in records if known.get(r.id) != r.sha256)
                db.execute("INSERT OR REPLACE INTO meta VALUES ('registry', ?)", (stamp,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return added

    def _add(self, db: sqlite3.Connection, record: SourceRecord, again: bool) -> bool:
        path = self.workspace.root / record.archive
        try:
            text = body_of(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            return False  # a missing archive is reported by `deepresearch check`, not here
        if again:  # re-archived: drop its old passages (a scan, but rare; new sources skip it)
            db.execute("DELETE FROM passages WHERE source_id = ?", (record.id,))
        title = _indexable(record.title)
        db.executemany(
            "INSERT INTO passages (source_id, position, original, title, body) VALUES (?, ?, ?, ?, ?)",
            [(record.id, where, piece, title, _indexable(piece)) for where, piece in passages(text)],
        )
        db.execute(
            "INSERT OR REPLACE INTO docs VALUES (?, ?, ?, ?, ?, ?, ?)",
            (record.id, record.sha256, record.title, record.final_url or record.url, record.archive,
             record.kind, int(record.provided)),
        )  # fmt: skip
        return True

    def search(self, query: str, k: int = 10) -> LocalOutcome:
        """The k best passages for `query` (BM25; the title counts twice), after catching up."""
        added = self.sync()
        hits: dict[tuple[str, str], Hit] = {}
        with self._connect() as db:
            for any_word in (False, True):
                expression = match_expression(query, any_word)
                if not expression or len(hits) >= k:
                    break
                rows = db.execute(
                    "SELECT p.source_id, p.position, p.original, d.title, d.url, d.archive, d.kind,"
                    " d.provided, bm25(passages, 0.0, 0.0, 0.0, 2.0, 1.0) AS rank"
                    " FROM passages p JOIN docs d ON d.source_id = p.source_id"
                    " WHERE passages MATCH ? ORDER BY rank LIMIT ?",
                    (expression, k),
                ).fetchall()
                for sid, where, original, title, url, archive, kind, provided, rank in rows:
                    key = (sid, original)
                    if key not in hits and len(hits) < k:
                        passage = _snippet(original, query)
                        hits[key] = Hit(sid, title, url, archive, kind, bool(provided), where, passage, -rank)
            documents = db.execute("SELECT count(*) FROM docs").fetchone()[0]
        return LocalOutcome(query, list(hits.values()), added, int(documents))


def local_search(workspace: Workspace, query: str, k: int = 10) -> LocalOutcome:
    """Search everything archived in `workspace` for `query` (see the module doc)."""
    return LocalIndex(workspace).search(query, k)


def index_path(workspace: Workspace) -> Path:
    """Where the local index is kept."""
    return LocalIndex(workspace).path
