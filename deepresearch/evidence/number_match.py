"""Is a number the same number? Its value read in the evidence, after normalisation and rounding.

A claimed number has an evidence number's value when one of its readings equals a reading of the
evidence number, or is that reading rounded to the claim's own written precision (within 5% of it):
"4.8 GW" is found in "4,812 MW", never "4.81 GW" in "4.8 GW". Units must agree when both sides name
one (12% is not 12 GW). A bare claim (a table cell under a "GW" header says just 4.8) is compared
with the digits of any number; a bare evidence number (a count, a year, a number word) grounds a
claim with a unit only when it lends its digits (a quoted table row's cell whose header is not
quoted). Whether both are about the same thing is evidence/aboutness.py; the whole judgement,
stated or derived, is evidence/judge.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from deepresearch.evidence.quantities import Quantity, Reading

TOLERANCE = Decimal("0.05")


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


def same_value(claim: Quantity, evidence: Quantity, lends: bool = False) -> bool:
    """The evidence number has the claim's value (rule (1) of the module docstring). A bare claim
    may be any number with its digits (its unit may be in a column header or earlier in its
    sentence); a bare evidence number (a count, a year, a number word) grounds a claim with a unit
    only when it `lends` its digits (a quoted table row's cell, its header not quoted)."""
    if evidence.plain and claim.dimension and not lends:
        return False
    mine, theirs = _pairs(claim, evidence)
    return any(reading_matches(c, e.value) for c in mine for e in theirs)


def exact(claim: Quantity, evidence: Quantity) -> bool:
    """The evidence number has the claim's value as written, not only rounded to the claim's precision."""
    mine, theirs = _pairs(claim, evidence)
    return any(c.value == e.value for c in mine for e in theirs)


def as_coarse(item: Quantity, claim: Quantity) -> bool:
    """`item` is written to the claim's precision or coarser (4 GW as 5 GW is; 1.9 GW is not)."""
    mine, theirs = (claim.bare, item.bare) if claim.plain else (claim.readings, item.readings)
    return bool(mine and theirs) and min(r.exact for r in theirs) >= min(r.exact for r in mine)


def found(claim: Quantity, evidence: Iterable[Quantity]) -> Quantity | None:
    """The evidence quantity with the claim's value (whatever it is about), or None."""
    return next((item for item in evidence if same_value(claim, item)), None)


def years_text(years: Iterable[int]) -> str:
    """2024, or 2022-2025, or 2021, 2023."""
    ordered = sorted(years)
    if len(ordered) > 2 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}-{ordered[-1]}"
    return ", ".join(map(str, ordered))
