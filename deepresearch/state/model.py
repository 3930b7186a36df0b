"""The task.md model: pure data, no I/O (docs/architecture.md: task.md).

`TaskDoc` is the whole document. The parser builds it from text, the writer renders it back, the
orchestrator is the only code that mutates it and saves it. IDs are global and never renumbered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class RunStatus(StrEnum):
    PLANNING = "planning"
    RESEARCHING = "researching"
    REFLECTING = "reflecting"
    SYNTHESIZING = "synthesizing"
    COMPLETED = "completed"
    FAILED = "failed"


class Mode(StrEnum):
    ADAPTIVE = "adaptive"
    FIXED = "fixed"


class TaskStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"


class Priority(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    @property
    def rank(self) -> int:
        """0 for high: sort ascending to dispatch high priority first."""
        return {"high": 0, "medium": 1, "low": 2}[self.value]


class Confidence(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Severity(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Verified(StrEnum):
    """Whether the orchestrator found the fact's quote in the archived source text."""

    YES = "yes"
    PARTIAL = "partial"  # the quote is there, but a number the statement gives is not
    NO = "no"
    UNCHECKED = "unchecked"  # no archive to check against (yet)


class Support(StrEnum):
    """Whether the quote supports the statement, as the verifier role judged it."""

    SUPPORTED = "supported"
    PARTIAL = "partial"
    UNSUPPORTED = "unsupported"
    UNCHECKED = "unchecked"


class GapStatus(StrEnum):
    OPEN = "open"
    ADDRESSED = "addressed"  # a task was created for it
    CLOSED = "closed"  # the reflector no longer lists it


@dataclass
class PlannedLanguage:
    """A language the research searches in (a code such as `de`), and why it matters."""

    code: str
    reason: str = ""


@dataclass
class FrontMatter:
    id: str
    question: str
    status: RunStatus = RunStatus.PLANNING
    round: int = 0
    mode: Mode = Mode.ADAPTIVE
    created: str = ""  # ISO 8601, UTC
    updated: str = ""
    agents: dict[str, str] = field(default_factory=dict)  # role -> "backend" or "backend/model"
    settings: dict[str, Any] = field(default_factory=dict)  # run settings (thresholds, limits, budget)
    termination_reason: str = ""
    complexity: str = ""  # planner's judgement: simple | comparison | analytical
    languages: list[PlannedLanguage] = field(default_factory=list)  # planned, with reasons; [] = none yet


@dataclass
class Question:
    """A question asked in the workspace: the first, then each follow-up (state/questions.py)."""

    id: str  # Q1, Q2, ...
    question: str  # its first line
    asked: str = ""  # ISO 8601, UTC
    round: int = 1  # its first research round (rounds continue across questions)
    # The highest dimension, source, fact and conflict IDs task.md held when it was asked: what is
    # numbered above them came with this question (IDs are global and never renumbered).
    known: list[str] = field(default_factory=list)
    report: str = ""  # report.md for the current question; reports/NN-slug.md once it is kept


@dataclass
class Dimension:
    id: str  # D1, D2, ...
    name: str
    description: str = ""
    coverage: str = "none"  # none | partial | good (set by the reflector's judgement)


@dataclass
class OutlineSection:
    section: str
    dimensions: list[str] = field(default_factory=list)
    questions: str = ""


@dataclass
class Task:
    id: str  # E1, E2 ... research tasks; C1, C2 ... conflict-resolution tasks
    title: str
    dimensions: list[str] = field(default_factory=list)
    priority: Priority = Priority.MEDIUM
    depends: list[str] = field(default_factory=list)
    status: TaskStatus = TaskStatus.PENDING
    round: int = 1


@dataclass
class Fact:
    id: str  # Fact-001, Fact-002, ... (grows past 999 as Fact-1000)
    statement: str
    sources: list[str] = field(default_factory=list)  # source IDs, S01 ...
    confidence: Confidence = Confidence.MEDIUM
    quote: str = ""
    verified: Verified = Verified.UNCHECKED
    task: str = ""  # the task that produced it
    support: Support = Support.UNCHECKED  # judged by the verifier role
    dimensions: list[str] = field(default_factory=list)  # the ones it serves; [] = its task's
    support_reason: str = ""  # the verifier's one-line reason for its Support verdict


# Sources' `flags` (set by code, never by agents): `suspicious` marks a page with instruction-like
# text aimed at AI agents (sources/injection.py).
SUSPICIOUS = "suspicious"


