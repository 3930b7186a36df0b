"""Conflicts by evidence weight, in code: which side is preferred, by how much, and C-tasks to settle
the serious ones. Conflicts are never resolved silently: every side stays in `## Conflicts`.

A C-task is settled (`settling_fact`) by a verified fact of its own from a source at least as
authoritative as the strongest side of its conflict (or of tier-1 authority): it ends there, not by
Top-K saturation.
"""

from __future__ import annotations

from datetime import date

from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.novelty import holds
from deepresearch.sources.weight import authority, evidence_weight, recency
from deepresearch.state.model import (
    WEIGHTS_MARKER,
    Conflict,
    Fact,
    Priority,
    Severity,
    Source,
    Task,
    TaskDoc,
    TaskStatus,
    next_id,
)

SETTLE = "Settle "
TIER1_AUTHORITY = 0.9


def source_weight(source: Source, research_date: date, time_scope: str | None) -> float:
    """W = 0.6·authority + 0.4·recency of one source."""
    auth = source.authority if source.authority is not None else authority(source.type, source.url)
    return evidence_weight(auth, recency(source.published, research_date, time_scope))


def weigh(doc: TaskDoc, conflict: Conflict, research_date: date, time_scope: str | None) -> None:
    """Set the preferred fact (highest W among its sources) and write the weights into Resolution."""
    sources = {s.id: s for s in doc.sources}
    facts = {f.id: f for f in doc.facts}
    weights: list[tuple[float, str]] = []
    for fact_id in conflict.facts:
        fact = facts.get(fact_id)
        if fact is None:
            continue
        best = max(
            (source_weight(sources[s], research_date, time_scope) for s in fact.sources if s in sources),
            default=0.0,
        )
        weights.append((best, fact_id))
    if len(weights) < 2:
        return
    ranked = sorted(weights, key=lambda item: (-item[0], item[1]))
    (top, preferred), (second, _) = ranked[0], ranked[1]
    conflict.preferred = preferred if top > second else ""
    listing = ", ".join(f"{fid} W={w:.2f}" for w, fid in ranked)
    verdict = (
        f"{preferred} preferred, margin {top - second:.2f}" if top > second else "tie: no side preferred"
    )
    wording = conflict.resolution.split(WEIGHTS_MARKER)[0].strip()
    conflict.resolution = f"{wording}{WEIGHTS_MARKER}{listing}; {verdict}".strip()


def weigh_all(ctx: RunContext) -> None:
    """Recompute every conflict's preferred side (new sources may have tipped the balance)."""
    for conflict in ctx.doc.conflicts:
        weigh(ctx.doc, conflict, ctx.clock().date(), ctx.config.time_scope)


def conflict_tasks(ctx: RunContext, next_round: int) -> list[Task]:
    """A C-task for each high-severity conflict that has none yet: find the most authoritative source."""
    doc = ctx.doc
    facts = {f.id: f for f in doc.facts}
    tasks = {t.id: t for t in doc.tasks}
    settled = {t.title.split(":", 1)[0].removeprefix(SETTLE) for t in doc.tasks if t.id.startswith("C")}
    created = []
    for conflict in doc.conflicts:
        if conflict.severity is not Severity.HIGH or conflict.id in settled:
            continue
        dims: list[str] = []
        for fact_id in conflict.facts:
            owner = tasks.get(facts[fact_id].task) if fact_id in facts else None
            dims += [d for d in (owner.dimensions if owner else []) if d not in dims]
        title = (
            f"{SETTLE}{conflict.id}: {conflict.topic or 'conflicting facts'} ({', '.join(conflict.facts)} disagree). "
            "Find the most authoritative primary source that decides it."
        )
        task = Task(next_id([t.id for t in doc.tasks], "C"), title, dims or [doc.dimensions[0].id],
                    Priority.HIGH, [], TaskStatus.PENDING, next_round)  # fmt: skip
        doc.tasks.append(task)
        created.append(task)
    return created


def conflict_of(doc: TaskDoc, task: Task) -> Conflict | None:
    """The conflict a C-task was created to settle (None for any other task)."""
    if not task.id.startswith("C") or not task.title.startswith(SETTLE):
        return None
    wanted = task.title.removeprefix(SETTLE).split(":", 1)[0].strip()
    return next((c for c in doc.conflicts if c.id == wanted), None)


def _authority(source: Source | None) -> float:
    if source is None:
        return 0.0
    return source.authority if source.authority is not None else authority(source.type, source.url)


def deciding_authority(doc: TaskDoc, conflict: Conflict) -> float:
    """How authoritative a source must be to settle `conflict`: as much as its strongest side's
    (tier-1 at most)."""
    sides = [_authority(doc.source(sid)) for f in doc.facts if f.id in conflict.facts for sid in f.sources]
    return min(max(sides, default=0.0), TIER1_AUTHORITY)


def settling_fact(doc: TaskDoc, task: Task, conflict: Conflict) -> tuple[Fact, Source] | None:
    """The C-task's verified fact (and its source) that settles `conflict`, if it has one."""
    needed = deciding_authority(doc, conflict)
    best: tuple[float, Fact, Source] | None = None
    for fact in doc.facts:
        if fact.task != task.id or not holds(fact):  # an unsupported fact settles nothing
            continue
        for source in filter(None, map(doc.source, fact.sources)):
            weight = _authority(source)
            if weight >= needed and (best is None or weight > best[0]):
                best = (weight, fact, source)
    return (best[1], best[2]) if best is not None else None
