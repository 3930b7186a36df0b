"""Stop rules, in code. The reflector judges quality; this module decides whether to go on."""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.contracts.reflect import Assessment
from deepresearch.core.budget import Spent, exhausted_reason
from deepresearch.core.config import Config
from deepresearch.core.effort import limits


@dataclass(frozen=True)
class Decision:
    stop: bool
    reason: str

    @property
    def label(self) -> str:
        return f"stop: {self.reason}" if self.stop else "continue"


def decide(
    config: Config, round_no: int, assessment: Assessment, previous_scores: list[float], spent: Spent
) -> Decision:
    """Whether research stops after `round_no`, and why (first matching rule wins)."""
    if config.mode == "fixed":
        if round_no >= config.max_rounds:
            return Decision(True, f"fixed depth of {config.max_rounds} rounds done")
        budget = exhausted_reason(limits(config), spent)
        return Decision(True, budget) if budget else Decision(False, "fixed mode: next round")
    if assessment.score >= config.quality_threshold and not assessment.fallback:
        return Decision(True, f"quality threshold met ({assessment.score:g} ≥ {config.quality_threshold:g})")
    if round_no >= config.max_rounds:
        return Decision(True, f"max rounds reached ({config.max_rounds})")
    budget = exhausted_reason(limits(config), spent)
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
