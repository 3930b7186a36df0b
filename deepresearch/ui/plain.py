"""Plain, timestamped, line-oriented progress: for logs, CI and anything that is not a terminal."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

from deepresearch.core.events import (
    AgentFinished,
    AgentRetry,
    AgentStarted,
    BatchMeasured,
    CeilingsSet,
    Event,
    FactsMerged,
    Notice,
    OutputLenient,
    OutputRepair,
    PhaseFinished,
    PhaseStarted,
    QuestionStarted,
    RoundFinished,
    RunFinished,
    RunStarted,
    SaturationRules,
    TaskDecided,
)  # fmt: skip
from deepresearch.core.roles import ROLE_NAMES
from deepresearch.ui.text import ceilings_line, economy_line, rules_line


def format_event(event: Event) -> str | None:
    """The line shown for an event, or None for events not worth a line."""
    match event:
        case QuestionStarted():
            return f"follow-up {event.question_id}: {event.question} (the earlier report is kept in reports/)"
        case RunStarted():
            verb = "resuming" if event.resumed else "starting"
            return f"{verb} research in {event.workdir}: {event.question}"
        case PhaseStarted():
            return f"phase {event.phase}" + (f" (round {event.round})" if event.round else "")
        case PhaseFinished():
            return f"phase {event.phase} done" + (f": {event.detail}" if event.detail else "")
        case AgentStarted():
            return f"  ▶ {event.label} ({event.agent}{'/' + event.model if event.model else ''}, attempt {event.attempt})"
        case AgentFinished():
            status = "ok" if event.ok else f"failed ({event.failure}: {event.message})"
            return f"  ■ {event.label} {status} in {event.duration:.1f}s"
        case AgentRetry():
            return f"  ↻ {event.label} retry in {event.delay:.0f}s: {event.reason}"
        case OutputRepair():
            return f"  ✎ {event.label} output rejected, asking for a repair: " + "; ".join(event.problems[:3])
        case OutputLenient():
            return f"  ≈ {event.label} output read, though not written as asked: " + ", ".join(event.forms)
        case FactsMerged():
            return (
                f"  + {event.task_id}: {event.new_facts} facts, {event.new_sources} sources "
                f"(total {event.total_facts} facts, {event.total_sources} sources)"
            )
        case RoundFinished():
            score = f"{event.score:g}" if event.score is not None else "-"
            return f"round {event.round}: score {score}, {event.gaps} gaps → {event.decision}"
        case Notice():
            return f"{'warning: ' if event.level == 'warning' else ''}{event.message}"
        case RunFinished():
            return summary_text(event)
        case CeilingsSet():
            return f"this run will use {ceilings_line(event.to_dict())}"
        case SaturationRules():
            return rules_line(event.to_dict())
        case BatchMeasured():
            return _batch_line(event)
        case TaskDecided() if event.more:
            return f"  ↻ {event.task_id} needs another call: {event.reason}"
    return None


def _batch_line(event: BatchMeasured) -> str:
    what = "new: " + "; ".join(event.reasons) if event.new else "nothing new"
    trust = "" if event.trusted else " — batch log not trusted: " + "; ".join(event.problems)
    return f"  · {event.task_id} batch {event.batch}: {what}{trust}"


def summary_text(event: RunFinished) -> str:
    """The final summary: report, termination reason, score history, usage and cost."""
    scores = " → ".join(f"{s:g}" for s in event.scores) or "-"
    lines = [
        f"research {event.status}" + (f": {event.reason}" if event.reason else ""),
        f"  report: {event.report or '-'}" + _verification(event.violations),
        f"  rounds: {event.rounds}; scores: {scores}",
        f"  agent calls: {event.agent_calls}{by_role(event.calls_by_role)}{_session(event)}; tokens: "
        f"{event.input_tokens} in / {event.output_tokens} out; cost: ${event.cost_usd:.4f}",
    ]
    if event.economy:
        lines.append(f"  {economy_line(event.economy)}")
    return "\n".join(lines)


def _session(event: RunFinished) -> str:
    """ "; this session 4" when earlier sessions made some of the run's calls."""
    made = event.session_calls
    return f"; this session {made}" if made is not None and made != event.agent_calls else ""


def by_role(calls: dict[str, int]) -> str:
    """ " (planner 1, executor 4, ...)" in pipeline order, or "" when nothing was counted."""
    order = ROLE_NAMES
    known = [(r, calls[r]) for r in order if r in calls] + [
        (r, n) for r, n in calls.items() if r not in order
    ]
    return " (" + ", ".join(f"{r} {n}" for r, n in known) + ")" if known else ""


def _verification(violations: int | None) -> str:
    if violations is None:
        return ""
    return (
        " (verified: every check passed)"
        if violations == 0
        else f" ({violations} verification problems listed in it)"
    )


class PlainDisplay:
    """Writes one timestamped line per event; `quiet` keeps only warnings and the final summary."""

    def __init__(self, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.stream = stream or sys.stdout
        self.quiet = quiet
        self._lock = threading.Lock()
        self._ceilings: dict[str, object] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, CeilingsSet):
            self._ceilings = event.to_dict()  # for the summary, even when quiet
        if self.quiet and not isinstance(event, (RunFinished, Notice)):
            return
        if self.quiet and isinstance(event, Notice) and event.level != "warning":
            return
        line = format_event(event)
        if line is None:
            return
        if isinstance(event, RunFinished) and self._ceilings:
            line += f"\n  ceilings: {ceilings_line(self._ceilings)}"
        stamp = time.strftime("%H:%M:%S", time.localtime(event.ts))
        with self._lock:
            for part in line.splitlines():
                self.stream.write(f"{stamp} {part}\n")
            self.stream.flush()
