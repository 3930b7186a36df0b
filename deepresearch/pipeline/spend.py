"""What a run has spent so far (agent calls, cost, searches, minutes), across resumed sessions."""

from __future__ import annotations

import dataclasses
import json
import time

from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.stop import Budgets, budget_exhausted
from deepresearch.search.budget import searches_used as counted_searches


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
    return counted_searches(ctx.workspace)


def spent_so_far(ctx: RunContext) -> Budgets:
    """Everything the budget rules look at."""
    calls, cost = ledger_totals(ctx)
    minutes = (time.monotonic() - ctx.started) / 60.0
    return Budgets(agent_calls=calls, searches=searches_used(ctx), cost_usd=cost, minutes=minutes)


# Agent calls kept back from research so the report can still be written (synthesis and its repair).
FINISH_RESERVE = 2


def research_budget_spent(ctx: RunContext) -> str | None:
    """Why research must stop starting agent calls now (a budget is spent), or None."""
    spent = spent_so_far(ctx)
    limit = ctx.config.max_agent_calls
    if limit is not None:
        reserve = min(FINISH_RESERVE, max(limit - 1, 0))
        if spent.agent_calls + reserve >= limit:
            return f"agent call budget spent ({spent.agent_calls} of {limit}, {reserve} kept for the report)"
    return budget_exhausted(dataclasses.replace(ctx.config, max_agent_calls=None), spent)
