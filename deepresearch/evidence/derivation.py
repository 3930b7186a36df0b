"""Derived numbers: a difference, sum, ratio, growth rate or share, where the words say so.

A number that no evidence states may be derived from two numbers a and b: |a − b|, a + b, a / b, the
growth rate (a − b) / b or the share a / b (in per cent), a per-year rate a / n or a compound annual
growth rate (a / b)^(1/n) − 1 over the n years between two years its sentence names. Only the
operations its words signal are tried (evidence/signals.py; a per cent not written as a change is a
share, not a growth rate or a difference of per cents), and only from these pairs of operands:

- both written in the same sentence (or table row; or a cell of the row and a cell of that cell's
  column in an earlier row: a growth rate from last year's row, but not from a column that another
  header of the cell's kind names: `Energy` for `Power growth` beside `Energy growth`; and only from
  the row the cell's header names, when its label is an earlier row's: `Gap to NSO` is the gap to
  the NSO's row, not to any), each itself grounded;
- one written in the same sentence (not a table row) and one stated by a cited fact;
- both stated by one cited fact's statement or quote;
- when the sentence says the number is derived (`derived`, `computed`, `implies`): numbers of other
  sentences of its paragraph, with each other, with the sentence's, or with the cited facts'.

A cited fact's number takes part only when it is for the year the number is about (when both name
years), and, in a report, when its distinctive words (few cited texts use them) are some of the
number's own (not only another number's of its sentence: the fact's 53 distribution installations
less the sentence's 34 transmission installations are not the fleet's net additions), or it is for
the number's own year (written by it, not only its sentence's: `In 2025, ... 3.6 GW in total` is
not a region's end-2025 figure plus another). A change from a year's level (`+3.2 GW from the
end-2025 level`) is a later level less that year's, or a sum of later changes. Bare numbers
(counts) combine only within one sentence, row or fact; a report sentence's per cent takes a
cited fact's numbers only in a unit the sentence names (not 4.0 GWh of 7.5 GWh for a sentence
about GW), and a per cent whose words name its whole (`65% of the capacity under construction`) is a
share only of a number about a distinctive word of that name. The result is recomputed and
accepted within the number's rounding: half its last written digit (a whole number's trailing
zeros count: 30% is not 31.4%), at most 5% but for a per cent (3% is 2.55%) (evidence/arithmetic.py:
the operations, searched by bisection, so a number costs O(n log n) in the evidence size).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from deepresearch.evidence.arithmetic import PARAGRAPH, Family, Operand, Target, search
from deepresearch.evidence.binding import Bound
from deepresearch.evidence.quantities import Reading
from deepresearch.evidence.rivals import worded_change
from deepresearch.evidence.signals import ANNUAL, DERIVED, DIFFERENCE, GROWTH, RATIO, SHARE, SUM
from deepresearch.evidence.terms import terms_of

TOLERANCE = 0.05
_EPSILON = 1e-9


def _every(terms: frozenset[str]) -> frozenset[str]:
    return terms


def _operations(claim: Bound) -> set[str]:
    ops = {op for op in claim.signals if op in (DIFFERENCE, SUM, RATIO, GROWTH, SHARE, ANNUAL)}
    if claim.quantity.dimension == "%" and not ops & {GROWTH, SHARE}:
        ops |= {GROWTH, SHARE}  # a bare per cent may be either
    if claim.change:
        ops |= {DIFFERENCE, GROWTH}
    if DERIVED in claim.signals:
        ops |= {DIFFERENCE, SUM, RATIO, GROWTH, SHARE}
    if claim.quantity.dimension != "%":
        ops -= {GROWTH, SHARE}
    elif not claim.change:
        ops -= {GROWTH, DIFFERENCE}  # a per cent not written as a change is a share, not a growth rate
    return ops


def _since(claim: Bound) -> bool:
    """Whether the claim's one year is where its change runs from (`+3.2 GW from the end-2025
    level`): then it is the change from that year's level to a later one's, not that year's own."""
    year = min(claim.years)
    return bool(
        claim.change
        and re.search(
            rf"\b(?:from|since)\s+(?:the\s+)?(?:(?:end|mid|start)(?:-|\s+of\s+))?{year}\b", claim.clause
        )
    )


# `65-87% of the capacity under construction`: the words after a per cent's `of` name its whole
_OF_WHOLE = re.compile(
    r"(?:\s*[-–]\s*\d+(?:\.\d+)?)?\s*%?\s+of\s+(?:(?:the|its|their|all)\s+)?([^\W\d][^,;:.()\[\]]*)",
    re.IGNORECASE,
)


def _named_whole(claim: Bound, distinctive: Callable[[frozenset[str]], frozenset[str]]) -> frozenset[str]:
    """The distinctive words a report's per cent names its whole by (`65% of the capacity under
    construction`: construction); none when it names none (`a 60% share`)."""
    text = claim.quantity.text
    at = claim.clause.find(text)
    if claim.quantity.dimension != "%" or at < 0:
        return frozenset()
    found = _OF_WHOLE.match(claim.clause, at + len(text))
    return distinctive(terms_of(" ".join(found.group(1).split()[:6]))) if found else frozenset()


def _targets(claim: Bound) -> list[tuple[Reading, str]]:
    """(value to reach, dimension of the operands) pairs, in the claim's unit."""
    q = claim.quantity
    if q.dimension == "%":
        return [(r, "*") for r in q.readings]  # a rate or share of two numbers of any one unit
    return [(r, q.dimension) for r in q.readings]


def _compatible(claim: Bound, operand: Operand) -> bool:
    """The operand is for a year the claim is about (or either names none of its own)."""
    return not (claim.strength and claim.years and operand.years) or bool(claim.years & operand.years)


def derive(
    claim: Bound, local: Sequence[Operand], evidence: Sequence[Operand], spans: Iterable[int] = (),
    strict: bool = False, distinctive: Callable[[frozenset[str]], frozenset[str]] = _every,
) -> str:  # fmt: skip
    """How the claim follows from the operands (rules in the module docstring), or "".

    `spans`: the numbers of years between two years the claim's sentence names; when it names
    fewer than two, a compound growth rate of two numbers of the sentence itself tries 2 to 10.
    `strict` (a report): two numbers of one fact only where the sentence marks the number derived;
    `distinctive`: the words that few evidence texts use (a cited number is about the claim by them)."""
    ops = _operations(claim)
    if not ops:
        return ""
    named = sorted(set(spans))
    year = min(claim.years) if len(claim.years) == 1 and claim.strength else None
    since = year if year is not None and _since(claim) else None
    # a change its words name (`gained 24`, `0.6 GW more`), not only its sign (`+0.6 GW`), may be the
    # difference of two changes; a signed one only of two levels
    said = bool(claim.signals & {DIFFERENCE, DERIVED}) or worded_change(claim)
    year = None if since is not None else year
    for reading, dimension in _targets(claim):
        value = float(reading.value)
        half = float(reading.exact) / 2  # a per cent rounds to its last digit (3% is 2.55%)
        tolerance = (half if dimension == "*" else min(half, TOLERANCE * abs(value))) + _EPSILON * abs(value)
        target = Target(
            value, tolerance, dimension == "*", claim.direction, year, claim.change, since, said,
            _named_whole(claim, distinctive) if strict else frozenset(),
        )  # fmt: skip
        families = _families(claim, dimension, local, evidence, strict, distinctive)
        for number, family in enumerate(families):
            years = named or (list(range(2, 11)) if number == 0 and target.rate else [])
            how = search(ops, family, target, years)
            if how:
                return how
    return ""


def _families(
    claim: Bound, dimension: str, local: Sequence[Operand], evidence: Sequence[Operand], strict: bool,
    distinctive: Callable[[frozenset[str]], frozenset[str]],
) -> Iterator[Family]:  # fmt: skip
    """The pairs of operand sets to search, the sentence's own first (module docstring). Bare
    numbers (counts) are combined only within one sentence, row or fact; a cited fact's number only
    when it is for the claim's year or its words are some of the claim's."""

    def fits(o: Operand) -> bool:
        return dimension == "*" or o.dimension == dimension

    evidence = _spoken(claim, evidence) if dimension == "*" and strict else evidence

    def unit(o: Operand) -> bool:
        return fits(o) and (bool(o.dimension) or not dimension)

    mine = [o for o in local if fits(o) and o.row == -1]
    # the claim's own words, not its sentence's other numbers': a fact's number is about the claim
    words = claim.terms

    def about(o: Operand) -> bool:
        if not strict:
            return True  # a statement against its own fact's quote
        timely = bool(claim.strength == 2 and o.strength and o.years & claim.years)
        return bool(distinctive(o.terms & words)) or timely

    earlier = [o for o in local if fits(o) and o.row >= 0]
    paragraph = [o for o in local if unit(o) and o.row == PARAGRAPH]
    cited = [o for o in evidence if unit(o) and _compatible(claim, o) and about(o)]
    yield from _own(claim, mine, earlier)
    if claim.column >= 0:
        return  # a table's derived cells come from its own rows
    yield [o for o in mine if unit(o)], cited
    yield cited, [o for o in mine if unit(o)]
    if strict and DERIVED not in claim.signals:
        return
    yield from _fact_pairs(claim, [o for o in evidence if fits(o)], about)
    if DERIVED in claim.signals:
        paragraph = [o for o in paragraph if about(o)]
        yield mine + paragraph, paragraph
        yield paragraph, mine
        yield [o for o in evidence if unit(o) and about(o)], [o for o in paragraph if _compatible(claim, o)]
        yield paragraph, cited


def _spoken(claim: Bound, evidence: Sequence[Operand]) -> Sequence[Operand]:
    """The cited numbers a report sentence's per cent may be of: in a unit the sentence names (a
    table cell's header may name none)."""
    named = claim.named
    if claim.column >= 0 or named is None:
        return evidence
    return [o for o in evidence if o.dimension in ("", "%") or o.dimension in named]


def _own(claim: Bound, mine: list[Operand], earlier: list[Operand]) -> Iterator[Family]:
    """Two numbers of the claim's sentence or row; a cell of its row and one of the same column in
    an earlier row (last year's value). A cell whose header names an earlier row (`Gap to NSO`: the
    row whose label is NSO's) is the difference from that row only."""
    pairs: list[Family] = []
    for column in sorted({m.column for m in mine}):
        cells = [m for m in mine if m.column == column]
        if not any(_another_column(claim, o) for o in cells):
            pairs.append((cells, [o for o in earlier if o.column == column]))
    against = [(cells, _named_row(claim, cells, above)) for cells, above in pairs]
    if any(rows for _, rows in against):
        yield from ((cells, rows) for cells, rows in against if rows)
        return
    yield mine, [o for o in mine if _compatible(claim, o)]
    yield from pairs


def _named_row(claim: Bound, cells: list[Operand], above: list[Operand]) -> list[Operand]:
    """The cells of `above` in the row the claim's header names: by a word of the row's label, not
    of the column's header (the row's own cells have those) nor of the claim's row's label."""
    row = claim.header - claim.label - frozenset().union(*(c.terms for c in cells))
    return [o for o in above if o.terms & row] if row else []


def _another_column(claim: Bound, cell: Operand) -> bool:
    """A cell of the column that another header of the claim's kind names, not the claim's own
    (`Energy` for a cell under `Power growth`, beside `Energy growth`)."""
    return bool(cell.terms & claim.columns) and not cell.terms & claim.header


def _fact_pairs(
    claim: Bound, evidence: Sequence[Operand], about: Callable[[Operand], bool]
) -> Iterator[Family]:
    """Two numbers of one fact's statement or quote, one of them for the claim's year and about it."""
    groups: dict[str, list[Operand]] = {}
    for o in evidence:
        groups.setdefault(o.group, []).append(o)
    for members in groups.values():
        anchors = [o for o in members if _compatible(claim, o) and about(o)]
        if len(members) > 1 and anchors:
            yield members, anchors
