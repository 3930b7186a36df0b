"""What a run has spent so far (agent calls, cost, searches, minutes), across resumed sessions."""

from __future__ import annotations

import dataclasses
import time

from deepresearch.agents.runner import ledger_totals as read_ledger
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.stop import Budgets, budget_exhausted
from deepresearch.search.budget import searches_used as counted_searches


def ledger_totals(ctx: RunContext) -> tuple[int, float]:
    """(agent calls, cost in USD) from the usage ledger, which survives restarts."""
    return read_ledger(ctx.workspace)


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
