"""What a run looks like so far, folded from its events (live, or read back from logs/events.jsonl).

The live display and `deepresearch status` both fold event dicts (`Event.to_dict()` or a line of
events.jsonl) into a `RunProgress`, so the view during a run and the view afterwards are the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

_FINISHED_TASK = ("done", "failed", "skipped")
_KEEP_WARNINGS = 3


@dataclass
class AgentRun:
    """An agent call in progress."""

    label: str
    role: str
    agent: str
    started: float
    attempt: int = 1
    model: str = ""


@dataclass
class TaskTiming:
    """When a task of the DAG started and finished, as the events tell."""

    status: str = "pending"
    started: float | None = None
    ended: float | None = None


@dataclass
class BatchView:
    """One merged Top-K batch: whether its log was trusted, and what code measured as new."""

    call: int
    batch: int
    trusted: bool
    new: bool
    reasons: list[str] = field(default_factory=list)
    claimed_new: bool | None = None
    problems: list[str] = field(default_factory=list)


@dataclass
class TaskBatches:
    """An executor task's batches and calls, and code's last decision about it."""

    batches: list[BatchView] = field(default_factory=list)
    calls: int = 0
    decision: str = ""
    more: bool = False


@dataclass
class RunProgress:
    """The state of one run as its events describe it; `apply` one event dict at a time."""

    question: str = ""
    workdir: str = ""
    phase: str = ""
    round: int = 0
    started: float | None = None
    last_event: float | None = None
    scores: list[tuple[int, float]] = field(default_factory=list)
    tasks: dict[str, TaskTiming] = field(default_factory=dict)
    running: dict[str, AgentRun] = field(default_factory=dict)
    agent_calls: int = 0
    calls_by_role: dict[str, int] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    warnings: list[str] = field(default_factory=list)
    finished: dict[str, Any] | None = None  # the run_finished event of the last session
    ceilings: dict[str, Any] = field(default_factory=dict)  # the ceilings_set event of the last session
    rules: dict[str, Any] = field(default_factory=dict)  # the latest saturation_rules event
    batches: dict[str, TaskBatches] = field(default_factory=dict)  # per executor task

    def apply(self, event: Mapping[str, Any]) -> None:
        """Fold one event (a dict with an `event` kind, `ts` and the event's fields) into the state."""
        kind = str(event.get("event", ""))
        ts = _number(event.get("ts"))
        self.last_event = ts if ts is not None else self.last_event
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, event, ts or 0.0)

    def _run_started(self, event: Mapping[str, Any], ts: float) -> None:
        self.question = str(event.get("question", ""))
        self.workdir = str(event.get("workdir", ""))
        self.started = self.started if self.started is not None else ts
        self.running.clear()  # a new session: whatever the last one was running was stopped
        self.finished = None

    def _question_started(self, event: Mapping[str, Any], ts: float) -> None:
        # A follow-up: what earlier questions did is theirs; this question's run starts from nothing.
        fresh = RunProgress(question=str(event.get("question", "")), workdir=self.workdir, last_event=ts)
        self.__dict__.update(fresh.__dict__)

    def _phase_started(self, event: Mapping[str, Any], ts: float) -> None:
        self.phase = str(event.get("phase", ""))
        self.round = int(_number(event.get("round")) or self.round)

    def _agent_started(self, event: Mapping[str, Any], ts: float) -> None:
        label = str(event.get("label", ""))
        self.running[label] = AgentRun(
            label,
            str(event.get("role", "")),
            str(event.get("agent", "")),
            ts,
            int(event.get("attempt") or 1),
            str(event.get("model") or ""),
        )
        task_id = str(event.get("task_id") or "")
        if task_id and event.get("role") == "executor":
            timing = self.tasks.setdefault(task_id, TaskTiming())
            timing.started = timing.started or ts
            timing.status = "running"

    def _agent_finished(self, event: Mapping[str, Any], ts: float) -> None:
        self.running.pop(str(event.get("label", "")), None)
        self.agent_calls += 1
        role = str(event.get("role") or "?")
        self.calls_by_role[role] = self.calls_by_role.get(role, 0) + 1
        self.input_tokens += int(_number(event.get("input_tokens")) or 0)
        self.output_tokens += int(_number(event.get("output_tokens")) or 0)
        self.cost_usd += _number(event.get("cost_usd")) or 0.0

    def _task_status(self, event: Mapping[str, Any], ts: float) -> None:
        timing = self.tasks.setdefault(str(event.get("task_id", "")), TaskTiming())
        timing.status = str(event.get("status", ""))
        if timing.status == "running":
            timing.started, timing.ended = ts, None
        elif timing.status in _FINISHED_TASK:
            timing.ended = ts

    def _round_finished(self, event: Mapping[str, Any], ts: float) -> None:
        score = _number(event.get("score"))
        round_no = int(_number(event.get("round")) or 0)
        if score is not None:
            self.scores = [s for s in self.scores if s[0] != round_no] + [(round_no, score)]

    def _notice(self, event: Mapping[str, Any], ts: float) -> None:
        if event.get("level") == "warning":
            self.warnings = [*self.warnings, str(event.get("message", ""))][-_KEEP_WARNINGS:]

    def _ceilings(self, event: Mapping[str, Any], ts: float) -> None:
        self.ceilings = dict(event)

    def _rules(self, event: Mapping[str, Any], ts: float) -> None:
        self.rules = dict(event)

    def _batch(self, event: Mapping[str, Any], ts: float) -> None:
        task = self.batches.setdefault(str(event.get("task_id", "")), TaskBatches())
        number = int(_number(event.get("batch")) or 0)
        task.batches = [b for b in task.batches if b.batch != number]  # merged again after a crash
        claimed = event.get("claimed_new")
        task.batches.append(
            BatchView(
                int(_number(event.get("call")) or 0), number, bool(event.get("trusted")), bool(event.get("new")),
                [str(r) for r in event.get("reasons") or []], claimed if isinstance(claimed, bool) else None,
                [str(p) for p in event.get("problems") or []],
            )
        )  # fmt: skip

    def _decided(self, event: Mapping[str, Any], ts: float) -> None:
        task = self.batches.setdefault(str(event.get("task_id", "")), TaskBatches())
        task.calls = int(_number(event.get("calls")) or task.calls)
        task.decision, task.more = str(event.get("reason", "")), bool(event.get("more"))

    def _run_finished(self, event: Mapping[str, Any], ts: float) -> None:
        self.finished = dict(event)
        self.running.clear()
        self.phase = "finished"


_HANDLERS = {
    "run_started": RunProgress._run_started,
    "question_started": RunProgress._question_started,
    "phase_started": RunProgress._phase_started,
    "agent_started": RunProgress._agent_started,
    "agent_finished": RunProgress._agent_finished,
    "task_status_changed": RunProgress._task_status,
    "round_finished": RunProgress._round_finished,
    "notice": RunProgress._notice,
    "run_finished": RunProgress._run_finished,
    "ceilings_set": RunProgress._ceilings,
    "saturation_rules": RunProgress._rules,
    "batch_measured": RunProgress._batch,
    "task_decided": RunProgress._decided,
}


def fold(events: Iterable[Mapping[str, Any]]) -> RunProgress:
    """A RunProgress with every event applied in order."""
    progress = RunProgress()
    for event in events:
        progress.apply(event)
    return progress


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)
