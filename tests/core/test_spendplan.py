"""The ceiling, planned and reserved: the report's share, each stage's keep, calls counted from the
moment they are reserved, minutes across sessions (rule level, in process)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from deepresearch.core.budget import Budget, BudgetExhaustedError
from deepresearch.core.config import Config
from deepresearch.core.errors import ConfigError
from deepresearch.core.spendplan import ReportShare, Stage, smallest_ceiling, split
from deepresearch.core.workspace import Workspace

FULL = ReportShare(analysis=True, figures=True, support=True)


def budget(tmp_path: Path, share: ReportShare | None = FULL, **settings: object) -> Budget:
    workspace = Workspace(tmp_path)
    workspace.private.mkdir(exist_ok=True)
    found = Budget(workspace, Config(**settings))  # type: ignore[arg-type]
    if share is not None:
        found.plan(share)
    return found


@pytest.mark.parametrize(
    ("share", "keeps"),
    [
        # research, analysis, figures, synthesizer, support check, repair
        (FULL, (5, 4, 3, 0, 1, 0)),
        (ReportShare(), (2, 2, 2, 0, 1, 0)),
        (ReportShare(support=True), (3, 3, 3, 0, 1, 0)),
        (ReportShare(figures=True), (3, 3, 2, 0, 1, 0)),
    ],
)
def test_each_stage_keeps_what_the_stages_after_it_need(share: ReportShare, keeps: tuple[int, ...]) -> None:
    stages = (Stage.RESEARCH, Stage.ANALYSIS, Stage.FIGURES, Stage.SYNTHESIS, Stage.SUPPORT, Stage.REPAIR)
    assert tuple(share.keep(stage) for stage in stages) == keeps
    assert share.keep(Stage.RESEARCH) == share.calls


def test_the_split_and_the_smallest_workable_ceiling(tmp_path: Path) -> None:
    assert smallest_ceiling(FULL) == 8 and smallest_ceiling(ReportShare()) == 5
    parts = split(20, 30, FULL)
    assert (parts.research_calls, parts.report_calls, parts.report_minutes) == (15, 5, 7.5)
    assert parts.report_stages == ["analysis", "figures", "synthesizer", "support check", "repair"]
    assert split(None, 60, FULL).report_minutes == 15.0  # no call ceiling: a quarter of the time
    with pytest.raises(
        ConfigError, match=r"max_agent_calls: 7 is too small .* smallest workable ceiling is 8"
    ):
        budget(tmp_path, max_agent_calls=7)
    budget(tmp_path, max_agent_calls=8)
    budget(tmp_path, max_agent_calls=0)  # no limit


def test_parallel_reservations_never_take_the_reports_calls(tmp_path: Path) -> None:
    spend = budget(tmp_path, ReportShare(support=True), max_agent_calls=6)  # 3 kept for the report
    granted: list[object] = []
    refused: list[str] = []
    barrier = threading.Barrier(5)

    def start() -> None:
        barrier.wait()
        try:
            granted.append(spend.reserve_call(Stage.RESEARCH))
        except BudgetExhaustedError as exc:
            refused.append(exc.message)

    threads = [threading.Thread(target=start) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(granted) == 3 and len(refused) == 2
    assert refused[0].startswith("agent call budget spent (0 of 6, 3 running, 3 kept for the report")
    # The report's calls are still there, in its order; nothing more.
    assert spend.research_stop_reason() is not None
    for ticket in granted:  # each call ends: recorded (confirmed)
        spend.record_call({"cost_usd": 0}, ticket)  # type: ignore[arg-type]
    assert (spend.calls_made(), spend.calls_running()) == (3, 0)
    tickets = [spend.reserve_call(Stage.SYNTHESIS), spend.reserve_call(Stage.SUPPORT)]
    assert spend.refusal(Stage.SUPPORT) is not None  # a second support check would take the repair's
    tickets.append(spend.reserve_call(Stage.REPAIR))
    with pytest.raises(BudgetExhaustedError, match=r"agent call budget spent \(3 of 6, 3 running\)"):
        spend.reserve_call(Stage.REPAIR)
    spend.release(tickets[-1])  # a call that never started gives its reservation back
    spend.release(tickets[-1])  # (once)
    assert spend.calls_running() == 2 and spend.refusal(Stage.REPAIR) is None


def test_minutes_are_kept_across_sessions_and_the_report_keeps_its_share(tmp_path: Path) -> None:
    now = [0.0]
    first = Budget(Workspace(tmp_path), Config(max_minutes=40, max_agent_calls=0), clock=lambda: now[0])
    (tmp_path / ".deepresearch").mkdir()
    first.plan(ReportShare())
    now[0] = 25 * 60.0
    assert first.refusal(Stage.RESEARCH) is None  # 25 + 10 kept (a quarter) < 40
    first.checkpoint()
    second = Budget(Workspace(tmp_path), Config(max_minutes=40, max_agent_calls=0), clock=lambda: now[0])
    second.plan(ReportShare())
    now[0] += 6 * 60.0  # 31 minutes in all
    assert second.minutes_used() == pytest.approx(31.0)
    assert (
        second.refusal(Stage.RESEARCH) == "time budget spent (31.0 of 40 minutes, 10.0 kept for the report)"
    )
    assert second.refusal(Stage.ANALYSIS) is None and second.refusal(Stage.SYNTHESIS) is None
    now[0] += 10 * 60.0
    assert second.refusal(Stage.ANALYSIS) == "time budget spent (41.0 of 40 minutes)"
    assert second.refusal(Stage.SYNTHESIS) is None  # the report's own call is never stopped by time


def test_calls_reserve_their_share_of_cost_once_a_call_has_one(tmp_path: Path) -> None:
    spend = budget(tmp_path, ReportShare(), max_cost_usd=0.9, max_agent_calls=0)
    spend.record_call({"cost_usd": 0.2})  # a call costs $0.20: the report's 2 calls, $0.40
    first = spend.reserve_call()  # 0.2 spent + 0.2 this call + 0.4 kept = 0.8
    # Another would make 0.2 spent + 0.2 running + 0.2 + 0.4 = 1.0 > 0.9.
    assert spend.refusal() == "cost budget spent ($0.20 of $0.90, ~$0.40 kept for the report)"
    spend.release(first)
    assert spend.refusal() is None
