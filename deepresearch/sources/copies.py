"""Near-duplicate main texts: a syndicated or mirrored article is one source counted once.

A text becomes shingles (runs of `SHINGLE` word tokens, normalised as quotes are: NFKC, case-folded,
markdown link targets dropped; a CJK character is a token) and a bottom-k sketch: the `SKETCH`
smallest 64-bit hashes of its shingles. Two sketches estimate the Jaccard similarity of the shingle
sets (exactly, when both texts have fewer than `SKETCH` shingles). Only main text is sketched (what
the extractor kept, not the page's navigation), and texts shorter than `MIN_SHINGLES` are never
called copies: too little text to tell a copy from a template.

`CopyIndex` finds candidates through an inverted index of sketch hashes, so checking one new text
against n earlier ones costs about the number of hashes it shares with them, not n comparisons.
"""

from __future__ import annotations

import hashlib
import heapq
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepresearch.core.files import append_jsonl, read_jsonl
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


class SketchFile:
    """`.deepresearch/sketches.jsonl`: each archived source's sketch, one JSON line per source,
    appended by the registry under its lock (kept apart from the registry: it is read only when a
    new source is registered)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def index(self) -> CopyIndex:
        """Every sketch recorded so far, indexed."""
        index = CopyIndex()
        for data in read_jsonl(self.path):  # a line cut short by a killed process is skipped
            try:
                index.add(str(data["id"]), Sketch.from_dict(data))
            except (KeyError, TypeError, ValueError):
                continue  # not a sketch line
        return index

    def append(self, source_id: str, item: Sketch) -> None:
        """Record a new source's sketch."""
        append_jsonl(self.path, {"id": source_id, **item.to_dict()})
