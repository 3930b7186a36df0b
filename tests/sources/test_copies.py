"""Near-duplicate main texts: sketches, the index, and the registry's copy_of (earliest published is
the original)."""

from __future__ import annotations

import random

from deepresearch.core.workspace import Workspace
from deepresearch.sources.copies import MIN_SHINGLES, CopyIndex, CopyProbe, similarity, sketch
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry
from tests.evidence_site import ARTICLE, SYNDICATION
from tests.helpers import PAGE

TEXT = "\n\n".join(ARTICLE)
WORDS = [
    "grid",
    "wind",
    "solar",
    "port",
    "cable",
    "steel",
    "turbine",
    "coast",
    "auction",
    "price",
    "demand",
    "supply",
    "line",
    "park",
]


def _random_text(seed: int, words: int = 200) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) + str(rng.randint(0, 99)) for _ in range(words))


def test_similarity_of_copies_templates_and_short_texts() -> None:
    assert similarity(sketch(TEXT), sketch(TEXT)) == 1.0
    assert similarity(sketch(TEXT), sketch(f"{TEXT}\n\n{SYNDICATION}")) >= 0.85
    # Two bulletins of one template, with another name and number, are not copies.
    e1, e2 = (
        PAGE.format(name=n, value=v, published="2025-01-01", injection="")
        for n, v in (("E1", 48), ("E2", 49))
    )
    assert similarity(sketch(e1), sketch(e2)) < 0.85
    short = "Output rose 12 percent in 2023, the operator said."
    assert sketch(short).shingles < MIN_SHINGLES and similarity(sketch(short), sketch(short)) == 0.0


def test_the_index_finds_the_copy_among_many() -> None:
    index = CopyIndex()
    for n in range(300):
        index.add(f"S{n:03d}", sketch(_random_text(n)))
    index.add("S999", sketch(TEXT))
    found = index.similar(sketch(f"{TEXT}\n\n{SYNDICATION}"), 0.85)
    assert [sid for sid, _ in found] == ["S999"]
    assert index.similar(sketch(_random_text(1000)), 0.85) == []


def _register(registry: SourceRegistry, url: str, text: str, published: str) -> SourceRecord:
    record, _ = registry.register(
        url, url, f"sha-of-{url}",
        lambda source_id: SourceRecord(url=url, id=source_id, final_url=url, published=published),
        CopyProbe(text, 0.85),
    )  # fmt: skip
    return record


def test_registry_records_copies_and_the_earliest_published_is_the_original(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)
    late = _register(registry, "https://digest.example/a", f"{TEXT}\n\n{SYNDICATION}", "2024-02-13")
    other = _register(registry, "https://other.example/b", _random_text(7), "2024-01-01")
    assert late.copy_of == "" and other.copy_of == ""
    first = _register(registry, "https://times.example/a", TEXT, "2024-02-12")
    assert first.copy_of == ""  # published first: the original, though archived after its copy
    latest = _register(registry, "https://wire.example/a", TEXT + " Updated.", "2024-03-01")
    assert latest.copy_of == first.id  # a copy of the group's original, not of the copy it resembles
    again = {r.id: r.copy_of for r in SourceRegistry(workspace).archived()}  # as read back from disk
    assert again == {late.id: first.id, other.id: "", first.id: "", latest.id: first.id}


def test_without_dates_the_first_archived_is_the_original(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)
    first = _register(registry, "https://a.example/", TEXT, "")
    second = _register(registry, "https://b.example/", f"{TEXT}\n\n{SYNDICATION}", "")
    assert (first.copy_of, second.copy_of) == ("", first.id)
