"""How providers are combined: `chain` (in order), `race` (first success), `batch` (merged)."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Sequence

from deepresearch.core.urls import normalize_url
from deepresearch.search.model import Attempt, ErrorKind, Provider, ProviderError, SearchResult

log = logging.getLogger("deepresearch.search")

Strategy = Callable[[Sequence[Provider], str, int, float], tuple[list[SearchResult], list[Attempt]]]


def _attempt(provider: Provider, query: str, k: int, timeout: float) -> tuple[list[SearchResult], Attempt]:
    try:
        results = provider.search(query, k, timeout)
    except ProviderError as exc:
        log.info("search provider %s skipped: %s", provider.name, exc)
        return [], Attempt(provider.name, error=exc)
    except Exception as exc:  # a bug in one provider must not cost the agent its search
        log.exception("search provider %s crashed", provider.name)
        error = ProviderError(provider.name, ErrorKind.BAD_RESPONSE, f"{type(exc).__name__}: {exc}")
        return [], Attempt(provider.name, error=error)
    return results, Attempt(provider.name, count=len(results))


def chain(
    providers: Sequence[Provider], query: str, k: int, timeout: float
) -> tuple[list[SearchResult], list[Attempt]]:
    """Try providers in order; the first with results wins, failures and empty answers fall through."""
    attempts: list[Attempt] = []
    for provider in providers:
        results, attempt = _attempt(provider, query, k, timeout)
        attempts.append(attempt)
        if results:
            return results, attempts
    return [], attempts


def _run_all(
    providers: Sequence[Provider], query: str, k: int, timeout: float
) -> queue.Queue[tuple[int, list[SearchResult], Attempt]]:
    """Start one daemon thread per provider; answers arrive on the queue as (index, results, attempt).

    Daemon threads, not an executor: an abandoned slow provider must not keep the process alive.
    """
    answers: queue.Queue[tuple[int, list[SearchResult], Attempt]] = queue.Queue()

    def work(index: int, provider: Provider) -> None:
        results, attempt = _attempt(provider, query, k, timeout)
        answers.put((index, results, attempt))

    for index, provider in enumerate(providers):
        name = f"search-{provider.name}"
        threading.Thread(target=work, args=(index, provider), name=name, daemon=True).start()
    return answers


def _wait_margin(timeout: float) -> float:
    # Each request is bounded by `timeout` per socket operation; allow connect + read and slack.
    return 2 * timeout + 1.0


def race(
    providers: Sequence[Provider], query: str, k: int, timeout: float
) -> tuple[list[SearchResult], list[Attempt]]:
    """All providers at once; the first answer with results wins and the rest are abandoned."""
    answers = _run_all(providers, query, k, timeout)
    attempts: list[Attempt] = []
    for _ in providers:
        try:
            _, results, attempt = answers.get(timeout=_wait_margin(timeout))
        except queue.Empty:
            break
        attempts.append(attempt)
        if results:
            return results, attempts
    return [], attempts


def batch(
    providers: Sequence[Provider], query: str, k: int, timeout: float
) -> tuple[list[SearchResult], list[Attempt]]:
    """All providers at once; their lists interleaved by rank, deduplicated by normalised URL."""
    answers = _run_all(providers, query, k, timeout)
    lists: dict[int, list[SearchResult]] = {}
    attempts: dict[int, Attempt] = {}
    for _ in providers:
        try:
            index, results, attempt = answers.get(timeout=_wait_margin(timeout))
        except queue.Empty:
            break
        lists[index], attempts[index] = results, attempt
    ordered = [lists[i] for i in sorted(lists)]  # provider order breaks ties within a rank
    return merge(ordered, k), [attempts[i] for i in sorted(attempts)]


def merge(lists: Sequence[Sequence[SearchResult]], k: int) -> list[SearchResult]:
    """Round-robin by rank across lists, first occurrence of each normalised URL kept, re-ranked."""
    merged: list[SearchResult] = []
    seen: set[str] = set()
    depth = max((len(items) for items in lists), default=0)
    for position in range(depth):
        for items in lists:
            if position >= len(items):
                continue
            item = items[position]
            key = normalize_url(item.url)
            if key in seen:
                continue
            seen.add(key)
            merged.append(SearchResult(item.title, item.url, item.snippet, item.provider, len(merged) + 1))
            if len(merged) == k:
                return merged
    return merged


STRATEGIES: dict[str, Strategy] = {"chain": chain, "race": race, "batch": batch}
