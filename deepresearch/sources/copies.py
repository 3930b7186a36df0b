"""Near-duplicate main texts: a syndicated or mirrored article is one source counted once.

A text becomes shingles (runs of `SHINGLE` word tokens, normalised as quotes are: NFKC, case-folded,
markdown link targets dropped; a CJK character is a token) and a bottom-k sketch: the `SKETCH`
smallest 64-bit hashes of its shingles. Two sketches estimate the Jaccard similarity of the shingle
sets (exactly, when both texts have fewer than `SKETCH` shingles). Only main text is sketched (what
the extractor kept, not the page's navigation), and texts shorter than `MIN_SHINGLES` are never
called copies: too little text to tell a copy from a template.

`CopyIndex` (in memory) and `SketchTable` (the registry's database) find candidates through an
inverted index of sketch hashes, so checking one new text against n earlier ones costs about the
number of hashes it shares with them, not n comparisons.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import sqlite3
from collections import Counter
from dataclasses import dataclass
from typing import Any

from deepresearch.sources.quotes import tokens

SHINGLE = 5
SKETCH = 128
MIN_SHINGLES = 40


@dataclass(frozen=True)
class Sketch:
    """The smallest shingle hashes of a text (sorted) and how many distinct shingles it has."""

    hashes: tuple[int, ...]
    shingles: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"hashes": list(self.hashes), "shingles": self.shingles}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Sketch:
        """From `to_dict()` output."""
        return cls(tuple(int(h) for h in data.get("hashes", [])), int(data.get("shingles", 0)))


def _hash(shingle: str) -> int:
    return int.from_bytes(hashlib.blake2b(shingle.encode("utf-8"), digest_size=8).digest(), "big")


def sketch(text: str) -> Sketch:
    """The bottom-k sketch of a text's shingles."""
    words = tokens(text)
    shingles = {" ".join(words[i : i + SHINGLE]) for i in range(max(len(words) - SHINGLE + 1, 0))}
    hashes = heapq.nsmallest(SKETCH, {_hash(s) for s in shingles})
    return Sketch(tuple(sorted(hashes)), len(shingles))


def similarity(a: Sketch, b: Sketch) -> float:
    """Estimated Jaccard similarity of the two shingle sets (0 when either is too short to judge)."""
    if min(a.shingles, b.shingles) < MIN_SHINGLES:
        return 0.0
    union = heapq.nsmallest(SKETCH, set(a.hashes) | set(b.hashes))
    if not union:
        return 0.0
    both = set(a.hashes) & set(b.hashes)
    return sum(1 for h in union if h in both) / len(union)


class CopyIndex:
    """Sketches by source ID, with an inverted index for finding near-duplicates of a new text."""

    def __init__(self) -> None:
        self.sketches: dict[str, Sketch] = {}
        self._postings: dict[int, list[str]] = {}

    def add(self, source_id: str, item: Sketch) -> None:
        """Index a source's sketch (a second sketch for the same ID is ignored)."""
        if source_id in self.sketches or item.shingles < MIN_SHINGLES:
            return
        self.sketches[source_id] = item
        for h in item.hashes:
            self._postings.setdefault(h, []).append(source_id)

    def similar(self, item: Sketch, threshold: float) -> list[tuple[str, float]]:
        """Indexed sources whose similarity to `item` is at least `threshold`, most similar first."""
        if item.shingles < MIN_SHINGLES:
            return []
        shared: Counter[str] = Counter()
        for h in item.hashes:
            shared.update(self._postings.get(h, ()))
        # A pair at similarity J shares about 2J/(1+J) of its sketch: fewer than J/2 cannot reach J.
        floor = threshold * len(item.hashes) / 2
        found = [(sid, similarity(item, self.sketches[sid])) for sid, n in shared.items() if n >= floor]
        return sorted(((sid, s) for sid, s in found if s >= threshold), key=lambda x: (-x[1], x[0]))


@dataclass(frozen=True)
class CopyProbe:
    """What the registry needs to judge whether a new source copies an earlier one."""

    text: str  # the main text (not the page's navigation)
    threshold: float  # `copy_threshold`: the similarity from which a text counts as a copy


SKETCH_SCHEMA = """
CREATE TABLE IF NOT EXISTS sketches (id TEXT PRIMARY KEY, shingles INTEGER NOT NULL, hashes TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sketch_hashes (hash INTEGER NOT NULL, id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sketch_hashes_by_hash ON sketch_hashes(hash);
"""
_SIGNED = 1 << 63  # SQLite integers are signed 64-bit: a hash at or above 2**63 is stored shifted


def _stored(h: int) -> int:
    return h - (1 << 64) if h >= _SIGNED else h


class SketchTable:
    """Each archived source's sketch in the registry's database (registry_db.py), with the same
    inverted index as CopyIndex as a table: adding a sketch adds its rows, and finding the copies of
    a new text reads only the rows of its own hashes, however many sources there are."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def add(self, source_id: str, item: Sketch) -> None:
        """Record a source's sketch (texts too short to judge, and a second sketch of an ID, are not)."""
        if item.shingles < MIN_SHINGLES:
            return
        exists = self.db.execute("SELECT 1 FROM sketches WHERE id = ?", (source_id,)).fetchone()
        if exists is not None:
            return
        self.db.execute(
            "INSERT INTO sketches (id, shingles, hashes) VALUES (?, ?, ?)",
            (source_id, item.shingles, json.dumps(item.hashes)),
        )
        self.db.executemany(
            "INSERT INTO sketch_hashes (hash, id) VALUES (?, ?)",
            [(_stored(h), source_id) for h in item.hashes],
        )

    def similar(self, item: Sketch, threshold: float) -> list[tuple[str, float]]:
        """Recorded sources whose similarity to `item` is at least `threshold`, most similar first."""
        if item.shingles < MIN_SHINGLES or not item.hashes:
            return []
        marks = ",".join("?" * len(item.hashes))
        floor = threshold * len(item.hashes) / 2  # as in CopyIndex.similar
        rows = self.db.execute(
            f"SELECT s.id, s.shingles, s.hashes FROM sketches s JOIN (SELECT id FROM sketch_hashes "
            f"WHERE hash IN ({marks}) GROUP BY id HAVING COUNT(*) >= ?) c ON c.id = s.id",
            [*(_stored(h) for h in item.hashes), floor],
        ).fetchall()
        found = [
            (sid, similarity(item, Sketch(tuple(json.loads(hashes)), shingles)))
            for sid, shingles, hashes in rows
        ]
        return sorted(((sid, s) for sid, s in found if s >= threshold), key=lambda x: (-x[1], x[0]))
