"""Index and query time of `deepresearch search --local` over N archived documents.

    python bench/local_search.py [--documents 2000] [--words 400] [--queries 100]

Writes N archives (readable text with the header code writes, a tenth of them in Japanese, some
with page markers) and their registry lines into a throw-away workspace, then measures:
1. building the index from nothing (the first `search --local` of a run pays this);
2. queries of two or three words (and CJK phrases) on the built index: median, p95, max;
3. catching up after one more archive (what each later `search --local` pays).
Prints the figures and the index size. Figures depend on the machine; nothing asserts.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deepresearch.core.workspace import Workspace
from deepresearch.sources.content import sha256_hex
from deepresearch.sources.localsearch import LocalIndex
from deepresearch.sources.positions import page_marker
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry

KANJI = "電力太陽光発風熱容量増加年報告地域市場価格需要供給技術政策研究結果分析"


def _vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(size)]


def _text(rng: random.Random, vocabulary: list[str], words: int, n: int) -> str:
    if n % 10 == 0:  # Japanese: no spaces between words
        return "\n\n".join(
            "".join(rng.choice(KANJI) for _ in range(80)) + "。" for _ in range(words // 80 + 1)
        )
    paragraphs = []
    for p in range(max(words // 60, 1)):
        if n % 4 == 0:
            paragraphs.append(page_marker(p + 1))
        sentence = " ".join(rng.choice(vocabulary) for _ in range(60))
        paragraphs.append(sentence.capitalize() + ".")
    return "\n\n".join(paragraphs)


def _archive(
    workspace: Workspace, vocabulary: list[str], words: int, n: int, rng: random.Random
) -> SourceRecord:
    """Write the n-th document's archive; its registry record."""
    source_id = f"S{n:02d}"
    body = _text(rng, vocabulary, words, n)
    markdown = f"# Document {n}\n\n- Source: {source_id}\n- URL: https://example.org/{n}\n\n---\n\n{body}\n"
    path = workspace.asset_dir("web") / f"{source_id}-example-org.md"
    path.write_text(markdown, encoding="utf-8")
    return SourceRecord(
        url=f"https://example.org/{n}", id=source_id, final_url=f"https://example.org/{n}",
        title=f"Document {n}", archive=workspace.relative(path), sha256=sha256_hex(markdown.encode()),
    )  # fmt: skip


def build(workspace: Workspace, documents: int, words: int, rng: random.Random) -> list[str]:
    """Archives and registry lines for `documents` sources; returns the vocabulary used."""
    workspace.ensure()
    vocabulary = _vocabulary(rng)
    lines = [
        json.dumps(_archive(workspace, vocabulary, words, n, rng).to_dict()) for n in range(1, documents + 1)
    ]
    # Written as an older workspace's sources.jsonl: the registry migrates it on first open.
    workspace.legacy_source_registry[0].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return vocabulary


def add_one(workspace: Workspace, vocabulary: list[str], words: int, n: int) -> None:
    """Archive and register one more document, as the tool service does."""
    record = _archive(workspace, vocabulary, words, n, random.Random(n))
    registry = SourceRegistry(workspace)
    try:
        registry.register(record.url, record.final_url, record.sha256, lambda source_id: record)
    finally:
        registry.close()


def main() -> None:
    """Print index build time, query latencies and catch-up time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--words", type=int, default=400)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(17)
    with tempfile.TemporaryDirectory() as folder:
        workspace = Workspace(Path(folder))
        vocabulary = build(workspace, args.documents, args.words, rng)
        size = sum(p.stat().st_size for p in workspace.asset_dir("web").iterdir())
        print(f"{args.documents} archives, {size / 1e6:.1f} MB of text")
        index = LocalIndex(workspace)
        start = time.perf_counter()
        indexed = index.sync()
        built = time.perf_counter() - start
        print(f"index build: {indexed} archives in {built:.2f} s = {indexed / built:.0f} archives/s; "
              f"index file {index.path.stat().st_size / 1e6:.1f} MB")  # fmt: skip
        queries = [" ".join(rng.sample(vocabulary, rng.choice((2, 3)))) for _ in range(args.queries)]
        queries += ["".join(rng.sample(KANJI, 3)) for _ in range(args.queries // 5)]
        latencies = []
        hits = 0
        for query in queries:
            start = time.perf_counter()
            hits += len(index.search(query, k=10).hits)
            latencies.append((time.perf_counter() - start) * 1000)
        latencies.sort()
        p95 = latencies[int(len(latencies) * 0.95) - 1]
        print(f"query (k=10, {len(queries)} queries, incl. {args.queries // 5} CJK): median "
              f"{statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms; "
              f"{hits / len(queries):.1f} hits per query")  # fmt: skip
        add_one(workspace, vocabulary, args.words, args.documents + 1)
        start = time.perf_counter()
        caught_up = index.sync()
        print(
            f"catch-up after one new archive: {caught_up} indexed in {(time.perf_counter() - start) * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
