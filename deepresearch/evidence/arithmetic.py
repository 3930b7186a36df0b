"""The arithmetic of derived numbers: operands, and a search for two of them whose difference, sum,
ratio, growth rate, share, per-year rate or compound annual growth rate is a target number.

A result is accepted within the target's rounding (evidence/derivation.py sets the tolerance); an
operand within that rounding of zero derives nothing by a sum or difference, nor one by a ratio. A
growth rate runs from an earlier b to a later a, up or down as the claim says; a growth rate or a
difference between two years has the claim's year as one of its two. A change is the difference of
two levels (the change of the later year's: `+26 in 2025` from 61 at end-2024 and 87 at end-2025,
not 2024's) or, where its words name a difference (`more`, `implies`, `derived`), of two changes
(else `+0.6 GW in 2023` is not 2023's additions less 2022's), and the sum of two changes (for its
year, when it is for one: 2024's additions are not 2022's plus 2024's; the change from end-2025's
level does not take 2025's). A compound annual growth rate over n years runs from a number to one n
years later (when both name their year). Each family of operand pairs is searched by bisection over
the values of the first set.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from deepresearch.evidence.binding import Bound
from deepresearch.evidence.signals import ANNUAL, DIFFERENCE, GROWTH, RATIO, SHARE, SUM

PARAGRAPH = -2  # an operand of another sentence of the paragraph
_THOUSANDS = re.compile(r"\d,\d{3}(?!\d)")


@dataclass(frozen=True)
class Operand:
    """One value a derivation may use: in a dimension's base unit ("" for bare digits)."""

    value: float
    dimension: str
    shown: str  # as written: "0.9 GW"
    where: str  # "Fact-036", or "this sentence", "row 3"
    years: frozenset[int]
    group: str  # operands of one text share it (a fact's statement, a quote)
    column: int = -1  # a table cell's column
    row: int = -1  # a table cell's earlier row; -1: the sentence judged; PARAGRAPH: its paragraph
    terms: frozenset[str] = frozenset()
    change: bool = False  # a change (`+5`, `net additions`), not a level
    strength: int = 0  # how surely its years are its own (evidence/binding.py)


def operands(bound: Bound, where: str, group: str, column: int = -1, row: int = -1) -> list[Operand]:
    """The values of a number that derivations may use (claims only, not years or number words); a
    comma before three digits is a thousands separator here (the match keeps both readings)."""
    q = bound.quantity
    if not q.claim:
        return []
    readings = q.readings
    if _THOUSANDS.search(q.text) and len(readings) == 2:
        readings = (max(readings, key=lambda r: abs(r.value)),)  # `11,400` is not 11.4 in arithmetic
    return [
        Operand(
            float(r.value),
            q.dimension,
            q.text,
            where,
            bound.years,
            group,
            column,
            row,
            bound.terms,
            bound.change,
            bound.strength,
        )
        for r in readings
    ]


@dataclass
class _Index:
    """Operands of one dimension, sorted by value for lookups by bisection."""

    items: list[Operand]

    def __post_init__(self) -> None:
        self.items.sort(key=lambda o: o.value)
        self.values = [o.value for o in self.items]

    def within(self, low: float, high: float) -> Iterator[Operand]:
        lo, hi = min(low, high), max(low, high)
        for i in range(bisect.bisect_left(self.values, lo), len(self.values)):
            if self.values[i] > hi:
                return
            yield self.items[i]


@dataclass(frozen=True)
class Target:
    """The number to reach, its tolerance, and what the claim says of it."""

    value: float
    tolerance: float
    rate: bool = False  # a per cent: differences and sums only of per cents (percentage points)
    direction: int = 0  # +1 a rise, −1 a fall, 0 not said
    year: int | None = None  # the one year the claim is for
    change: bool = False  # the claim is a change
    since: int | None = None  # the year the claimed change runs from (`+3.2 GW from the end-2025 level`)
    said: bool = True  # its words name a difference (a change they do not: only of two levels)
    whole: frozenset[str] = (
        frozenset()
    )  # a share's whole, as its words name it (`65% of the capacity under construction`)

    @property
    def low(self) -> float:
        return self.value - self.tolerance

    @property
    def high(self) -> float:
        return self.value + self.tolerance


Family = tuple[list[Operand], list[Operand]]


def _indexes(operands: Sequence[Operand]) -> dict[str, _Index]:
    by_dimension: dict[str, list[Operand]] = {}
    for o in operands:
        by_dimension.setdefault(o.dimension, []).append(o)
    return {dimension: _Index(items) for dimension, items in by_dimension.items()}


def search(ops: set[str], family: Family, target: Target, spans: Sequence[int]) -> str:
    """A derivation of the target from a of the first set and b of the second, described; or ""."""
    first, second = family
    if not first or not second:
        return ""
    indexes = _indexes(first)
    passes = [(target.direction, ops)] if target.direction else [(1, ops), (-1, ops & {GROWTH})]
    for direction, chosen in passes:  # a fall after a rise, when the words do not say which way
        for b in second:
            index = indexes.get(b.dimension)
            if index is None:
                continue
            for op in (DIFFERENCE, SUM, RATIO, GROWTH, SHARE):
                if op not in chosen or (target.rate and op in (DIFFERENCE, SUM) and b.dimension != "%"):
                    continue
                how = _pair(op, index, b, target, direction)
                if how:
                    return how
    if ANNUAL in ops and spans:
        return _compound(indexes, second, target, spans) if target.rate else _per_year(indexes, target, spans)
    return ""


