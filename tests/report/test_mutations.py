"""The mutation bench as a test (bench/mutations.py): on two realistic finished workspaces of our
own (tests/report/workspaces/: dense tables by year and type, a conflicts table, lists of competing
figures, derived numbers with their inputs), every cited number changed by a factor is flagged at
its line, so is every swap with a neighbour of the same unit in its source, and the untouched
report has no finding at all."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.mutations import KINDS, Outcome, mutate

WORKSPACES = Path(__file__).parent / "workspaces"


@pytest.fixture(scope="module", params=["heat-pumps", "ev-charging"])
def outcome(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    root = tmp_path_factory.mktemp("mutations") / request.param
    shutil.copytree(WORKSPACES / request.param, root)
    return mutate(root)


def test_the_untouched_report_has_no_finding(outcome: Outcome) -> None:
    assert [f"{v.line}: {v.message}" for v in outcome.findings] == []
    assert outcome.not_grounded == []


def test_changed_numbers_are_flagged(outcome: Outcome) -> None:
    for kind in KINDS[:-1]:  # ×0.7, ×0.83, ×1.17, ×1.5
        flagged, changed = outcome.flagged(kind)
        assert changed >= 60
        assert flagged == changed, [m for m in outcome.mutations if m.kind == kind and not m.flagged]


def test_every_swap_is_flagged(outcome: Outcome) -> None:
    flagged, changed = outcome.flagged("swap")
    assert changed >= 50
    assert flagged == changed, [m for m in outcome.mutations if m.kind == "swap" and not m.flagged]
