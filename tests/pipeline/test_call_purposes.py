"""bench/call_purposes.py's scenario as a test: with the new rules and agents that run the
self-check, repair and proof-of-saturation calls are at most 10% of a run's calls."""

from __future__ import annotations

from pathlib import Path

from bench.call_purposes import measure, purposes
from tests.helpers import REPO, PageServer


def test_calls_are_told_apart_by_purpose() -> None:
    events = [
        *({"event": "agent_started"} for _ in range(9)),
        {"event": "output_repair"},
        {"event": "batch_measured", "task_id": "E1", "call": 1, "new": True},
        {"event": "batch_measured", "task_id": "E1", "call": 2, "new": False},  # a proof of saturation
        {"event": "batch_measured", "task_id": "E2", "call": 2, "new": False},
        {"event": "batch_measured", "task_id": "E2", "call": 2, "new": True},  # found something: research
    ]
    found = purposes(events)
    assert (found.calls, found.repair, found.proof, found.research) == (9, 1, 1, 7)


def test_with_the_self_check_repair_and_proof_calls_are_at_most_a_tenth(tmp_path: Path) -> None:
    with PageServer() as pages:
        after = measure(tmp_path / "after", pages.base_url, True, REPO)
    assert after.exit_code == 0
    assert after.repair + after.proof <= 0.10 * after.calls
    assert (after.repair, after.proof) == (0, 0)
