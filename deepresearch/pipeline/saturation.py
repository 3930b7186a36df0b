"""Top-K saturation per executor task, in code: when has a task found enough?

The orchestrator runs each executor task in batches. After each merged batch it measures what the
batch brought (a verified fact, a new source, a newly covered dimension, a contradiction) and
decides, by these rules alone, whether another batch is worth its cost:

- never fewer than `min_batches`, never more than `max_batches`;
- otherwise stop only when `saturation_threshold` batches in a row brought nothing new, every
  dimension of the task is covered by a verified fact, and at least `min_tier1_sources` sources of
  authority ≥ 0.9 back the task's facts.

Queries use `k_initial` results in batches 1-2 and `k_expand` after a batch that brought nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.core.effort import Saturation
from deepresearch.state.merge import MergeOutcome
from deepresearch.state.model import Task, TaskDoc, Verified

TIER1_AUTHORITY = 0.9


@dataclass(frozen=True)
class Novelty:
    """What one batch added to the knowledge graph."""

    verified_facts: int = 0
    sources: int = 0
    dimensions: tuple[str, ...] = ()
    contradictions: int = 0

    @property
    def anything(self) -> bool:
        return bool(self.verified_facts or self.sources or self.dimensions or self.contradictions)


@dataclass
class BatchState:
    """One running task's batches so far (kept in memory by the execute phase)."""

    task_id: str
    batches: int = 0
    streak: int = 0  # batches in a row that brought nothing new
    last_brought_something: bool = True
    reason: str = ""


def covered_dimensions(doc: TaskDoc) -> set[str]:
    """Dimensions that at least one verified fact serves (a fact serves its task's dimensions)."""
    dims_of = {t.id: t.dimensions for t in doc.tasks}
    covered: set[str] = set()
    for fact in doc.facts:
        if fact.verified is Verified.YES:
            covered.update(dims_of.get(fact.task, []))
    return covered


def tier1_sources(doc: TaskDoc, task_id: str) -> int:
    """Independent sources of authority ≥ 0.9 that back at least one of the task's facts (an
    original and its copies count once)."""
    authority = {s.id: s.authority or 0.0 for s in doc.sources}
    backing = {sid for f in doc.facts if f.task == task_id for sid in f.sources}
    return len(doc.independent([sid for sid in backing if authority.get(sid, 0.0) >= TIER1_AUTHORITY]))


def measure(
    doc: TaskDoc, merged: MergeOutcome, covered_before: set[str], task: Task, contradictions: int
) -> Novelty:
    """What the batch just merged into `doc` brought."""
    new_ids = set(merged.new_fact_ids)
    verified = sum(1 for f in doc.facts if f.id in new_ids and f.verified is Verified.YES)
    newly = tuple(sorted((covered_dimensions(doc) - covered_before) & set(task.dimensions)))
    return Novelty(verified, len(merged.new_source_ids), newly, contradictions)


def next_k(state: BatchState, sat: Saturation) -> int:
    """Documents per query for the next batch."""
    return sat.k_initial if state.last_brought_something else sat.k_expand


def after_batch(state: BatchState, novelty: Novelty, doc: TaskDoc, task: Task, sat: Saturation) -> bool:
    """Record a finished batch; True when the task should run another one (reason kept)."""
    state.batches += 1
    state.last_brought_something = novelty.anything
    state.streak = 0 if novelty.anything else state.streak + 1
    if state.batches >= sat.max_batches:
        state.reason = f"max_batches ({sat.max_batches}) reached"
        return False
    if state.batches < sat.min_batches:
        return True
    covered = set(task.dimensions) <= covered_dimensions(doc)
    tier1 = tier1_sources(doc, task.id)
    if state.streak >= sat.saturation_threshold and covered and tier1 >= sat.min_tier1_sources:
        state.reason = (
            f"saturated after {state.batches} batches ({state.streak} in a row brought nothing new; "
            f"dimensions covered; {tier1} tier-1 sources)"
        )
        return False
    return True
