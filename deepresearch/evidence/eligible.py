"""Which numbers of the evidence may state a claimed number at all, before asking whether they
have its value for the same thing (evidence/cited.py): not a year (`in 2025`), not a number that
names rather than counts (`round 3`, `unit 2`) unless the claim names it by the same word (a bare
claim written with decimals, `2.00`, measures: no name states it), not a number in a
unit the claim's sentence does not name when the claim is bare, and not a figure a number written
before in the claim's sentence took (nor another fact's restatement of it), and not a part's figure
for a table row labelled as the whole (`Total`), nor, for a claim written per something other than
time (`EUR 109k per MW-year`), a number that names its unit and not per something (`EUR 180m`), or a
term of a division its text writes out (the `180m` of `180m / ~1.65 GW`): the amount a rate is
computed from, not the rate.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from deepresearch.evidence.bound import Bound
from deepresearch.evidence.number_match import same_value
from deepresearch.evidence.terms import stem, terms_of


def may_state(claim: Bound, item: Bound, taken: Collection[Bound] = ()) -> bool:
    """`item` may state the claim (see the module docstring); `taken`: numbers that state another
    number of the claim's sentence."""
    return (
        _measured_alike(claim, item)
        and not _a_year(item)
        and not _restates(item, taken)
        and not _a_label(item, claim)
        and not _a_part(item, claim)
        and _rated_alike(claim, item)
    )


# (stemmed) words that give a number as a whole: `total 2.6 GW`, `across the three rounds`, `in all`
WHOLE = frozenset({"total", "sum", "combin", "altogether", "overall", "cumulativ", "across", "together"})


def _a_part(item: Bound, claim: Bound) -> bool:
    """A table row whose label names a whole (`| Total | - | 2.6 GW | 41 |`) states the total: not a
    number that the evidence gives as none, a part's figure (`round 3 awarded 1.0 GW`)."""
    if not claim.label & WHOLE:
        return False
    return not (item.terms | item.near | terms_of(item.clause) | item.label) & WHOLE


def _rated_alike(claim: Bound, item: Bound) -> bool:
    """A claim written per something (a rate) is stated by a rate, or by a number that names no unit
    of its own (`~109k in 2023`) and is no term of a written division (module docstring)."""
    return not claim.rate or item.rate or not (item.quantity.dimension or item.divided)


def _restates(item: Bound, taken: Collection[Bound]) -> bool:
    """The figure of a taken number: its value in the same fact (a statement restates its quote), or
    in another fact about two of the same words (the 9.3 GW `demand peak` of two notes is one figure)
    or whose own phrase shares a word with the taken one's (two facts' `discharged up to 2.9 GW`)."""
    return any(
        same_value(t.quantity, item.quantity)
        and (t.origin == item.origin or len(t.terms & item.terms) >= 2 or bool(t.near & item.near))
        for t in taken
    )


def _a_year(item: Bound) -> bool:
    """A year of the evidence (`in 2025`): it states no number (2,030 is not 2025)."""
    return not item.quantity.claim and any(r.value in item.years for r in item.quantity.readings)


def _a_label(item: Bound, claim: Bound) -> bool:
    """A number of the evidence that names rather than counts (`round 3`, `9 Dec`: a reference or a
    date's day) for a claim whose words do not name it by the same word (`rounds 2 and 3`)."""
    if item.quantity.claim or not any(ch.isdigit() for ch in item.text):
        return False  # (a number word, `twelve`, states a number)
    if claim.quantity.plain and any(r.exact < 1 for r in claim.quantity.readings):
        return True  # (a name is a whole number: `2.00` measures)
    at = re.search(rf"(?<![\w.,]){re.escape(item.text)}(?!\d)", item.clause)  # (not the 3 of 2023)
    before = re.findall(r"[^\W\d_]+", item.clause[: at.start()]) if at else []
    return not (before and stem(before[-1].lower()) in claim.terms | claim.around)


def _measured_alike(claim: Bound, item: Bound) -> bool:
    """A bare claim may be a number with a unit only when its sentence (or column header) names that
    unit: `178 (2023)` after `210 EUR/kWh`, `58,400` under `(EUR/MW/yr)`; a bare gap is not EUR 15,800."""
    dimension = item.quantity.dimension
    return not (
        claim.quantity.plain and dimension and claim.named is not None and dimension not in claim.named
    )
