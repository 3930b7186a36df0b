"""Effort presets: `--effort quick|standard|deep` sets the Top-K saturation parameters together.

A value set explicitly (config file, input.md, environment, flag) always wins over the preset.
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


def saturation(config: Config) -> Saturation:
    """The effective saturation parameters: the effort preset, overridden by explicit settings."""
    preset = PRESETS[config.effort]
    values = {f.name: getattr(config, f.name) for f in fields(Saturation)}
    chosen = {name: value if value is not None else getattr(preset, name) for name, value in values.items()}
    result = Saturation(**chosen)
    if result.min_batches > result.max_batches:
        return Saturation(**{**chosen, "min_batches": result.max_batches})
    return result
