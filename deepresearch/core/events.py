"""Typed events the core emits while it runs; `ui/` renders them and `logs/events.jsonl` stores them.

The core never prints: it hands events to an `EventSink`. Executors run in threads, so sinks must be
thread-safe (the provided ones lock).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Event:
    """Base event: every event has a wall-clock timestamp and a kind (its class name, snake_case)."""

    ts: float = field(default_factory=time.time, kw_only=True)

    @property
    def kind(self) -> str:
        name = type(self).__name__
        return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the kind first, then every field."""
        data: dict[str, Any] = {"event": self.kind}
        data.update(dataclasses.asdict(self))
        return data


@dataclass(frozen=True)
class RunStarted(Event):
    workdir: str
    question: str
    resumed: bool


@dataclass(frozen=True)
class QuestionStarted(Event):
    """A follow-up question in a workspace that answered one before: what follows is its run."""

    question_id: str
    question: str


@dataclass(frozen=True)
class PhaseStarted(Event):
    phase: str
    round: int


@dataclass(frozen=True)
class PhaseFinished(Event):
    phase: str
    round: int
    detail: str = ""


@dataclass(frozen=True)
class AgentStarted(Event):
    role: str
    task_id: str
    label: str  # the log name: planner, E3, reflector...
    agent: str
    model: str | None
    attempt: int
    pid: int


@dataclass(frozen=True)
class AgentFinished(Event):
    role: str
    task_id: str
    label: str
    agent: str
    attempt: int
    ok: bool
    exit_code: int | None
    duration: float
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    failure: str | None = None  # FailureKind value when not ok
    message: str = ""


@dataclass(frozen=True)
class AgentRetry(Event):
    role: str
    label: str
    attempt: int
    delay: float
    reason: str


@dataclass(frozen=True)
class OutputRepair(Event):
    role: str
    label: str
    problems: list[str]


@dataclass(frozen=True)
class OutputLenient(Event):
    """An output file read although not written as asked (contracts.yamlfile.Lenient: a fenced
    block, JSON instead of YAML, text around the YAML...)."""

    role: str
    label: str
    forms: list[str]


@dataclass(frozen=True)
class TaskStatusChanged(Event):
    task_id: str
    status: str
    round: int


@dataclass(frozen=True)
class FactsMerged(Event):
    task_id: str
    new_facts: int
    new_sources: int
    total_facts: int
    total_sources: int


@dataclass(frozen=True)
class CeilingsSet(Event):
    """The run's effective ceilings (None: no limit), shown at the start: "at most N agent calls",
    and their split: the calls (and minutes) kept for the report, what research may use."""

    agent_calls: int | None
    minutes: float | None
    searches: int | None
    cost_usd: float | None
    effort: str
    defaults: list[str] = field(default_factory=list)  # the ones taken from the effort preset
    report_calls: int = 0
    report_stages: list[str] = field(default_factory=list)  # synthesizer, repair, support check...
    research_calls: int | None = None  # None: no call ceiling
    report_minutes: float | None = None  # None: no time ceiling


@dataclass(frozen=True)
class SaturationRules(Event):
    """The Top-K rules code applies to every executor task of this execute phase."""

    batch_calls: str  # in_call | per_batch
    k_initial: int
    k_expand: int
    min_batches: int
    max_batches: int
    saturation_threshold: int
    min_tier1_sources: int
    max_calls_per_task: int
    novelty: list[str] = field(default_factory=list)  # what counts as new relevant information


@dataclass(frozen=True)
class BatchMeasured(Event):
    """One Top-K batch merged: whether its log was borne out by the records, and what code measured
    as new (beside what the executor claimed)."""

    task_id: str
    call: int
    batch: int
    trusted: bool
    new: bool
    reasons: list[str] = field(default_factory=list)
    claimed_new: bool | None = None
    claimed_reason: str = ""
    problems: list[str] = field(default_factory=list)
    queries: int = 0  # queries of the batch found in the search log
    new_facts: int = 0
    new_sources: int = 0


@dataclass(frozen=True)
class TaskDecided(Event):
    """Code's decision after an executor call: another call, or done (and why)."""

    task_id: str
    batches: int
    calls: int
    more: bool
    reason: str
    missing: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RoundFinished(Event):
    round: int
    score: float | None
    gaps: int
    decision: str
    reason: str
    agent_calls: int = 0  # so far, all sessions of the run
    cost_usd: float = 0.0
    section_coverage: dict[str, str] = field(default_factory=dict)  # outline section -> none|partial|good


@dataclass(frozen=True)
class Notice(Event):
    """Something the user should know that is not an error (stale lock taken over, fallbacks...)."""

    message: str
    level: str = "info"  # info | warning


@dataclass(frozen=True)
class RunFinished(Event):
    status: str
    reason: str
    report: str | None
    rounds: int
    scores: list[float]
    agent_calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    violations: int | None = None  # report verification: None when no report was verified
    calls_by_role: dict[str, int] = field(default_factory=dict)  # the whole run's, like agent_calls
    economy: dict[str, Any] = field(default_factory=dict)  # a follow-up's: pipeline.economy.Economy
    session_calls: int | None = None  # this invocation's calls (a resumed run made the rest before)


class EventSink(Protocol):
    """Anything that receives events: a display, the events log, a test recorder."""

    def __call__(self, event: Event) -> None: ...


class NullSink:
    """Discards events (tests, library use)."""

    def __call__(self, event: Event) -> None:
        return None


class RecordingSink:
    """Keeps every event in memory, thread-safely; for tests and summaries."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        with self._lock:
            self.events.append(event)

    def of_type(self, kind: type[Event]) -> list[Event]:
        with self._lock:
            return [e for e in self.events if isinstance(e, kind)]


class FanOut:
    """Sends each event to several sinks in order."""

    def __init__(self, *sinks: Callable[[Event], None]) -> None:
        self.sinks = list(sinks)

    def __call__(self, event: Event) -> None:
        for sink in self.sinks:
            sink(event)
