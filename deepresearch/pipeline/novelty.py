"""Novelty that means relevance: what one Top-K batch added that the knowledge graph did not know.

A batch brings something new only with (code's rules, measured on task.md before and after the batch
is merged; the executor's own judgement is logged beside them but decides nothing):

- a verified fact (its quote found in the archive) for a dimension no verified fact covered yet
  (a fact serves the dimensions it names, else its task's; an outline section is covered through
  its dimensions);
- a verified fact with a quantitative value (a number with a unit, normalised: pipeline/quantities)
  that measures what its dimension asks about and that no fact of that dimension already holds — a
  fact restating known numbers is not new, nor is a page count, an HTTP status, a report's price or
  a count of votes, views or downloads (unless the dimension asks about those: `counts_for`);
- a new source of authority ≥ 0.9 backing a verified fact, counted by its original
  (`TaskDoc.original`): a copy of a known source is not new;
- a contradiction that names a fact already in task.md (Fact-NNN).

A fact the verifier judged unsupported by its own quote counts for none of these: it covers no
dimension, its numbers are not known, its sources back nothing (saturation ignores it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from deepresearch.pipeline.quantities import Quantity, counts_for, quantities
from deepresearch.state.model import Fact, Support, TaskDoc, Verified

TIER1_AUTHORITY = 0.9
_FACT_ID = re.compile(r"\bFact-\d+\b")

RULES = (
    "a verified fact for a dimension not yet covered",
    "a verified fact with a quantitative value (number + unit) not yet known for its dimension, measuring "
    "what the dimension asks about (not a page count, an HTTP status, a report's price, or votes, views, "
    "likes or downloads unless the dimension is about them)",
    f"a new independent source of authority ≥ {TIER1_AUTHORITY} (copies count once)",
    "a contradiction of a fact already in task.md",
)


@dataclass
class Known:
    """What the knowledge graph held before a batch: covered dimensions, quantities per dimension,
    the originals of its sources and its fact IDs."""

    covered: set[str] = field(default_factory=set)
    quantities: dict[str, list[Quantity]] = field(default_factory=dict)
    originals: set[str] = field(default_factory=set)
    fact_ids: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Novelty:
    """What one batch brought, by the rules above."""

    dimensions: tuple[str, ...] = ()
    quantities: tuple[str, ...] = ()
    tier1_sources: tuple[str, ...] = ()
    contradictions: int = 0

    @property
    def anything(self) -> bool:
        """Whether the batch brought new relevant information."""
        return bool(self.dimensions or self.quantities or self.tier1_sources or self.contradictions)

    def reasons(self) -> list[str]:
        """What was new, one phrase per kind (empty when nothing was)."""
        out = []
        if self.dimensions:
            out.append(f"verified fact for uncovered {', '.join(self.dimensions)}")
        if self.quantities:
            out.append(f"new values {', '.join(self.quantities)}")
        if self.tier1_sources:
            out.append(f"new tier-1 source {', '.join(self.tier1_sources)}")
        if self.contradictions:
            out.append(f"{self.contradictions} contradiction{'s' * (self.contradictions != 1)}")
        return out


def holds(fact: Fact) -> bool:
    """A verified fact the verifier has not judged unsupported by its quote."""
    return fact.verified is Verified.YES and fact.support is not Support.UNSUPPORTED


def covered_dimensions(doc: TaskDoc) -> set[str]:
    """Dimensions that at least one verified fact serves."""
    covered: set[str] = set()
    for fact in doc.facts:
        if holds(fact):
            covered.update(doc.fact_dimensions(fact))
    return covered


def known(doc: TaskDoc) -> Known:
    """A snapshot of what `doc` knows, taken before a batch is merged."""
    state = Known(covered_dimensions(doc), {}, {doc.original(s.id) for s in doc.sources})
    for fact in doc.facts:
        state.fact_ids.add(fact.id)
        if fact.support is Support.UNSUPPORTED:
            continue
        found = quantities(fact.statement)
        for dim in doc.fact_dimensions(fact):
            state.quantities.setdefault(dim, []).extend(found)
    return state


def tier1_sources(doc: TaskDoc, task_id: str) -> int:
    """Independent sources of authority ≥ 0.9 backing the task's verified facts (copies once)."""
    backing = [sid for f in doc.facts if f.task == task_id and holds(f) for sid in f.sources]
    strong = [sid for sid in backing if _authority(doc, sid) >= TIER1_AUTHORITY]
    return len(doc.independent(strong))


def _authority(doc: TaskDoc, source_id: str) -> float:
    source = doc.source(source_id)
    return (source.authority or 0.0) if source is not None else 0.0


def measure(
    doc: TaskDoc, before: Known, new_fact_ids: Iterable[str], contradictions: Iterable[str]
) -> Novelty:
    """What the facts `new_fact_ids`, just merged into `doc`, and the batch's contradictions brought
    beyond `before`."""
    dims: set[str] = set()
    values: list[str] = []
    tier1: set[str] = set()
    seen = {dim: list(found) for dim, found in before.quantities.items()}
    asks = {d.id: f"{d.name} {d.description}" for d in doc.dimensions}
    for fact in _verified(doc, new_fact_ids):
        served = doc.fact_dimensions(fact)
        dims.update(d for d in served if d not in before.covered)
        for quantity in quantities(fact.statement):
            fresh = [
                d
                for d in served
                if counts_for(quantity, asks.get(d, ""))
                and not any(quantity.same_as(q) for q in seen.get(d, []))
            ]
            for dim in fresh:
                seen.setdefault(dim, []).append(quantity)
            if fresh:
                values.append(f"{quantity} ({', '.join(fresh)})")
        for sid in fact.sources:
            original = doc.original(sid)
            if _authority(doc, sid) >= TIER1_AUTHORITY and original not in before.originals:
                tier1.add(original)
    named = sum(1 for text in contradictions if set(_FACT_ID.findall(text)) & before.fact_ids)
    return Novelty(tuple(sorted(dims)), tuple(values), tuple(sorted(tier1)), named)


def _verified(doc: TaskDoc, fact_ids: Iterable[str]) -> list[Fact]:
    wanted = set(fact_ids)
    return [f for f in doc.facts if f.id in wanted and holds(f)]
