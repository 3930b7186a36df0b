"""What a follow-up starts from: the knowledge base as the planner and the executors see it.

The planner gets the dimensions with their facts counted (verified, stale) and dated, the facts
themselves (the newest first, a bounded number per dimension), the conflicts and the earlier
questions; it plans only what the follow-up needs and the base lacks or holds only stale. An
executor gets the known sources of its dimensions, to cite by ID (found with `search --local`)
instead of archiving them again; a stale one it archives again when it needs its current version.
Stale: archived before the freshness cutoff (pipeline/followup.py `renew_before`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from deepresearch.contracts.plan import KnownPlan
from deepresearch.pipeline.followup import renew_before
from deepresearch.state.model import Conflict, Fact, Question, Source, TaskDoc, Verified, id_number
from deepresearch.state.questions import current_question, family, is_follow_up, questions_of

FACTS_PER_DIMENSION = 12  # the planner sees this many facts of each dimension (newest first)
SOURCES_PER_TASK = 15  # an executor sees this many known sources of its dimensions


@dataclass(frozen=True)
class KnownFact:
    id: str
    statement: str
    sources: list[str]
    dated: str  # "published 2024-05-02, archived 2025-03-01"
    verified: str
    stale: bool


@dataclass(frozen=True)
class KnownDimension:
    id: str
    name: str
    description: str
    facts: int
    verified: int
    stale: int  # facts every source of which is stale
    span: str  # "published 2023-05-02 … 2024-11-30; archived 2025-03-01"
    listed: list[KnownFact] = field(default_factory=list)


@dataclass(frozen=True)
class KnownSource:
    id: str
    title: str
    url: str
    archived: str  # date
    stale: bool


@dataclass(frozen=True)
class KnownBase:
    """The knowledge base a follow-up question starts from."""

    questions: list[Question]  # the earlier ones
    dimensions: list[KnownDimension]
    conflicts: list[Conflict]
    freshness_days: float
    cutoff: str  # sources archived before this date-time are stale ("" when none is)
    next_dimension: str
    next_task: str
    facts: int
    sources: int


def _earlier(doc: TaskDoc, identifier: str) -> bool:
    """Known before the current question: tasks by round, the rest by the question's marks."""
    question = current_question(doc)
    if family(identifier) in ("E", "C"):
        task = doc.task(identifier)
        return task is not None and task.round < question.round
    marks = {family(i): id_number(i) for i in question.known}
    return id_number(identifier) <= marks.get(family(identifier), 0)


def known_plan(doc: TaskDoc) -> KnownPlan | None:
    """The IDs a follow-up's plan must not reuse (None for a first question)."""
    if not is_follow_up(doc):
        return None
    dims = {d.id: d.name for d in doc.dimensions if _earlier(doc, d.id)}
    return KnownPlan(dims, frozenset(t.id for t in doc.tasks if _earlier(doc, t.id)))


def _stale(source: Source | None, cutoff: datetime | None) -> bool:
    if source is None or cutoff is None or not source.accessed:
        return False
    try:
        accessed = datetime.fromisoformat(source.accessed)
    except ValueError:
        return False
    return (accessed if accessed.tzinfo else accessed.replace(tzinfo=cutoff.tzinfo)) < cutoff


def _span(dates: Iterable[str], what: str) -> str:
    found = sorted({d[:10] for d in dates if d})
    if not found:
        return ""
    return f"{what} {found[0]}" if len(found) == 1 else f"{what} {found[0]} … {found[-1]}"


def _fact(doc: TaskDoc, fact: Fact, cutoff: datetime | None) -> KnownFact:
    sources = [s for s in map(doc.source, fact.sources) if s is not None]
    dated = ", ".join(
        part for part in (_span((s.published for s in sources), "published"),
                          _span((s.accessed for s in sources), "archived")) if part
    )  # fmt: skip
    stale = bool(sources) and all(_stale(s, cutoff) for s in sources)
    return KnownFact(fact.id, fact.statement, list(fact.sources), dated, fact.verified.value, stale)


def known_base(doc: TaskDoc, freshness_days: float, now: datetime) -> KnownBase | None:
    """The knowledge base as the follow-up's planner sees it (None for a first question)."""
    plan = known_plan(doc)
    if plan is None:
        return None
    cutoff = renew_before(doc, freshness_days, now)
    facts = [f for f in doc.facts if _earlier(doc, f.id)]
    dimensions = []
    for dim in (d for d in doc.dimensions if d.id in plan.dimensions):
        mine = [_fact(doc, f, cutoff) for f in facts if dim.id in doc.fact_dimensions(f)]
        sources = [s for f in mine for s in map(doc.source, f.sources) if s is not None]
        span = "; ".join(
            p for p in (_span((s.published for s in sources), "published"),
                        _span((s.accessed for s in sources), "archived")) if p
        )  # fmt: skip
        newest = sorted(mine, key=lambda f: id_number(f.id), reverse=True)[:FACTS_PER_DIMENSION]
        dimensions.append(
            KnownDimension(
                dim.id, dim.name, dim.description, len(mine), sum(f.verified == Verified.YES for f in mine),
                sum(f.stale for f in mine), span, newest,
            )
        )  # fmt: skip
    return KnownBase(
        questions_of(doc)[:-1],
        dimensions,
        [c for c in doc.conflicts if _earlier(doc, c.id)],
        freshness_days,
        cutoff.isoformat(timespec="seconds") if cutoff is not None else "",
        plan.next_id("D"),
        plan.next_id("E"),
        len(facts),
        sum(_earlier(doc, s.id) for s in doc.sources),
    )


def known_sources(
    doc: TaskDoc, dimensions: Iterable[str], freshness_days: float, now: datetime
) -> list[KnownSource]:
    """Sources of earlier questions behind facts of `dimensions` (the most used first), for an
    executor of a follow-up to cite by ID; [] for a first question."""
    if not is_follow_up(doc):
        return []
    wanted, cutoff = set(dimensions), renew_before(doc, freshness_days, now)
    counts: dict[str, int] = {}
    for fact in doc.facts:
        if _earlier(doc, fact.id) and wanted & set(doc.fact_dimensions(fact)):
            for source_id in fact.sources:
                counts[source_id] = counts.get(source_id, 0) + 1
    ranked = sorted(counts, key=lambda s: (-counts[s], id_number(s)))[:SOURCES_PER_TASK]
    found = [s for s in map(doc.source, ranked) if s is not None and _earlier(doc, s.id)]
    return [KnownSource(s.id, s.title, s.url, s.accessed[:10], _stale(s, cutoff)) for s in found]
