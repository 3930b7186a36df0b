"""Grounding: every number a figure draws must be stated, for the same thing, by a fact its point cites.

A point's value (and a scatter point's x) is read and matched like every number of a report (one
reader and one rule, evidence/): in the figure's unit when the unit names one the reader knows (GW,
%, EUR, hours...; else as a bare number, or scaled by a scale word: `million`, `万`); bound to the
point's year when its label or x is one (the bar for 2024 must be a fact's number for 2024), to the
words of its series and label, and, when negative, to a fall (a chart's -3.5 is a fact's "fell
3.5%", never "rose 3.5%"). It must be stated by the statement or the quote of at least one fact the
point cites. Every cited fact must exist in task.md and cite a source; none of its sources may be
flagged suspicious (a page with instruction-like text aimed at AI agents: its numbers are never
drawn); and none may have been judged unsupported by its own quote (it has left the closed world). A
figure's sources are the union of its facts' sources, in first-appearance order: its caption cites
them (`[S03][S07]`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from deepresearch.evidence.binding import Bound, bind_text, years_in
from deepresearch.evidence.cited import Evidence
from deepresearch.evidence.numbers import closest_excerpt
from deepresearch.evidence.terms import terms_of
from deepresearch.figures.spec import FigureSpec, Point
from deepresearch.state.model import Fact, Support, TaskDoc, id_number

_YEAR = re.compile(r"(?:FY\s?)?((?:18|19|20)\d\d)\b")


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


@dataclass(frozen=True)
class _About:
    """What a point's number is about: its label, its words, the whole figure's words and years."""

    label: str
    words: str
    figure: frozenset[str]
    years: frozenset[int]


def point_number(written: str, unit: str, about: _About) -> list[Bound]:
    """The ways to read a point's number: in the figure's unit, then bare when the unit names no
    dimension the reader knows; each bound to the label's year (else, weakly, the figure's one year)
    and to the words of its series and label."""
    readings = [  # a chart's value is never a year, whatever it looks like
        replace(b, quantity=replace(b.quantity, claim=True))
        for text in (f"{written} {unit}".strip(), written)
        for b in bind_text(text, claims_only=False)[:1]
    ]
    if readings and readings[0].quantity.dimension:
        readings = readings[:1]  # a unit the reader knows is kept: 60 % is not 60 GW
    year = _YEAR.match(about.label.strip())
    years, strength = (
        (frozenset({int(year.group(1))}), 2) if year else (about.years, int(len(about.years) == 1))
    )
    terms = terms_of(f"{about.words} {about.label}")
    return [  # its unit was read above: no sentence limits what a bare value is measured in
        replace(b, years=years, strength=strength, terms=terms, around=about.figure, named=None)
        for b in readings
    ]


def _trace(readings: list[Bound], written: str, facts: list[Fact]) -> str | None:
    """None when the number is stated by one of the facts, else the reason it is not."""
    evidence = Evidence([text for f in facts for text in Evidence.of_fact(f.id, f.statement, f.quote).texts])
    why = ""
    for bound in readings:
        stated, reason = evidence.stating(bound)
        if stated is not None:
            return None
        why = why or reason
    shown = " or ".join(f'{f.id} ("{closest_excerpt(written, _fact_text(f))}")' for f in facts)
    return f"{written} not found in {shown}" + (f": {why}" if why else "")


def _point_name(point: Point) -> str:
    return f'point "{point.label}"' if point.label else f'point "x={point.x_text}"'


def _refused(fact: Fact, doc: TaskDoc, where: str) -> str:
    """Why a cited fact may not be drawn from ("" when it may)."""
    if not fact.sources:
        return f"{where}: {fact.id} cites no source"
    if flagged := [sid for sid in fact.sources if sid in doc.suspicious()]:
        return (
            f"{where}: {fact.id} comes from {', '.join(flagged)}, flagged suspicious (it addresses AI "
            "agents): its numbers are never drawn; use a fact from another source or drop the point"
        )
    if fact.support is Support.UNSUPPORTED:
        reason = f" ({fact.support_reason.rstrip('.')})" if fact.support_reason else ""
        return (
            f"{where}: {fact.id} was judged unsupported by its own quote{reason}: it is not evidence "
            "and its numbers are never drawn; use a supported fact or drop the point"
        )
    return ""


def _check_point(
    point: Point, spec: FigureSpec, series: str, doc: TaskDoc, where: str
) -> tuple[list[str], list[Fact]]:
    problems: list[str] = []
    facts: list[Fact] = []
    for fact_id in point.facts:
        fact = resolve_fact(doc, fact_id)
        refused = f"{where}: {fact_id} is not in task.md" if fact is None else _refused(fact, doc, where)
        if refused:
            problems.append(refused)
        elif fact is not None:
            facts.append(fact)
    if problems or not facts:
        return problems, facts
    label = point.label or point.x_text
    figure = terms_of(
        " ".join(
            [spec.title, *(s.name for s in spec.series), *(p.label for s in spec.series for p in s.points)]
        )
    )
    years = years_in(spec.title)
    numbers = [(point.value_text, spec.unit, f"{series} {spec.title}")]
    if spec.type == "scatter":
        numbers.append((point.x_text, "", spec.x_label))
    for written, unit, words in numbers:
        reason = _trace(point_number(written, unit, _About(label, words, figure, years)), written, facts)
        if reason:
            problems.append(f"{where}: {reason}")
    return problems, facts


def ground_figure(spec: FigureSpec, number: int, doc: TaskDoc) -> Grounding:
    """Check every point of figure `number` (its position in the file) against the facts it cites."""
    problems: list[str] = []
    used: dict[str, Fact] = {}
    for series in spec.series:
        for point in series.points:
            where = f"figure {number}, " + (f'series "{series.name}", ' if series.name else "")
            found, facts = _check_point(point, spec, series.name, doc, where + _point_name(point))
            problems.extend(found)
            used.update((f.id, f) for f in facts)
    sources: dict[str, None] = {}
    for fact in used.values():
        sources.update(dict.fromkeys(fact.sources))
    return Grounding(problems, list(used), list(sources))
