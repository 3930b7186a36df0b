"""The run's budget: what has been spent (agent calls, cost, searches, minutes) against its limits.

One `Budget` per process and workspace, consulted by everything that spends: the agent runner
(every call is reserved before it starts, confirmed when it is recorded in the usage ledger), the
pipeline (when research stops starting agents, whether a stage of the report fits, the stop rules)
and `deepresearch search` (one counted search per cache miss). What was spent lives in the
workspace, so it survives restarts and is shared by the concurrent `deepresearch search` processes
of the run's agents:

- `.deepresearch/usage.jsonl`: one line per agent call (appended by `record_call`);
- `.deepresearch/searches.json`: `{"used": N}`, changed only under `.deepresearch/locks/searches.lock`;
- `.deepresearch/elapsed.json`: `{"minutes": M}`, the earlier sessions' time plus this one's so far.

A call is counted from the moment it is reserved (`reserve_call`), so no number of parallel starts
can take the calls kept for the report (core/spendplan.py: the ceiling's split and each stage's
keep); it is confirmed when it ends (`record_call`) or released if it never started (`release`).
Its share of cost is reserved with it when earlier calls tell what a call costs.
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
from deepresearch.core.spendplan import ReportShare, Stage, check_ceiling, report_minutes
from deepresearch.core.workspace import Workspace

RUN_SAVED = "; the run is saved"
RAISE_HINT = (
    "raise max_agent_calls (config, input.md or DEEPRESEARCH_MAX_AGENT_CALLS) and run the same command "
    "again to continue"
)


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


@dataclass
class CallTicket:
    """One agent call reserved under the ceilings: confirmed by `record_call`, else `release`d."""

    stage: Stage
    cost: float = 0.0  # the cost reserved with it (0 while no call has reported a cost)
    open: bool = True


class Budget:
    """The limits of `config` and what the workspace has spent (and has reserved) against them."""

    def __init__(
        self, workspace: Workspace, config: Config, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.workspace = workspace
        self.config = config
        self.limits = limits(config)  # the effective ceilings: explicit settings, else the effort's
        self.clock = clock
        self.started = clock()
        self.share: ReportShare | None = None  # set by the run (`plan`); None keeps nothing back
        self._lock = threading.Lock()
        self._usage: LedgerUsage | None = None  # the ledger, read once and then kept up to date
        self._earlier: float | None = None  # minutes of earlier sessions
        self._running = 0  # calls reserved and not yet confirmed or released
        self._running_cost = 0.0

    # --- the plan ------------------------------------------------------------------------------

    def plan(self, share: ReportShare) -> None:
        """Keep `share` for the report; ConfigError when the call ceiling cannot hold it."""
        check_ceiling(self.limits.agent_calls, share, self.limits.origin("agent_calls"))
        with self._lock:
            self.share = share

    def keep(self, stage: Stage) -> int:
        """The calls a call of `stage` must leave for what follows it."""
        return self.share.keep(stage) if self.share is not None else 0

    # --- agent calls ---------------------------------------------------------------------------

    def reserve_call(self, stage: Stage = Stage.RESEARCH) -> CallTicket:
        """Count one call before it starts; BudgetExhaustedError when it must not start."""
        with self._lock:
            reason = self._refusal(stage, 0)
            if reason:
                raise BudgetExhaustedError(reason + RUN_SAVED, hint=RAISE_HINT)
            cost = self._per_call()
            self._running += 1
            self._running_cost += cost
            return CallTicket(stage, cost)

    def release(self, ticket: CallTicket | None) -> None:
        """Give back a reserved call that did not start (nothing to record); idempotent."""
        if ticket is None:
            return
        with self._lock:
            self._settle(ticket)

    def _settle(self, ticket: CallTicket) -> None:
        if ticket.open:
            ticket.open = False
            self._running -= 1
            self._running_cost -= ticket.cost

    def record_call(self, entry: Mapping[str, Any], ticket: CallTicket | None = None) -> None:
        """Append one agent call to the usage ledger, confirming its reservation."""
        self.workspace.private.mkdir(parents=True, exist_ok=True)
        with self._lock:
            append_jsonl(self.workspace.usage_ledger, dict(entry))  # not glued onto a line cut by a kill
            if self._usage is not None:
                u = self._usage
                self._usage = LedgerUsage(
                    u.calls + 1,
                    u.input_tokens + int(_number(entry.get("input_tokens"))),
                    u.output_tokens + int(_number(entry.get("output_tokens"))),
                    u.cost_usd + _number(entry.get("cost_usd")),
                )
            if ticket is not None:
                self._settle(ticket)
        self.checkpoint()

    def calls_made(self) -> int:
        """Agent calls recorded in this workspace, across sessions."""
        with self._lock:
            return self._ledger().calls

    def calls_running(self) -> int:
        """Agent calls reserved and not yet ended."""
        with self._lock:
            return self._running

    def _ledger(self) -> LedgerUsage:
        if self._usage is None:
            self._usage = ledger_usage(self.workspace.usage_ledger)
        return self._usage

    def _per_call(self) -> float:
        """What one call has cost on average so far (0 before any call reported a cost)."""
        usage = self._ledger()
        return usage.cost_usd / usage.calls if usage.calls else 0.0

    # --- the rules -----------------------------------------------------------------------------

    def refusal(self, stage: Stage = Stage.RESEARCH, extra: int = 0) -> str | None:
        """Why a call of `stage` must not start now (keeping `extra` more calls for what follows
        within the stage), or None when it may."""
        with self._lock:
            return self._refusal(stage, extra)

    def research_stop_reason(self) -> str | None:
        """Why research must stop starting agent calls now (a limit is reached, or only the
        report's share is left), or None."""
        return self.refusal(Stage.RESEARCH)

    def _refusal(self, stage: Stage, extra: int) -> str | None:
        usage, keep = self._ledger(), self.keep(stage) + extra
        limit, running = self.limits.agent_calls, self._running
        if limit is not None and usage.calls + running + 1 + keep > limit:
            return self._calls_reason(stage, usage.calls, running, keep, extra)
        if stage is Stage.SYNTHESIS:
            return None  # the report's own call: only the call ceiling, whose share was kept, binds it
        research = stage is Stage.RESEARCH
        spent = Spent(
            usage.calls, self.searches_used() if research else 0, usage.cost_usd, self.minutes_used()
        )
        if research and (
            reason := exhausted_reason(
                dataclasses.replace(self.limits, agent_calls=None, cost_usd=None, minutes=None), spent
            )
        ):
            return reason  # fmt: skip
        return self._time_reason(spent, research) or self._cost_reason(spent, keep, research)

    def _calls_reason(self, stage: Stage, made: int, running: int, keep: int, extra: int) -> str:
        limit = self.limits.agent_calls
        note = _default_note(self.limits, "agent_calls", "max_agent_calls")
        now = f"{made} of {limit}" + (f", {running} running" if running else "")
        if stage is Stage.RESEARCH and self.share is not None and not extra:
            return (
                f"agent call budget spent ({now}, {keep} kept for the report: {self.share.describe()}{note})"
            )
        if keep:
            return f"agent call budget ({now} used, {keep} kept for what follows)"
        return f"agent call budget spent ({now}{note})"

    def _time_reason(self, spent: Spent, research: bool) -> str | None:
        ceiling = self.limits.minutes
        if ceiling is None:
            return None
        kept = report_minutes(self.limits.agent_calls, ceiling, self.share) if research else 0.0
        if spent.minutes + kept < ceiling:
            return None
        note = _default_note(self.limits, "minutes", "max_minutes")
        held = f", {kept:.1f} kept for the report" if kept else ""
        return f"time budget spent ({spent.minutes:.1f} of {ceiling:g} minutes{held}{note})"

    def _cost_reason(self, spent: Spent, keep: int, research: bool) -> str | None:
        ceiling = self.limits.cost_usd
        if ceiling is None:
            return None
        per_call = self._per_call()
        expected = spent.cost_usd + self._running_cost + per_call * (1 + keep)
        if spent.cost_usd < ceiling and expected <= ceiling:
            return None
        held = f", ~${per_call * keep:.2f} kept for the report" if research and per_call and keep else ""
        return f"cost budget spent (${spent.cost_usd:.2f} of ${ceiling:.2f}{held})"

    # --- minutes -------------------------------------------------------------------------------

    def minutes_used(self) -> float:
        """Minutes the run has taken: its earlier sessions and this one so far."""
        if self._earlier is None:
            self._earlier = _read_minutes(self.workspace.elapsed_time)
        return self._earlier + (self.clock() - self.started) / 60.0

    def checkpoint(self) -> None:
        """Write the minutes taken so far, so a resumed run counts them (after each call, at the end)."""
        if self.workspace.private.is_dir():
            minutes = round(self.minutes_used(), 3)
            atomic_write(self.workspace.elapsed_time, json.dumps({"minutes": minutes}), durable=False)

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

    # --- what was spent ------------------------------------------------------------------------

    def spent(self) -> Spent:
        """Everything the budget rules look at (calls and cost from the ledger, across sessions)."""
        with self._lock:
            usage = self._ledger()
        return Spent(usage.calls, self.searches_used(), usage.cost_usd, self.minutes_used())

    def exhausted(self) -> str | None:
        """The first limit reached, as a reason (for the stop rules); None when none is."""
        return exhausted_reason(self.limits, self.spent())


def _number(value: object) -> float:
    try:
        return float(value or 0.0)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0


def _read_minutes(path: Path) -> float:
    """The minutes an earlier session recorded (0 when none, or when the file cannot be read)."""
    try:
        minutes = json.loads(path.read_text(encoding="utf-8"))["minutes"]
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0
    return float(minutes) if isinstance(minutes, (int, float)) and minutes >= 0 else 0.0
