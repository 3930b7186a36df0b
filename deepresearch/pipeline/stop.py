"""Stop rules, in code. The reflector judges quality; this module decides whether to go on."""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.contracts.reflect import Assessment
from deepresearch.core.config import Config


@dataclass(frozen=True)
class Budgets:
    """What has been spent so far, for the budget rules."""

    agent_calls: int = 0
    searches: int = 0
    cost_usd: float = 0.0
    minutes: float = 0.0


@dataclass(frozen=True)
class Decision:
    stop: bool
    reason: str

    @property
    def label(self) -> str:
        return f"stop: {self.reason}" if self.stop else "continue"


def budget_exhausted(config: Config, spent: Budgets) -> str | None:
    """The first budget that is spent, as a reason, or None."""
    checks = [
        (config.max_agent_calls, spent.agent_calls, "agent call budget spent ({spent} of {limit})"),
        (config.max_searches, spent.searches, "search budget spent ({spent} of {limit})"),
        (config.max_cost_usd, spent.cost_usd, "cost budget spent (${spent:.2f} of ${limit:.2f})"),
        (config.max_minutes, spent.minutes, "time budget spent ({spent:.1f} of {limit} minutes)"),
    ]
    for limit, used, text in checks:
        if limit is not None and used >= limit:
            return text.format(spent=used, limit=limit)
    return None


def decide(
    config: Config, round_no: int, assessment: Assessment, previous_scores: list[float], spent: Budgets
) -> Decision:
    """Whether research stops after `round_no`, and why (first matching rule wins)."""
    if config.mode == "fixed":
        if round_no >= config.max_rounds:
            return Decision(True, f"fixed depth of {config.max_rounds} rounds done")
        budget = budget_exhausted(config, spent)
        return Decision(True, budget) if budget else Decision(False, "fixed mode: next round")
    if assessment.score >= config.quality_threshold and not assessment.fallback:
        return Decision(True, f"quality threshold met ({assessment.score:g} ≥ {config.quality_threshold:g})")
    if round_no >= config.max_rounds:
        return Decision(True, f"max rounds reached ({config.max_rounds})")
    budget = budget_exhausted(config, spent)
    if budget:
        return Decision(True, budget)
    if not assessment.knowledge_gaps and not assessment.new_tasks and not assessment.fallback:
        return Decision(True, "no knowledge gaps left")
    if previous_scores and round_no >= config.min_rounds and round_no > 1:
        gain = assessment.score - previous_scores[-1]
        if gain < config.min_improvement:
            return Decision(
                True, f"diminishing returns (score {previous_scores[-1]:g} → {assessment.score:g}, "
                f"gain {gain:.2f} < {config.min_improvement:g})"
            )  # fmt: skip
    return Decision(False, f"score {assessment.score:g} below {config.quality_threshold:g}; gaps remain")
