"""What the live display costs the run: time per event in the sink, and time per redraw.

The sink is called on the orchestrator's and executors' threads, so it must be cheap; the redraw
runs on rich's own thread a few times a second. Run: `python bench/live_display.py`. Prints the
microseconds per event (null sink, plain display, live display while drawing) and the milliseconds
per redraw with a task.md of 30 tasks and 2,000 facts and 6 agents at work.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console

from deepresearch.core.events import AgentFinished, AgentStarted, Event, NullSink
from deepresearch.core.workspace import Workspace
from deepresearch.state import model as m
from deepresearch.state.store import StateStore
from deepresearch.ui.live import LiveDisplay
from deepresearch.ui.plain import PlainDisplay

EVENTS = 20_000


def events() -> list[Event]:
    out: list[Event] = []
    for i in range(EVENTS // 2):
        out.append(AgentStarted("executor", f"E{i % 30}", f"E{i % 30}", "claude", "sonnet", 1, 1))
        out.append(
            AgentFinished("executor", f"E{i % 30}", f"E{i % 30}", "claude", 1, True, 0, 1.0, 10, 2, 0.001)
        )
    return out


def per_event(sink: object, batch: list[Event]) -> float:
    start = time.perf_counter()
    for event in batch:
        sink(event)  # type: ignore[operator]
    return (time.perf_counter() - start) / len(batch) * 1e6


def workspace_with_state(root: Path) -> Workspace:
    workspace = Workspace(root)
    workspace.ensure()
    doc = m.TaskDoc(front=m.FrontMatter(id="dr-bench", question="Bench question"))
    doc.dimensions = [m.Dimension("D1", "Only")]
    doc.tasks = [m.Task(f"E{i}", f"Task {i}", ["D1"]) for i in range(1, 31)]
    doc.sources = [m.Source("S01", "Source", "https://example.org/", archive="assets/web/S01.md")]
    doc.facts = [m.Fact(m.format_fact_id(i), f"Fact {i}.", ["S01"], task="E1") for i in range(1, 2001)]
    StateStore(workspace).save(doc, "bench")
    for i in range(1, 7):
        workspace.log_file(f"E{i}").write_text("line\n" * 5000 + f"agent E{i} is reading a page\n")
    return workspace


def main() -> None:
    batch = events()
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as devnull:
        workspace = workspace_with_state(Path(tmp))
        console = Console(file=devnull, force_terminal=True, width=160)
        live = LiveDisplay(workspace, console)
        with live:
            live_us = per_event(live, batch)
        figures = {
            "null sink": per_event(NullSink(), batch),
            "plain display": per_event(PlainDisplay(devnull), batch),
            "live display (drawing)": live_us,
        }
        for name, value in figures.items():
            print(f"{name:<24} {value:8.2f} µs/event")
        for i in range(1, 7):
            live(AgentStarted("executor", f"E{i}", f"E{i}", "claude", None, 1, 1))
        start = time.perf_counter()
        rounds = 20
        for _ in range(rounds):
            console.print(live.render())
        print(
            f"{'redraw (30 tasks, 2,000 facts, 6 agents)':<24} {(time.perf_counter() - start) / rounds * 1e3:8.2f} ms"
        )


if __name__ == "__main__":
    main()
