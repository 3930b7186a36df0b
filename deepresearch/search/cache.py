"""The per-workspace search cache: the same query (same k, strategy, providers) is never paid twice."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from deepresearch.core.files import atomic_write
from deepresearch.core.workspace import Workspace
from deepresearch.search.model import SearchResult


def cache_dir(workspace: Workspace) -> Path:
    """.deepresearch/search_cache/: one JSON file per cached search."""
    return workspace.private / "search_cache"


def normalize_query(query: str) -> str:
    """Case and spacing do not make a different search."""
    return " ".join(query.casefold().split())


def cache_key(query: str, k: int, strategy: str, providers: Sequence[str]) -> str:
    """A file-name-safe key for one search as configured."""
    identity = json.dumps([normalize_query(query), k, strategy, list(providers)])
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:32]


def load(workspace: Workspace, key: str) -> tuple[list[SearchResult] | None, str]:
    """The cached results for `key` (None on a miss), and why an entry was ignored ("" if none was)."""
    path = cache_dir(workspace) / f"{key}.json"
    if not path.is_file():
        return None, ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [SearchResult.from_dict(item) for item in data["results"]], ""
    except (ValueError, KeyError, TypeError) as exc:
        # The cache is disposable: a damaged entry costs one search again, never a failure.
        return None, f"ignoring damaged search cache entry {workspace.relative(path)}: {exc}"


def store(workspace: Workspace, key: str, query: str, results: Sequence[SearchResult]) -> None:
    """Remember `results` for `key`."""
    folder = cache_dir(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    data = {"query": query, "results": [r.to_dict() for r in results]}
    atomic_write(folder / f"{key}.json", json.dumps(data, ensure_ascii=False, indent=1), durable=False)
