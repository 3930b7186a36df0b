"""One-line texts shared by the plain and the rich display: the run's ceilings, its Top-K rules and
a follow-up's economy."""

from __future__ import annotations

from typing import Any


def ceilings_line(ceilings: dict[str, Any]) -> str:
    """The run's ceilings: at most 20 agent calls, 30 minutes, 100 searches, where they come from,
    and what is kept for the report (research gets the rest)."""
    parts = []
    for key, unit in (("agent_calls", "agent calls"), ("minutes", "minutes"), ("searches", "searches")):
        value = ceilings.get(key)
        parts.append(f"{value:g} {unit}" if isinstance(value, (int, float)) else f"no limit on {unit}")
    cost = ceilings.get("cost_usd")
    if isinstance(cost, (int, float)):
        parts.append(f"${cost:g}")
    keys = {"agent_calls": "max_agent_calls", "minutes": "max_minutes", "searches": "max_searches"}
    defaults = [keys.get(str(d), str(d)) for d in ceilings.get("defaults") or []]
    origin = (
        f" (the {ceilings.get('effort')} effort's defaults for {', '.join(defaults)}; set them to change"
        " them, 0 for no limit)"
        if defaults
        else ""
    )
    return "at most " + ", ".join(parts) + origin + _report_share(ceilings)


def _report_share(ceilings: dict[str, Any]) -> str:
    """ "; kept for the report: 5 calls (...) and 7.5 minutes; research gets 15 calls" when the run
    planned a split."""
    kept, stages = ceilings.get("report_calls"), ceilings.get("report_stages") or []
    if not isinstance(kept, int) or not kept:
        return ""
    names = ", ".join(str(s) for s in stages)
    minutes = ceilings.get("report_minutes")
    time = f" and {minutes:g} minutes" if isinstance(minutes, (int, float)) and minutes else ""
    research = ceilings.get("research_calls")
    rest = f"; research gets {research} calls" if isinstance(research, int) else ""
    return f"; kept for the report: {kept} calls ({names}){time}{rest}"


def rules_line(rules: dict[str, Any]) -> str:
    """The Top-K rules code applied: one line, then one line per novelty rule."""
    if not rules:
        return ""
    calls = (
        f"inside one call (at most {rules.get('max_calls_per_task')} calls per task)"
        if rules.get("batch_calls") == "in_call"
        else "one call per batch"
    )
    streak, tier1 = rules.get("saturation_threshold"), rules.get("min_tier1_sources")
    return (
        f"Top-K rules: {rules.get('min_batches')}-{rules.get('max_batches')} batches per task, {calls}; "
        f"saturated after {streak} batch{'es' * (streak != 1)} in a row with nothing new, with every "
        f"dimension covered and {tier1} tier-1 source{'s' * (tier1 != 1)}\na batch counts as new only with"
        + "".join(f"\n  - {rule}" for rule in rules.get("novelty") or [])
    )


def _count(n: object, one: str, many: str = "") -> str:
    value = n if isinstance(n, int) else 0
    return f"{value} {one if value == 1 else (many or one + 's')}"


def economy_line(economy: dict[str, Any]) -> str:
    """A follow-up's economy (pipeline.economy.Economy as a dict): what this question spent against
    what it reused from the earlier ones, and what those had cost."""
    spent, earlier = economy.get("spent") or {}, economy.get("earlier") or {}
    return (
        f"this question ({economy.get('question')}): {_count(spent.get('agent_calls'), 'agent call')}, "
        f"{_count(spent.get('searches'), 'search', 'searches')}, {_count(spent.get('archives'), 'new archive')}; "
        f"reused from earlier questions: {_count(economy.get('reused_sources'), 'source')} and "
        f"{_count(economy.get('reused_facts'), 'fact')} (which had taken "
        f"{_count(earlier.get('agent_calls'), 'agent call')}, {_count(earlier.get('searches'), 'search', 'searches')}, "
        f"{_count(earlier.get('archives'), 'archive')})"
    )
