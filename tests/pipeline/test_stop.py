"""Stop rules: which rule ends the research, and why."""

from __future__ import annotations

import pytest

from deepresearch.contracts.reflect import Assessment, fallback_assessment
from deepresearch.core.budget import Spent
from deepresearch.core.config import Config
from deepresearch.pipeline.stop import decide


def assessment(score: float, gaps: tuple[str, ...] = ("gap",)) -> Assessment:
    return Assessment(score=score, knowledge_gaps=list(gaps))


@pytest.mark.parametrize(
    ("round_no", "score", "previous", "gaps", "expected"),
    [
        (1, 8.5, [], ("gap",), "quality threshold met (8.5 ≥ 7)"),
        (1, 4.0, [], ("gap",), None),
        (2, 5.5, [4.0], ("gap",), None),
        (3, 7.2, [4.0, 5.5], ("gap",), "quality threshold met (7.2 ≥ 7)"),
        (2, 5.2, [5.0], ("gap",), "diminishing returns (score 5 → 5.2, gain 0.20 < 0.5)"),
        (5, 6.9, [5.0, 5.6, 6.2, 6.8], ("gap",), "max rounds reached (5)"),
        (1, 6.0, [], (), "no knowledge gaps left"),
    ],
)
def test_adaptive_rules(
    round_no: int, score: float, previous: list[float], gaps: tuple[str, ...], expected: str | None
) -> None:
    decision = decide(Config(), round_no, assessment(score, gaps), previous, Spent())
    assert decision.stop is (expected is not None)
    if expected:
        assert decision.reason == expected


def test_budget_stops_the_research() -> None:
    config = Config(max_agent_calls=10, max_cost_usd=1.0)
    assert (
        decide(config, 1, assessment(5), [], Spent(agent_calls=10)).reason
        == "agent call budget spent (10 of 10)"
    )
    assert (
        decide(config, 1, assessment(5), [], Spent(cost_usd=1.5)).reason
        == "cost budget spent ($1.50 of $1.00)"
    )
    assert not decide(config, 1, assessment(5), [], Spent(agent_calls=9)).stop


def test_fallback_assessment_never_counts_as_good_enough() -> None:
    config = Config(quality_threshold=5)
    decision = decide(config, 1, fallback_assessment(), [], Spent())
    assert not decision.stop


def test_fixed_mode_counts_rounds_only() -> None:
    config = Config(mode="fixed", max_rounds=2)
    assert not decide(config, 1, assessment(9.5, ()), [], Spent()).stop
    assert decide(config, 2, assessment(1), [9.5], Spent()).reason == "fixed depth of 2 rounds done"
