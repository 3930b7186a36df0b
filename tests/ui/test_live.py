"""The live display: a thread-safe sink, what it draws, quiet mode, pausing, resumed history."""

from __future__ import annotations

import io
import threading
from pathlib import Path

from rich.console import Console

from deepresearch.core.eventlog import EventLog
from deepresearch.core.events import (
    AgentFinished,
    AgentStarted,
    Notice,
    PhaseStarted,
    RoundFinished,
    RunFinished,
    RunStarted,
    TaskStatusChanged,
)  # fmt: skip
from deepresearch.core.workspace import Workspace
from deepresearch.ui.live import LiveDisplay


def terminal(width: int = 160) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=width, highlight=False, color_system=None), out


def started(label: str, task_id: str = "", role: str = "executor") -> AgentStarted:
    return AgentStarted(role, task_id, label, "claude", "sonnet", 1, 4242)


def finished(label: str, role: str = "executor") -> AgentFinished:
    return AgentFinished(role, "", label, "claude", 1, True, 0, 1.0, 100, 20, 0.01)


def run_finished() -> RunFinished:
    return RunFinished(
        "completed", "quality threshold met (8 ≥ 7)", "/w/report.md", 1, [8.0], 0, 0, 0, 0.0, 0
    )


def test_events_from_many_threads_are_all_counted_while_the_view_redraws(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    console, out = terminal()
    display = LiveDisplay(workspace, console, refresh_per_second=50)

    def agent_calls(n: int) -> None:
        for i in range(200):
            display(started(f"E{n}-{i}", f"E{n}"))
            display(finished(f"E{n}-{i}"))

    with display:
        threads = [threading.Thread(target=agent_calls, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        display(run_finished())
    assert display.progress.agent_calls == 1600
    assert display.progress.input_tokens == 160_000 and display.progress.output_tokens == 32_000
    assert abs(display.progress.cost_usd - 16.0) < 1e-6
    assert display.progress.running == {}
    text = out.getvalue()
    assert "research completed: quality threshold met (8 ≥ 7)" in text
    assert "agent calls: 1600" in text and "cost: $16.0000" in text


def test_the_view_shows_phase_round_scores_tasks_agents_and_their_last_log_line(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    workspace.ensure()
    workspace.log_file("E1").write_text(
        "=== 2026-01-01T00:00:00 $ claude -p ...\nsearching alpha statistics\n\n"
    )
    display = LiveDisplay(workspace, terminal()[0])
    for event in (
        RunStarted(str(tmp_path), "What is alpha?", False),
        PhaseStarted("reflect", 1),
        RoundFinished(1, 6.5, 2, "continue", "gaps remain"),
        PhaseStarted("execute", 2),
        TaskStatusChanged("E1", "running", 2),
        started("E1", "E1"),
        TaskStatusChanged("E2", "done", 2),
        Notice("could not archive https://example.org/x", "warning"),
    ):
        display(event)
    console, out = terminal()
    console.print(display.render())
    text = out.getvalue()
    assert "What is alpha?" in text and "phase execute · round 2" in text
    assert "quality: 6.5" in text
    assert "Agents at work" in text and "claude/sonnet" in text
    assert "searching alpha statistics" in text, "the last line of logs/E1.log"
    dag = text.split("Research DAG")[1].split("Agents at work")[0]
    rows = {line.split("│")[1].strip(): line for line in dag.splitlines() if line.startswith("│ E")}
    assert "running" in rows["E1"] and "done" in rows["E2"]
    assert "warning: could not archive https://example.org/x" in text


def test_quiet_draws_nothing_but_warnings_and_the_summary(tmp_path: Path) -> None:
    console, out = terminal()
    display = LiveDisplay(Workspace(tmp_path), console, quiet=True)
    with display:
        display(RunStarted(str(tmp_path), "What is alpha?", False))
        display(PhaseStarted("plan", 0))
        display(started("planner", role="planner"))
        display(Notice("picked up your edit of task.md"))
        display(Notice("took over a stale lock", "warning"))
        display(run_finished())
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert lines[0] == "warning: took over a stale lock"
    assert lines[1].startswith("research completed: quality threshold met")
    assert "Research DAG" not in out.getvalue() and "phase" not in out.getvalue()


def test_paused_hands_the_terminal_over_and_drawing_resumes(tmp_path: Path) -> None:
    display = LiveDisplay(Workspace(tmp_path), terminal()[0])
    with display:
        assert display.stop() is True and display.stop() is False
        display.start()
        with display.paused():
            assert display.stop() is False, "nothing is drawn while paused"
        assert display.stop() is True, "drawing resumed after the pause"


def test_a_resumed_run_shows_the_history_from_the_events_log(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    log = EventLog(workspace)
    log(RunStarted(str(tmp_path), "What is alpha?", False))
    log(started("planner", role="planner"))
    log(finished("planner", role="planner"))
    log(RoundFinished(1, 5.0, 3, "continue", "gaps remain"))
    display = LiveDisplay(workspace, terminal()[0])
    display(RunStarted(str(tmp_path), "What is alpha?", True))
    assert display.progress.agent_calls == 1 and display.progress.scores == [(1, 5.0)]
    assert display.progress.question == "What is alpha?"
