"""The batch's displays: the live table's rows follow the events; plain lines without a terminal."""

from __future__ import annotations

import io

from rich.console import Console

from deepresearch.batch.events import (
    BatchBudgetReached,
    BatchFinished,
    BatchStarted,
    JobFinished,
    JobProgress,
    JobRetry,
    JobStarted,
    LineRejected,
)
from deepresearch.ui.batch_live import BatchLiveDisplay
from deepresearch.ui.batch_plain import BatchPlainDisplay

EVENTS = [
    BatchStarted("/runs/b", 3, 2, 2, "local", False, {"a": "pending", "b": "pending", "c": "done"}, ts=100.0),
    LineRejected("q.jsonl", 4, "not valid JSON", ts=100.0),
    JobStarted("a", 1, False, ts=101.0),
    JobProgress("a", "execute", 1, None, 3, 0.03, ts=102.0),
    JobStarted("b", 1, False, ts=101.0),
    JobRetry("b", 1, 2, "exit 5", ts=103.0),
    JobProgress("a", "reflect", 2, 6.5, 9, 0.09, ts=104.0),
    JobFinished("a", "done", 1, 0, 12.0, 11, 0.11, 11.8, 7.5, 2, "passed", ts=113.0),
    BatchBudgetReached("batch agent-call budget spent (20 of 20)", ["b"], ts=114.0),
    BatchFinished(
        {"done": 2, "pending": 1}, 20, 0.2, 14.0, "batch agent-call budget spent (20 of 20)", ts=114.0
    ),
]


def test_the_live_table_shows_each_job_as_its_events_say() -> None:
    out = io.StringIO()
    console = Console(file=out, width=160, force_terminal=False, color_system=None)
    display = BatchLiveDisplay(console, quiet=True)  # quiet: no redraw thread, the table is rendered below
    for event in EVENTS[:7]:
        display(event)
    running = Console(width=160, color_system=None, record=True)
    running.print(display.render())
    rows = {line.split()[0]: line.split() for line in running.export_text().splitlines()[2:] if line.strip()}
    assert rows["a"][1:6] == ["running", "reflect", "2", "6.5", "9"] and rows["a"][6] == "$0.0900"
    assert rows["b"][1] == "running" and "retrying: exit 5" in " ".join(rows["b"])
    assert rows["c"][1] == "done"
    for event in EVENTS[7:]:
        display(event)
    final = Console(width=160, color_system=None, record=True)
    final.print(display.render())
    row_a = next(line for line in final.export_text().splitlines() if line.startswith("a "))
    assert row_a.split()[1:7] == ["done", "finished", "2", "7.5", "11", "$0.1100"] and "passed" in row_a
    printed = out.getvalue()
    assert "line 4: not valid JSON" in printed and "not started: b" in printed
    assert "batch finished: 2 done, 1 pending — stopped: batch agent-call budget spent" in printed


def test_plain_lines_and_quiet_mode() -> None:
    loud, quiet = io.StringIO(), io.StringIO()
    for stream, is_quiet in ((loud, False), (quiet, True)):
        display = BatchPlainDisplay(stream, quiet=is_quiet)
        for event in EVENTS:
            display(event)
    text = loud.getvalue()
    assert "starting batch in /runs/b: 3 jobs, 2 to run, 2 at once (local)" in text
    assert "▶ a: starting (attempt 1)" in text and "a: reflect round 2, score 6.5, 9 calls" in text
    assert "↻ b: attempt 1 failed (exit 5); resuming it" in text
    assert "■ a: done (12.0s · 11 calls · $0.1100 · score 7.5 · report passed)" in text
    kept = quiet.getvalue()
    assert "▶ a" not in kept and "■ a" not in kept  # quiet: only problems and the summary
    assert "line 4" in kept and "batch budget:" in kept and "batch finished" in kept