@dataclass
class Source:
    id: str  # S01, S02, ... (grows past 99 as S100)
    title: str
    url: str
    type: str = "unknown"  # official | peer-reviewed | industry | news | blog | forum | social | unknown
    published: str = ""  # ISO date when the source declares one
    accessed: str = ""  # ISO date-time of archiving
    authority: float | None = None  # 0..1, computed by code from type and domain
    archive: str = ""  # path under the workspace, e.g. assets/web/S07-example-com.md
    sha256: str = ""
    copy_of: str = ""  # the source whose main text this one repeats (counted once as support)
    flags: list[str] = field(default_factory=list)  # e.g. suspicious (instructions aimed at AI agents)
    language: str = ""  # of its archived text, detected by code (core/langdetect.py); "" = unknown


# Where a conflict's resolution turns from the reflector's words to the weights code wrote.
WEIGHTS_MARKER = " — evidence weight: "


@dataclass
class Conflict:
    id: str  # CONF-1, CONF-2, ...
    topic: str
    facts: list[str] = field(default_factory=list)
    severity: Severity = Severity.MEDIUM
    preferred: str = ""  # fact ID preferred by evidence weight, with the margin in resolution
    resolution: str = ""

    @property
    def weights(self) -> str:
        """The evidence weights and margin code wrote into the resolution ("" when none)."""
        return self.resolution.partition(WEIGHTS_MARKER)[2]


@dataclass
class QualityRow:
    round: int
    score: float
    completeness: float | None = None
    depth: float | None = None
    reliability: float | None = None
    actionability: float | None = None
    gaps: int = 0
    decision: str = ""  # continue | stop: <reason>


@dataclass
class Gap:
    id: str  # G1, G2, ...
    gap: str
    round: int
    status: GapStatus = GapStatus.OPEN


@dataclass
class TaskDoc:
    """The whole task.md: front matter plus every section, in contract order."""

    front: FrontMatter
    request: str = ""
    questions: list[Question] = field(default_factory=list)
    dimensions: list[Dimension] = field(default_factory=list)
    outline: list[OutlineSection] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    quality: list[QualityRow] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    scratchpad: str = ""

    def task(self, task_id: str) -> Task | None:
        """The task with this ID, or None."""
        return next((t for t in self.tasks if t.id == task_id), None)

    def source(self, source_id: str) -> Source | None:
        """The source with this ID, or None."""
        return next((s for s in self.sources if s.id == source_id), None)

    def fact(self, fact_id: str) -> Fact | None:
        """The fact with this ID, or None."""
        return next((f for f in self.facts if f.id == fact_id), None)

    def original(self, source_id: str) -> str:
        """The source that counts as independent support for `source_id`: its original when it is
        a copy of another source, else itself."""
        copies = {s.id: s.copy_of for s in self.sources if s.copy_of}
        seen = {source_id}
        while source_id in copies and copies[source_id] not in seen:
            source_id = copies[source_id]
            seen.add(source_id)
        return source_id

    def fact_dimensions(self, fact: Fact) -> list[str]:
        """The dimensions a fact serves: its own when the executor named them, else its task's."""
        if fact.dimensions:
            return list(fact.dimensions)
        task = self.task(fact.task)
        return list(task.dimensions) if task is not None else []

    def independent(self, source_ids: list[str]) -> set[str]:
        """The distinct originals among `source_ids`: copies of one text count once."""
        return {self.original(s) for s in source_ids}

    def suspicious(self) -> set[str]:
        """IDs of the sources flagged suspicious (instruction-like text aimed at AI agents)."""
        return {s.id for s in self.sources if SUSPICIOUS in s.flags}


def format_fact_id(n: int) -> str:
    """Fact-001 ... Fact-999, Fact-1000: zero-padded to three digits, never truncated."""
    return f"Fact-{n:03d}"


def format_source_id(n: int) -> str:
    """S01 ... S99, S100: zero-padded to two digits, never truncated."""
    return f"S{n:02d}"


def id_number(identifier: str) -> int:
    """The numeric part of an ID such as Fact-012, S07, E3, CONF-2 or G4 (0 when it has none)."""
    digits = "".join(ch for ch in identifier.rsplit("-", 1)[-1] if ch.isdigit())
    return int(digits) if digits else 0


def next_id(existing: list[str], prefix: str) -> str:
    """The next ID for a family (E, C, G, CONF-, D, Q): one past the highest number in use."""
    used = [id_number(i) for i in existing if i.startswith(prefix)]
    return f"{prefix}{max(used, default=0) + 1}"
