"""Whose figure a number is: rival figures of one thing, each its own party's.

A number's **owner** is the party its text names right before it: a possessive (`NSO's 4.8 GW`, `the
industry's 4.9 GW`) or an acronym (`vs NSO 4.8 GW`); not a time (`2024's`, `last year's`). A number of
evidence whose owner is named, set in its text against a number of another value in its unit
(another party's figure for the same thing: `VSIA reports 4.9 GW versus NSO's 4.8 GW`), does not
state a claim that names another owner (`the industry's 4.8 GW`) in a sentence that does not name
its own. A table row names its figure's owner in its label cells, by acronym (`| 4.8 GW | VSIA [S03] |`):
such a row is not stated by another party's figure its label cells do not name (the whole table may:
`Gap to NSO`).

So is a number written with another figure in its clause its partner's (`2.3 GW in 29 projects`: the
29 are the 2.3 GW's projects; a name, `round 3`, is no figure): a claim whose clause pairs it with a
figure (`2.3 GW under construction in 47 projects`) is not stated by numbers none of which its text
pairs with that figure (`3.9 GW in 47 projects`) when another number of the claim's unit is paired
there with it and shares more of the claim's words (two at least when a number with the claim's
value is written alone: it may be the claim's): that one is the claim's, changed (evidence/cited.py;
`2.9 GW of bids for 2.6 GW`, where the bids of 2.9 GW were for 1.0 GW). And the words another number
of its clause has in its own phrase are that number's, not its partner's (`bids totalling 2.9 GW were
submitted for an indicative volume of 1.0 GW`: the 1.0 GW is no bid): `own_words`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from decimal import Decimal

from deepresearch.evidence.bound import Bound
from deepresearch.evidence.number_match import same_value
from deepresearch.evidence.terms import terms_of
from deepresearch.evidence.units import named_dimensions

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
    theirs = owner(stated)
    if claim.column >= 0:  # a table row names its figure's party in a label cell (`| 4.9 GW | VSIA [S03] |`)
        named, own = bool(claim.party), claim.label
    else:
        ours = owner(claim, acronyms=False)
        named, own = bool(ours) and ours != theirs, claim.around
    if not theirs or not named or theirs in own:
        return ""
    rivals = (
        s for s in siblings
        if s is not stated and s.quantity.claim and s.quantity.dimension == stated.quantity.dimension
        and not same_value(s.quantity, stated.quantity) and s.years & stated.years
    )  # fmt: skip
    return theirs if next(rivals, None) is not None else ""


_CITATION = re.compile(r"\[[^\]]*\]")


def parties(text: str) -> frozenset[str]:
    """The parties a text names by acronym of three letters or more (`VSIA [S03]`; not a citation, nor
    a unit: `EUR`, `MWh`), stemmed."""
    acronyms = (m.group() for m in _ACRONYM_WORD.finditer(_CITATION.sub(" ", text)))
    return frozenset(w for a in acronyms if not named_dimensions(a) for w in terms_of(a))


_ACRONYM_WORD = re.compile(r"\b[A-Z][A-Z0-9&]{2,}\b")


def own_words(number: Bound, text: Sequence[Bound]) -> frozenset[str]:
    """The words of a number's own phrase and of its clause, but not those another number of its
    clause (another value) has in its own phrase: `bids totalling 2.9 GW were submitted for an
    indicative volume of 1.0 GW` does not call the 1.0 GW bids."""
    theirs = frozenset().union(
        *(o.near for o in text if o.clause == number.clause and not same_value(o.quantity, number.quantity))
    )
    return number.near | (number.terms - theirs)


def _partners(number: Bound) -> frozenset[Decimal]:
    """The values of the other figures of its clause, years aside."""
    return frozenset(v for v in number.beside if not (v == v.to_integral_value() and 1800 <= v <= 2100))


def partnered(claim: Bound, matches: Sequence[Bound], others: Iterable[Bound]) -> Bound | None:
    """A number of another value paired with the figure the claim is paired with, when no number
    with the claim's value is paired with it (see the module docstring)."""
    ours = _partners(claim) - {r.value for r in claim.quantity.readings}
    if not ours or any(_partners(m) & ours for m in matches):
        return None
    # (and whose words are the claim's more: else its partner may be the number that is wrong; by two
    # at least when a number with its value is written alone: that may be the claim's figure, its
    # partner another's: `range from 3.8 to 9.9 GW`, a forecast's low end and a market page's figure)
    words = max(len(m.terms & claim.terms) for m in matches)
    least = max(words + 1, 2 if any(not _partners(m) for m in matches) else 0)
    return next((o for o in others if _partners(o) & ours and len(o.terms & claim.terms) >= least), None)
