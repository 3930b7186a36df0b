"""Budget for the optional stages before the report (analysis, charts): they never starve the report.

Each optional stage needs up to two agent calls (its call and one repair). It runs only when those
fit under `max_agent_calls` with the report's own two calls (synthesis and its repair) still left,
and when `max_cost_usd` is not spent yet.
"""

from __future__ import annotations

from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.spend import FINISH_RESERVE, ledger_totals

STAGE_CALLS = 2  # the stage's call and its one repair


def budget_skip_reason(ctx: RunContext) -> str | None:
    """Why an optional stage must be skipped to keep the report within budget, or None."""
    calls, cost = ledger_totals(ctx)
    limit, max_cost = ctx.config.max_agent_calls, ctx.config.max_cost_usd
    if limit is not None and calls + STAGE_CALLS + FINISH_RESERVE > limit:
        return f"agent call budget ({calls} of {limit} used; the rest is kept for the report)"
    if max_cost is not None and cost >= max_cost:
        return f"cost budget spent (${cost:.2f} of ${max_cost:.2f})"
    return None
