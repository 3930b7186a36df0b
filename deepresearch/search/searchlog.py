"""logs/search_results.jsonl: one line per result returned, paid or cached, in arrival order."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from deepresearch.core.files import file_lock
from deepresearch.core.workspace import Workspace
from deepresearch.search.model import SearchResult


def append_results(
    workspace: Workspace, query: str, results: Sequence[SearchResult], cached: bool, when: datetime
) -> None:
    """Append one JSON line per result (query, provider, rank, title, url, snippet, time, cached)."""
    if not results:
        return
    lines = [
        json.dumps(
            {
                "query": query,
                "provider": r.provider,
                "rank": r.rank,
                "title": r.title,
                "url": r.url,
                "snippet": r.snippet,
                "time": when.isoformat(timespec="seconds"),
                "cached": cached,
            },
            ensure_ascii=False,
        )
        for r in results
    ]
    path = workspace.search_log
    path.parent.mkdir(parents=True, exist_ok=True)
    # Concurrent executors append here: one locked write keeps each search's lines together.
    with file_lock(path), path.open("a", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
