"""Is a number grounded? Found in the evidence after normalisation, or a simple derivation of it.

A claimed quantity is found when one of its readings equals a reading of an evidence quantity, or
is that reading rounded to the claim's own written precision (within 5% of it): "4.8 GW" is found
in "4,812 MW", never "4.81 GW" in "4.8 GW". Units must agree when both sides name one (12% is not
12 GW); a bare number on either side is compared with the other's digits too (a table cell under a
"GW" header says just 4.8). Signs are ignored: "fell 3.5%" grounds "-3.5%".

A claim that is not found may be derived from two different evidence numbers a and b (or the total
of all of one unit): the difference |a − b|, the sum a + b, the ratio a / b, the growth rate
(a − b) / b in per cent, or the share a / b in per cent. Only claims are combined (not years, dates
or number words). The derivation is recomputed and accepted within the claim's rounding: half its
last written digit (a whole number's trailing zeros count: 30% is not 31.4%), at most 5%. Each check sorts the
evidence once and looks candidates up by bisection, so a claim costs O(n log n) in the evidence size.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from deepresearch.evidence.quantities import Quantity, Reading, quantities

TOLERANCE = Decimal("0.05")
# (claim readings, evidence values, operations): one way a claim may follow from the evidence.
_Plan = tuple[tuple[Reading, ...], list[float], tuple[str, ...]]
_EPSILON = 1e-9


def _pairs(claim: Quantity, evidence: Quantity) -> tuple[tuple[Reading, ...], tuple[Reading, ...]]:
    """The readings to compare: all of them when either side is a bare number; else both in their
    units, or none when the units differ."""
    if claim.plain or evidence.plain:
        return claim.readings + claim.bare, evidence.readings + evidence.bare
    if claim.dimension and evidence.dimension and claim.dimension != evidence.dimension:
        return (), ()
    return claim.readings, evidence.readings


def reading_matches(claim: Reading, value: Decimal) -> bool:
    """The claim is `value`, or `value` rounded to the claim's precision (within 5% of it)."""
    if claim.value == value:
        return True
    gap = abs(claim.value - value)
    return gap <= claim.step / 2 and gap <= abs(value) * TOLERANCE


def found(claim: Quantity, evidence: Iterable[Quantity]) -> Quantity | None:
    """The evidence quantity that states the claim (see the module docstring), or None."""
    for item in evidence:
        mine, theirs = _pairs(claim, item)
        if any(reading_matches(c, e.value) for c in mine for e in theirs):
            return item
    return None


@dataclass
class Pool:
    """Evidence numbers, indexed for derivations: sorted values per dimension ("" = bare)."""

    quantities: list[Quantity]

    def __post_init__(self) -> None:
        self.values: dict[str, list[float]] = {}
        for item in self.quantities:
            if not item.claim:
                continue  # years, dates and number words are found, never combined
            for reading in (*item.readings, *item.bare):
                dimension = item.dimension if reading in item.readings else ""
                self.values.setdefault(dimension, []).append(float(reading.value))
        for key, values in self.values.items():
            self.values[key] = sorted(set(values))

    @classmethod
    def of(cls, texts: Iterable[str]) -> Pool:
        """Every number written in `texts`: years and number words are evidence too (only the claims
        among them are combined into derivations)."""
        return cls([q for text in texts for q in quantities(text, claims_only=False)])

    def _plans(self, claim: Quantity) -> list[_Plan]:
        """(claim readings, evidence values, operations) to try: arithmetic within one unit, ratios
        for bare numbers, growth rates and shares for per cents."""
        if claim.plain:
            return [(claim.readings, values, _ALL) for values in self.values.values()]
        plans: list[_Plan] = [
            (claim.readings, self.values.get(claim.dimension, []), _ARITHMETIC),
            (claim.bare, self.values.get("", []), _ARITHMETIC),
        ]
        if claim.dimension == "%":
            plans += [(claim.readings, values, _RELATIVE) for values in self.values.values()]
        return plans

    def derivation(self, claim: Quantity) -> str:
        """How the claim follows from evidence numbers ("growth from 4 to 5"), or ""."""
        for readings, values, operations in self._plans(claim):
            for reading in readings:
                # A derived number is rounded from the recomputed one at its last written digit.
                target = float(reading.value)
                tol = min(float(reading.exact) / 2, float(TOLERANCE) * abs(target)) + _EPSILON * abs(target)
                how = _derive(values, target, tol, operations)
                if how:
                    return how
        return ""

    def grounds(self, claim: Quantity) -> bool:
        """Found in the pool, or derived from it."""
        return found(claim, self.quantities) is not None or bool(self.derivation(claim))


_ARITHMETIC = ("difference", "sum")
_RELATIVE = ("growth", "share")
_ALL = (*_ARITHMETIC, "ratio", *_RELATIVE)


def _near(values: list[float], low: float, high: float) -> float | None:
    """A value in [low, high] (values sorted), or None."""
    i = bisect.bisect_left(values, min(low, high))
    return values[i] if i < len(values) and values[i] <= max(low, high) else None


def _fmt(value: float) -> str:
    return f"{value:g}"


def _derive(values: list[float], target: float, tol: float, operations: tuple[str, ...]) -> str:
    """A derivation of `target` (± tol) from two of `values`, described; "" when there is none."""
    lo, hi = target - tol, target + tol
    for b in values:
        for operation in operations:
            how = _one(values, b, lo, hi, operation)
            if how:
                return how
    total = sum(values)
    if "sum" in operations and len(values) > 2 and lo <= total <= hi:
        return f"total of {len(values)} values"
    return ""


def _one(values: list[float], b: float, lo: float, hi: float, operation: str) -> str:
    """`operation`(a, b) within [lo, hi] for some a in `values`, described; else ""."""
    if operation == "difference":
        a = _near(values, b + lo, b + hi)
        return f"difference {_fmt(a)} − {_fmt(b)}" if a is not None and a != b else ""
    if operation == "sum":
        a = _near(values, lo - b, hi - b)
        return f"sum {_fmt(a)} + {_fmt(b)}" if a is not None and a > b else ""
    if b == 0:
        return ""
    if operation == "ratio":
        a = _near(values, b * lo, b * hi)
        return f"ratio {_fmt(a)} / {_fmt(b)}" if a is not None and a != b else ""
    if operation == "share":
        a = _near(values, b * lo / 100, b * hi / 100)
        return f"share {_fmt(a)} of {_fmt(b)}" if a is not None and a != b else ""
    for sign in (1, -1):  # growth: a = b (1 ± t/100)
        a = _near(values, b * (1 + sign * lo / 100), b * (1 + sign * hi / 100))
        if a is not None and a != b:
            return f"growth from {_fmt(b)} to {_fmt(a)}"
    return ""


def ungrounded(claims: Sequence[Quantity], pool: Pool) -> list[Quantity]:
    """The claims that the pool neither states nor derives."""
    return [claim for claim in claims if not pool.grounds(claim)]


def missing_numbers(statement: str, evidence: Iterable[str], context: Iterable[str] = ()) -> list[Quantity]:
    """The quantities `statement` claims that the `evidence` texts neither state nor derive and the
    `context` texts (a longer passage: too many numbers to combine safely) do not state."""
    claims = quantities(statement)
    missing = ungrounded(claims, Pool.of(evidence)) if claims else []
    around = [q for text in context for q in quantities(text, claims_only=False)]
    return [claim for claim in missing if found(claim, around) is None]
