"""One `deepresearch search`: cache, budget, strategy over providers, log. The CLI's only entry."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from deepresearch.core.attribution import BY_HAND, Attribution
from deepresearch.core.budget import Budget
from deepresearch.core.clock import utc_now
from deepresearch.core.config import Config
from deepresearch.core.errors import ExitCode, NetworkError
from deepresearch.core.events import EventSink, Notice, NullSink
from deepresearch.core.workspace import Workspace
from deepresearch.search import cache
from deepresearch.search.model import Attempt, ErrorKind, Provider, SearchResult
from deepresearch.search.providers import available_providers, missing_keys
from deepresearch.search.searchlog import append_results
from deepresearch.search.strategies import STRATEGIES


class SearchUnavailableError(NetworkError):
    """No search provider answered; the search was not counted."""


class NoSearchProviderError(SearchUnavailableError):
    """No search provider is available (none configured, or none has its API key): configuration."""

    exit_code = ExitCode.CONFIG


# Failures that say the network, not the provider, is the problem: nothing could be reached.
_NETWORK_KINDS = (ErrorKind.UNREACHABLE, ErrorKind.TIMEOUT)


@dataclass(frozen=True)
class SearchOutcome:
    """What a search returned and how: from the cache or which providers, and the budget after it."""

    query: str
    results: list[SearchResult]
    cached: bool
    strategy: str
    attempts: list[Attempt] = field(default_factory=list)
    searches_used: int = 0
    max_searches: int | None = None


def run_search(
    workspace: Workspace,
    config: Config,
    query: str,
    k: int = 10,
    environ: Mapping[str, str] | None = None,
    now: Callable[[], datetime] = utc_now,
    sink: EventSink | None = None,
    budget: Budget | None = None,
    attribution: Attribution = BY_HAND,
) -> SearchOutcome:
    """Search `query` for at most `k` results: a cache hit is free, a miss costs one search
    (counted by `budget`, the run's when the tool service searches). The log lines carry
    `attribution` (the executor task and batch the search was made for)."""
    env = os.environ if environ is None else environ
    providers = available_providers(config, env)
    strategy = config.search_strategy
    key = cache.cache_key(query, k, strategy, [p.name for p in providers])
    hit, damaged = cache.load(workspace, key)
    if damaged:
        (sink or NullSink())(Notice(damaged, "warning"))
    if hit is not None:
        append_results(workspace, query, hit, cached=True, when=now(), attribution=attribution, k=k)
        spend = budget or Budget(workspace, config)
        return SearchOutcome(query, hit, True, strategy, [], spend.searches_used(), spend.limits.searches)
    if not providers:
        raise NoSearchProviderError(
            "no search provider is available: "
            f"search_providers = {', '.join(config.search_providers or []) or '(none)'}",
            hint=_key_hint(config, env) or "add duckduckgo (keyless) to search_providers",
        )
    spend = budget or Budget(workspace, config)
    used = spend.reserve_search()
    results, attempts = STRATEGIES[strategy](providers, query, k, config.search_timeout)
    if not any(a.ok for a in attempts):
        spend.refund_search()
        error = _unavailable(query, attempts, providers, config, env)
        # An executor's batch log may list this query: it was made, though nothing answered.
        append_results(workspace, query, [], False, now(), attribution, k, failed="no provider answered")
        raise error
    if results:
        cache.store(workspace, key, query, results)
    append_results(workspace, query, results, cached=False, when=now(), attribution=attribution, k=k)
    return SearchOutcome(query, results, False, strategy, attempts, used, spend.limits.searches)


def _key_hint(config: Config, environ: Mapping[str, str]) -> str:
    keys = missing_keys(config, environ)
    return f"set an API key for more providers: {', '.join(keys)}" if keys else ""


def _unavailable(
    query: str,
    attempts: Sequence[Attempt],
    providers: Sequence[Provider],
    config: Config,
    environ: Mapping[str, str],
) -> SearchUnavailableError:
    answered = {a.provider for a in attempts}
    lines = [f"  {a.describe()}" for a in attempts]
    lines += [f"  {p.name}: no answer in time" for p in providers if p.name not in answered]
    if all(a.error is not None and a.error.kind in _NETWORK_KINDS for a in attempts):
        return SearchUnavailableError(
            f"no search provider could be reached for {query!r}: the network seems to be down or "
            "blocked here:\n" + "\n".join(lines),
            hint="check this machine's internet connection (and HTTPS_PROXY if you use a proxy), then "
            "try again; the search was not counted",
        )
    hint = _key_hint(config, environ) or "try again in a minute (the search was not counted)"
    return SearchUnavailableError(f"no search provider answered for {query!r}:\n" + "\n".join(lines), hint)
