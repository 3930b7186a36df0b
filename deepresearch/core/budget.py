"""The run's budget: what has been spent (agent calls, cost, searches, minutes) against its limits.

One `Budget` per process and workspace, consulted by everything that spends: the agent runner
(the hard cap on calls, the usage ledger it appends to), the pipeline (when research stops starting
agents, whether an optional stage fits, the stop rules) and `deepresearch search` (one counted search
per cache miss). What was spent lives in the workspace, so it survives restarts and is shared by the
concurrent `deepresearch search` processes of the run's agents:

- `.deepresearch/usage.jsonl`: one line per agent call (appended by `record_call`);
- `.deepresearch/searches.json`: `{"used": N}`, changed only under `.deepresearch/locks/searches.lock`.

Minutes count from this session's start: a resumed run gets its time budget afresh.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepresearch.core.config import Config
from deepresearch.core.effort import Limits, limits
from deepresearch.core.errors import BudgetExhaustedError, StateError
from deepresearch.core.files import append_jsonl, atomic_write, file_lock
from deepresearch.core.workspace import Workspace

# Agent calls kept back from research so the report can still be written (synthesis and its repair).
FINISH_RESERVE = 2
# An optional stage before the report (analysis, charts) needs its call and one repair.
STAGE_CALLS = 2


@dataclass(frozen=True)
class Spent:
    """What has been spent so far, for the budget rules."""

    agent_calls: int = 0
    searches: int = 0
    cost_usd: float = 0.0
    minutes: float = 0.0


def _default_note(limits: Limits, name: str, key: str) -> str:
    """For a ceiling that comes from the effort preset: which one, and how to change it."""
    if name not in limits.defaults:
        return ""
    return f"; {limits.origin(name)} ceiling: set {key} to change it, 0 for no limit"


def exhausted_reason(limits: Limits, spent: Spent) -> str | None:
    """The first of `limits` that `spent` has reached, as a reason; None when none has."""
    checks = [
        ("agent_calls", "max_agent_calls", spent.agent_calls, "agent call budget spent ({spent} of {limit}"),
        ("searches", "max_searches", spent.searches, "search budget spent ({spent} of {limit}"),
        ("cost_usd", "max_cost_usd", spent.cost_usd, "cost budget spent (${spent:.2f} of ${limit:.2f}"),
        ("minutes", "max_minutes", spent.minutes, "time budget spent ({spent:.1f} of {limit} minutes"),
    ]
    for name, key, used, text in checks:
        limit = getattr(limits, name)
        if limit is not None and used >= limit:
            return text.format(spent=used, limit=limit) + _default_note(limits, name, key) + ")"
    return None


@dataclass(frozen=True)
class LedgerUsage:
    """What a usage ledger records: agent calls, tokens and cost, across sessions."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


def ledger_usage(path: Path) -> LedgerUsage:
    """Calls, tokens and cost in a usage ledger. Every line is a call that happened; a line cut
    short by a crash still counts as a call, but its tokens and cost cannot be read."""
    if not path.is_file():
        return LedgerUsage()
    calls, tokens_in, tokens_out, cost = 0, 0, 0, 0.0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        calls += 1
        try:
            entry = json.loads(line)
            cost += float(entry.get("cost_usd") or 0.0)
            tokens_in += int(entry.get("input_tokens") or 0)
            tokens_out += int(entry.get("output_tokens") or 0)
        except (json.JSONDecodeError, AttributeError, TypeError, ValueError):
            continue
    return LedgerUsage(calls, tokens_in, tokens_out, cost)


def read_ledger(path: Path) -> tuple[int, float]:
    """(agent calls, cost in USD) in a usage ledger (see `ledger_usage`)."""
    usage = ledger_usage(path)
    return usage.calls, usage.cost_usd


