"""Effort presets: `--effort quick|standard|deep` sets the Top-K saturation parameters and the run's
default ceilings together.

A value set explicitly (config file, input.md, environment, flag) always wins over the preset; for the
ceilings `0` means no limit. The ceilings were chosen from measured runs (README, "How research
effort and cost are bounded"): each level's call ceiling is about twice what a scripted run of its
size needs, and stops a run whose executors never saturate after a few rounds.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from deepresearch.core.config import Config


@dataclass(frozen=True)
class Saturation:
    """When an executor task has found enough (see pipeline/saturation.py)."""

    k_initial: int  # documents per query in batches 1-2
    k_expand: int  # documents per query after a batch brought nothing new
    min_batches: int  # never stop before this many batches
    max_batches: int  # never run more than this many batches
    saturation_threshold: int  # batches in a row with nothing new before stopping
    min_tier1_sources: int  # sources of authority ≥ 0.9 the task needs before stopping early


PRESETS = {
    "quick": Saturation(k_initial=5, k_expand=10, min_batches=1, max_batches=3, saturation_threshold=1, min_tier1_sources=1),
    "standard": Saturation(k_initial=5, k_expand=10, min_batches=2, max_batches=10, saturation_threshold=2, min_tier1_sources=3),
    "deep": Saturation(k_initial=8, k_expand=15, min_batches=3, max_batches=15, saturation_threshold=3, min_tier1_sources=5),
}  # fmt: skip


@dataclass(frozen=True)
class Ceilings:
    """The default limits of a run at one effort level (agent calls, wall-clock minutes, searches)."""

    agent_calls: int
    minutes: int
    searches: int


CEILINGS = {
    "quick": Ceilings(agent_calls=20, minutes=30, searches=100),
    "standard": Ceilings(agent_calls=40, minutes=90, searches=200),
    "deep": Ceilings(agent_calls=100, minutes=240, searches=500),
}


@dataclass(frozen=True)
class Limits:
    """The effective limits of a run: None means no limit. `defaults` names the limits that come
    from the effort preset rather than from an explicit setting (for messages)."""

    agent_calls: int | None = None
    searches: int | None = None
    cost_usd: float | None = None
    minutes: float | None = None
    effort: str = "standard"
    defaults: frozenset[str] = frozenset()

    def origin(self, name: str) -> str:
        """Where a limit comes from, for a message: the effort's default or an explicit setting."""
        return f"the {self.effort} effort's default" if name in self.defaults else "set explicitly"


def saturation(config: Config) -> Saturation:
    """The effective saturation parameters: the effort preset, overridden by explicit settings."""
    preset = PRESETS[config.effort]
    values = {f.name: getattr(config, f.name) for f in fields(Saturation)}
    chosen = {name: value if value is not None else getattr(preset, name) for name, value in values.items()}
    result = Saturation(**chosen)
    if result.min_batches > result.max_batches:
        return Saturation(**{**chosen, "min_batches": result.max_batches})
    return result


def limits(config: Config) -> Limits:
    """The effective ceilings: explicit settings win, `0` is no limit, unset takes the effort default."""
    preset = CEILINGS[config.effort]
    given = {
        "agent_calls": (config.max_agent_calls, preset.agent_calls),
        "searches": (config.max_searches, preset.searches),
        "minutes": (config.max_minutes, preset.minutes),
        "cost_usd": (config.max_cost_usd, None),  # no default: many CLIs report no cost
    }
    values: dict[str, float | int | None] = {}
    defaults = set()
    for name, (explicit, default) in given.items():
        if explicit is None:
            values[name] = default
            if default is not None:
                defaults.add(name)
        else:
            values[name] = explicit or None  # 0: no limit
    return Limits(
        agent_calls=_int(values["agent_calls"]),
        searches=_int(values["searches"]),
        cost_usd=values["cost_usd"],
        minutes=values["minutes"],
        effort=config.effort,
        defaults=frozenset(defaults),
    )


def _int(value: float | int | None) -> int | None:
    return None if value is None else int(value)
