"""bench/economy.py's scenario as a test: the new rule needs at most 60% of the old rule's executor
calls for the same verified facts and dimensions covered."""

from __future__ import annotations

from pathlib import Path

from bench.economy import compare


def test_batches_inside_a_call_need_at_most_60_percent_of_the_executor_calls(tmp_path: Path) -> None:
    old, new = compare(tmp_path).values()
    assert old.executor_calls == {"E1": 5, "E2": 4, "E3": 3, "E4": 6}
    assert new.executor_calls == {"E1": 1, "E2": 1, "E3": 1, "E4": 2}
    assert new.batches == old.batches == {"E1": 5, "E2": 4, "E3": 3, "E4": 6}
    assert new.executor_total <= 0.6 * old.executor_total
    assert new.facts == old.facts and new.verified_facts == old.verified_facts == 20
    assert new.dimensions == old.dimensions == ["D1", "D2"]
