"""Grounding: every number a figure draws must be written in the fact its point cites.

A point's value (and a scatter point's x) must be found, by the rule in `evidence/numbers.py`, in the
statement or the quote of at least one fact the point cites; every cited fact must exist in
task.md and cite a source, and none of its sources may be flagged suspicious (a page with
instruction-like text aimed at AI agents: its numbers are never drawn). A figure's sources are the
union of its facts' sources, in first-appearance order: its caption cites them (`[S03][S07]`).
"""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.evidence.numbers import closest_excerpt, find_value
from deepresearch.figures.spec import FigureSpec, Point
from deepresearch.state.model import Fact, TaskDoc, id_number


@dataclass
class Grounding:
    """The outcome of grounding one figure: problems (empty when every point traces) and sources."""

    problems: list[str]
    facts: list[str]
    sources: list[str]


def resolve_fact(doc: TaskDoc, fact_id: str) -> Fact | None:
    """The fact with this ID; `Fact-12` also finds `Fact-012` (same number)."""
    exact = doc.fact(fact_id)
    if exact is not None:
        return exact
    return next((f for f in doc.facts if id_number(f.id) == id_number(fact_id)), None)


def _fact_text(fact: Fact) -> str:
    return f"{fact.statement}\n{fact.quote}" if fact.quote else fact.statement


def _trace(written: str, facts: list[Fact]) -> str | None:
    """None when `written` is found in one of the facts, else the reason it is not."""
    if any(find_value(written, _fact_text(f)) for f in facts):
        return None
    shown = " or ".join(f'{f.id} ("{closest_excerpt(written, _fact_text(f))}")' for f in facts)
    return f"{written} not found in {shown}"


def _point_name(point: Point) -> str:
    return f'point "{point.label}"' if point.label else f'point "x={point.x_text}"'


def _check_point(point: Point, scatter: bool, doc: TaskDoc, where: str) -> tuple[list[str], list[Fact]]:
    problems: list[str] = []
    facts: list[Fact] = []
    for fact_id in point.facts:
        fact = resolve_fact(doc, fact_id)
        if fact is None:
            problems.append(f"{where}: {fact_id} is not in task.md")
        elif not fact.sources:
            problems.append(f"{where}: {fact.id} cites no source")
        elif flagged := [sid for sid in fact.sources if sid in doc.suspicious()]:
            problems.append(
                f"{where}: {fact.id} comes from {', '.join(flagged)}, flagged suspicious (it addresses AI "
                "agents): its numbers are never drawn; use a fact from another source or drop the point"
            )
        else:
            facts.append(fact)
    if problems or not facts:
        return problems, facts
    numbers = [point.value_text] + ([point.x_text] if scatter else [])
    problems.extend(f"{where}: {reason}" for n in numbers if (reason := _trace(n, facts)))
    return problems, facts


def ground_figure(spec: FigureSpec, number: int, doc: TaskDoc) -> Grounding:
    """Check every point of figure `number` (its position in the file) against the facts it cites."""
    problems: list[str] = []
    used: dict[str, Fact] = {}
    scatter = spec.type == "scatter"
    for series in spec.series:
        for point in series.points:
            where = f"figure {number}, " + (f'series "{series.name}", ' if series.name else "")
            found, facts = _check_point(point, scatter, doc, where + _point_name(point))
            problems.extend(found)
            used.update((f.id, f) for f in facts)
    sources: dict[str, None] = {}
    for fact in used.values():
        sources.update(dict.fromkeys(fact.sources))
    return Grounding(problems, list(used), list(sources))
