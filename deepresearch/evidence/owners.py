"""Whose figure a number is: rival figures of one thing, each its own party's.

A number's **owner** is the party its text names right before it: a possessive (`NSO's 4.8 GW`, `the
industry's 4.9 GW`) or an acronym (`vs NSO 4.8 GW`); not a time (`2024's`, `last year's`). A number of
evidence whose owner is named, set in its text against a number of another value in its unit
(another party's figure for the same thing: `VSIA reports 4.9 GW versus NSO's 4.8 GW`), does not
state a claim that names another owner (`the industry's 4.8 GW`) in a sentence that does not name
its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepresearch.evidence.bound import Bound
from deepresearch.evidence.number_match import same_value
from deepresearch.evidence.terms import terms_of

_POSSESSIVE = re.compile(r"\b([A-Za-z][\w&-]*)['’]s\s+$")
_ACRONYM = re.compile(r"\b([A-Z][A-Z0-9&]+)\s+$")
# (stemmed) times, not parties: `last year's 1.3 GW`
_TIMES = frozenset({"year", "month", "week", "day", "today", "decad", "quarter", "season"})


def owner(number: Bound, acronyms: bool = True) -> str:
    """The party named right before the number in its clause, stemmed ("" when none)."""
    at = number.clause.find(number.text)
    if at < 0:
        return ""
    before = number.clause[:at]
    match = _POSSESSIVE.search(before) or (_ACRONYM.search(before) if acronyms else None)
    word = next(iter(terms_of(match.group(1))), "") if match else ""
    return "" if word in _TIMES else word


def other_owner(claim: Bound, stated: Bound, siblings: Sequence[Bound]) -> str:
    """The owner of `stated` when it is a rival figure of another party than the claim names ("" when
    not): its text sets it against a number of another value in its unit."""
    theirs, ours = owner(stated), owner(claim, acronyms=False)
    if not theirs or not ours or theirs == ours or theirs in claim.around:
        return ""
    rivals = (
        s for s in siblings
        if s is not stated and s.quantity.claim and s.quantity.dimension == stated.quantity.dimension
        and not same_value(s.quantity, stated.quantity) and s.years & stated.years
    )  # fmt: skip
    return theirs if next(rivals, None) is not None else ""
