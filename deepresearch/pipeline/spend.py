"""What a run has spent so far (agent calls, cost, searches, minutes), across resumed sessions."""

from __future__ import annotations

import json
import time

from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.stop import Budgets


def ledger_totals(ctx: RunContext) -> tuple[int, float]:
    """(agent calls, cost in USD) from the usage ledger, which survives restarts."""
    path = ctx.workspace.usage_ledger
    if not path.is_file():
        return 0, 0.0
    calls, cost = 0, 0.0
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a crash; the rest of the ledger still counts
        calls += 1
        cost += float(entry.get("cost_usd") or 0.0)
    return calls, cost


def searches_used(ctx: RunContext) -> int:
    """Searches counted by `deepresearch search` in this workspace."""
    try:
        from deepresearch.search.budget import searches_used as counted
    except ImportError:
        return 0
    return counted(ctx.workspace)


def spent_so_far(ctx: RunContext) -> Budgets:
    """Everything the budget rules look at."""
    calls, cost = ledger_totals(ctx)
    minutes = (time.monotonic() - ctx.started) / 60.0
    return Budgets(agent_calls=calls, searches=searches_used(ctx), cost_usd=cost, minutes=minutes)
