"""logs/search_results.jsonl: one line per result returned, paid or cached, in arrival order.

Each line carries the query's `language`, detected by code (core/langdetect.py; "" when a short
query shows none), so that a task's searched languages can be checked against the planned ones.
A search made for an executor task also carries `task`, `batch` and `k` on each line, and when it
returned nothing it leaves one line with `rank: 0` and no URL, so that every query an executor ran
can be checked against the batch log it writes (pipeline/batchcheck.py reads these lines).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from deepresearch.core.attribution import BY_HAND, Attribution
from deepresearch.core.files import append_jsonl, file_lock, read_jsonl
from deepresearch.core.langdetect import LATIN, detect_language
from deepresearch.core.workspace import Workspace
from deepresearch.search.model import SearchResult


def append_results(
    workspace: Workspace,
    query: str,
    results: Sequence[SearchResult],
    cached: bool,
    when: datetime,
    attribution: Attribution = BY_HAND,
    k: int | None = None,
    failed: str = "",
) -> None:
    """Append one JSON line per result (query, provider, rank, title, url, snippet, time, cached,
    the query's language, and for an executor's search its task, batch and k). An executor's search that found nothing,
    or that no provider answered (`failed`: why), gets one line too: the query was made."""
    extra: dict[str, Any] = {**attribution.fields(), "k": k} if attribution else {}
    if failed:
        extra["failed"] = failed
    rows: list[dict[str, Any]] = [
        {"query": query, "provider": r.provider, "rank": r.rank, "title": r.title, "url": r.url,
         "snippet": r.snippet}
        for r in results
    ]  # fmt: skip
    if not rows and attribution:
        rows = [{"query": query, "provider": "", "rank": 0, "title": "", "url": "", "snippet": ""}]
    if not rows:
        return
    stamp = {"time": when.isoformat(timespec="seconds"), "cached": cached, "language": detect_language(query)}
    path = workspace.search_log
    path.parent.mkdir(parents=True, exist_ok=True)
    # Concurrent searches append here: the lock keeps each search's lines together. It is a file of
    # its own where agents cannot see it: one that held a lock on the log would stall every search.
    with file_lock(workspace.locks / "search_log.lock"):
        append_jsonl(path, *({**row, **stamp, **extra} for row in rows))


def read_search_log(workspace: Workspace) -> list[dict[str, Any]]:
    """Every line of the search log (a line cut short by a killed process is skipped)."""
    return read_jsonl(workspace.search_log)


def query_languages(
    lines: Iterable[Mapping[str, Any]], planned: Sequence[str] = (), task: str | None = None
) -> Counter[str]:
    """How many distinct queries were made in each language (of one task, or of all). A query whose
    language was not told, or told only by its script (Han, Cyrillic, Arabic), is read again among
    the planned languages when it is in none of them: "電池 市場" is logged as Chinese, and counts
    as Japanese in a run that planned Japanese but not Chinese. A query told German stays German."""
    seen: dict[str, str] = {}
    for line in lines:
        query = str(line.get("query") or "")
        if not query or query in seen or (task is not None and line.get("task") != task):
            continue
        language = str(line.get("language") or "") or detect_language(query)  # older logs: no field
        if planned and language not in planned and language not in LATIN:
            language = detect_language(query, among=planned) or language
        seen[query] = language
    return Counter(seen.values())