class Budget:
    """The limits of `config` and what the workspace has spent against them."""

    def __init__(
        self, workspace: Workspace, config: Config, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.workspace = workspace
        self.config = config
        self.limits = limits(config)  # the effective ceilings: explicit settings, else the effort's
        self.clock = clock
        self.started = clock()
        self._lock = threading.Lock()
        self._calls: int | None = None  # ledger lines, counted once and then kept up to date

    # --- agent calls ---------------------------------------------------------------------------

    def record_call(self, entry: Mapping[str, Any]) -> None:
        """Append one agent call to the usage ledger."""
        self.workspace.private.mkdir(parents=True, exist_ok=True)
        with self._lock:
            append_jsonl(self.workspace.usage_ledger, dict(entry))  # not glued onto a line cut by a kill
            if self._calls is not None:
                self._calls += 1

    def calls_made(self) -> int:
        """Agent calls recorded in this workspace, across sessions."""
        with self._lock:
            if self._calls is None:
                self._calls = read_ledger(self.workspace.usage_ledger)[0]
            return self._calls

    def check_call(self) -> None:
        """The hard cap: raise BudgetExhaustedError rather than start a call past `max_agent_calls`."""
        limit = self.limits.agent_calls
        made = self.calls_made() if limit is not None else 0
        if limit is not None and made >= limit:
            raise BudgetExhaustedError(
                f"agent call budget spent ({made} of {limit}"
                f"{_default_note(self.limits, 'agent_calls', 'max_agent_calls')}); the run is saved",
                hint="raise max_agent_calls (config, input.md or DEEPRESEARCH_MAX_AGENT_CALLS) and run "
                "the same command again to continue",
            )

    # --- searches ------------------------------------------------------------------------------

    @property
    def search_counter(self) -> Path:
        """.deepresearch/searches.json: {"used": N}."""
        return self.workspace.private / "searches.json"

    def _search_lock(self) -> Path:
        # A separate lock file: the counter is replaced atomically, which would orphan a lock on it.
        return self.workspace.locks / "searches.lock"

    def _read_searches(self) -> int:
        path = self.search_counter
        if not path.is_file():
            return 0
        try:
            used = json.loads(path.read_text(encoding="utf-8"))["used"]
        except (ValueError, KeyError, TypeError) as exc:
            raise StateError(
                f"unreadable search counter: {exc}",
                path=str(path),
                hint="delete the file to restart the count from 0 (the search log keeps the history)",
            ) from exc
        if not isinstance(used, int) or used < 0:
            raise StateError(f"search counter holds {used!r}, expected a count", path=str(path))
        return used

    def searches_used(self) -> int:
        """How many paid searches (cache misses) this workspace has spent so far."""
        with file_lock(self._search_lock()):
            return self._read_searches()

    def reserve_search(self) -> int:
        """Count one search before making it; BudgetExhaustedError at `max_searches`."""
        limit = self.limits.searches
        with file_lock(self._search_lock()):
            used = self._read_searches()
            if limit is not None and used >= limit:
                raise BudgetExhaustedError(
                    f"search budget spent: {used} of {limit} searches used (max_searches). No search was made.",
                    hint="stop searching and work with what you have: read and archive the sources already "
                    "found (a query already searched still answers from the cache for free)",
                )
            atomic_write(self.search_counter, json.dumps({"used": used + 1}), durable=False)
            return used + 1

    def refund_search(self) -> int:
        """Give back a reserved search that no provider answered (nothing was obtained for it)."""
        with file_lock(self._search_lock()):
            used = max(self._read_searches() - 1, 0)
            atomic_write(self.search_counter, json.dumps({"used": used}), durable=False)
            return used

    # --- the rules -----------------------------------------------------------------------------

    def spent(self) -> Spent:
        """Everything the budget rules look at."""
        calls, cost = read_ledger(self.workspace.usage_ledger)
        minutes = (self.clock() - self.started) / 60.0
        return Spent(agent_calls=calls, searches=self.searches_used(), cost_usd=cost, minutes=minutes)

    def exhausted(self) -> str | None:
        """The first limit reached, as a reason (for the stop rules); None when none is."""
        return exhausted_reason(self.limits, self.spent())

    def research_stop_reason(self) -> str | None:
        """Why research must stop starting agent calls now, or None: a limit is reached, or only
        the calls kept for the report (FINISH_RESERVE) are left."""
        spent = self.spent()
        limit = self.limits.agent_calls
        if limit is not None:
            reserve = min(FINISH_RESERVE, max(limit - 1, 0))
            if spent.agent_calls + reserve >= limit:
                return (
                    f"agent call budget spent ({spent.agent_calls} of {limit}, {reserve} kept for the report"
                    f"{_default_note(self.limits, 'agent_calls', 'max_agent_calls')})"
                )
        return exhausted_reason(dataclasses.replace(self.limits, agent_calls=None), spent)

    def spare_call_reason(self, keep: int = 0) -> str | None:
        """Why one optional agent call (the verifier's) must not start: it would leave fewer than
        `keep` calls under `max_agent_calls` for what must follow, or the cost or time budget is
        spent. None when it may start."""
        spent = self.spent()
        limit = self.limits.agent_calls
        if limit is not None and spent.agent_calls + 1 + keep > limit:
            return f"agent call budget ({spent.agent_calls} of {limit} used, {keep} kept for what follows)"
        others = dataclasses.replace(self.limits, agent_calls=None, searches=None)
        return exhausted_reason(others, spent)

    def stage_skip_reason(self) -> str | None:
        """Why an optional stage before the report must be skipped to keep the report in budget."""
        calls, cost = read_ledger(self.workspace.usage_ledger)
        limit, max_cost = self.limits.agent_calls, self.limits.cost_usd
        if limit is not None and calls + STAGE_CALLS + FINISH_RESERVE > limit:
            return f"agent call budget ({calls} of {limit} used; the rest is kept for the report)"
        if max_cost is not None and cost >= max_cost:
            return f"cost budget spent (${cost:.2f} of ${max_cost:.2f})"
        return None