def _show(o: Operand) -> str:
    return f"{o.shown} ({o.where})"


def _later(a: Operand, b: Operand, year: int | None) -> bool:
    """Whether a is for the year of b or later, and, when later, the claim's `year` (if it names
    one) is one of theirs (True when either operand names no single year)."""
    if len(a.years) != 1 or len(b.years) != 1:
        return True
    ya, yb = min(a.years), min(b.years)
    return ya == yb or (ya > yb and year in (None, ya, yb))


def _for_later(a: Operand, b: Operand, year: int | None) -> bool:
    """Whether the claim's `year` (if it names one) is the later of two levels' single years."""
    if year is None or len(a.years) != 1 or len(b.years) != 1 or a.years == b.years:
        return True
    return year == max(min(a.years), min(b.years))


def _summand(o: Operand, target: Target) -> bool:
    """A part of the target's sum: of a change, a change (of the one year it is for, if any; after
    the year it runs from)."""
    if not target.change:
        return True
    if target.since is not None and o.years and min(o.years) <= target.since:
        return False
    return o.change and (target.year is None or not o.years or target.year in o.years)


def _difference(index: _Index, b: Operand, target: Target) -> str:
    """|a − b| within the target's tolerance for some a of the index (a change from two levels or two
    changes; between two years, one of them the claim's), described; else ""."""
    lo, hi, year = target.low, target.high, target.year
    for a in (*index.within(b.value + lo, b.value + hi), *index.within(b.value - hi, b.value - lo)):
        if target.change and (a.change != b.change or (a.change and not target.said)):
            continue  # a change is the difference of two levels, or of two changes where its words say so
        if abs(a.value) <= target.tolerance:
            continue
        if target.change and not a.change and not _for_later(a, b, year):
            continue  # the change between two years' levels is the later year's
        if a is not b and a.value != b.value and (_later(a, b, year) or _later(b, a, year)):
            big, small = (a, b) if a.value > b.value else (b, a)
            return f"difference {_show(big)} − {_show(small)}"
    return ""


def _pair(op: str, index: _Index, b: Operand, target: Target, direction: int) -> str:
    """`op`(a, b) within the target's tolerance for some a of the index, described; else ""."""
    lo, hi, year = target.low, target.high, target.year
    if op in (DIFFERENCE, SUM) and abs(b.value) <= target.tolerance:
        return ""  # adding or taking away less than the rounding derives nothing
    if op == DIFFERENCE:
        return _difference(index, b, target)
    if op == SUM:
        if not _summand(b, target):
            return ""
        sums = index.within(lo - b.value, hi - b.value)
        added = next(
            (
                a
                for a in sums
                if a.value != b.value and abs(a.value) > target.tolerance and _summand(a, target)
            ),
            None,
        )
        return f"sum {_show(added)} + {_show(b)}" if added else ""
    if b.value == 0:
        return ""
    if op == RATIO:
        if b.value == 1:
            return ""  # a number over one is itself
        over = next((a for a in index.within(b.value * lo, b.value * hi) if a is not b), None)
        return f"ratio {_show(over)} / {_show(b)}" if over else ""
    if op == SHARE:
        if b.dimension == "%" or (target.whole and not b.terms & target.whole):
            return ""  # a share is of a whole, not of a per cent; of the whole its words name
        part = next((a for a in index.within(b.value * lo / 100, b.value * hi / 100) if a is not b), None)
        return f"share {_show(part)} of {_show(b)}" if part else ""
    window = (b.value * (1 + direction * lo / 100), b.value * (1 + direction * hi / 100))  # growth
    grown = next((a for a in index.within(*window) if a.value != b.value and _later(a, b, year)), None)
    return f"growth from {_show(b)} to {_show(grown)}" if grown else ""


def _per_year(indexes: dict[str, _Index], target: Target, spans: Sequence[int]) -> str:
    """A per-year rate a / n."""
    for n in spans:
        for index in indexes.values():
            a = next(index.within(target.low * n, target.high * n), None)
            if a is not None:
                return f"per year {_show(a)} / {n} years"
    return ""


def _apart(a: Operand, b: Operand, n: int) -> bool:
    """Whether a is for n years after b (True when either names no single year)."""
    if len(a.years) != 1 or len(b.years) != 1:
        return True
    return min(a.years) - min(b.years) == n


def _compound(
    indexes: dict[str, _Index], second: Sequence[Operand], target: Target, spans: Sequence[int]
) -> str:
    """A compound annual growth rate from b to a over n years."""
    for n in spans:
        for b in second:
            index = indexes.get(b.dimension)
            if index is None or b.value <= 0:
                continue
            for sign in (1, -1):
                low = b.value * (1 + sign * target.low / 100) ** n
                high = b.value * (1 + sign * target.high / 100) ** n
                a = next((a for a in index.within(low, high) if a is not b and _apart(a, b, n)), None)
                if a:
                    return f"compound growth from {_show(b)} to {_show(a)} over {n} years"
    return ""
