"""A whole and its parts in one text: which of them a claim's words name.

A text may give a whole and a part of it for the same time, in its unit: `6.2 GW total = 2.3 GW
under construction + 3.9 GW permitted`, `total spend was EUR 520m (2024); battery operators' share
(310m)`. The whole is the number whose own phrase calls it one (`total`, `combined`, `overall`...);
a part is a smaller number of the same text, for its time, whose own phrase does not. The words of a
claim's own phrase then say which it is about:

- a whole does not state a claim whose phrase names a part (a word of the part's own phrase that the
  whole's words lack: `battery` for the operators' 310m) and no whole (`Batteries' revenue ... EUR
  520m` is not the total spend);
- a part does not state a claim whose phrase names what the whole's words name (`pipeline`) and
  nothing of the part's own phrase (`3.9 GW is in the pipeline` is not the 3.9 GW permitted).

Not when the claim's clause writes the other number too (`its 6.2 GW pipeline of 2.3 GW under
construction`: it gives the whole with its part), nor when it says its number is a share of
something or includes something (`a slice of`, `of which`, `including`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepresearch.evidence.bound import Bound
from deepresearch.evidence.eligible import WHOLE

_SHARE = re.compile(r"\b(?:share|part|portion|slice|of which|includ\w*|compris\w*|contain\w*)\b", re.I)


def whole_or_part(claim: Bound, stated: Bound, siblings: Sequence[Bound]) -> str:
    """Why `stated` is the whole where the claim names a part, or a part where it names the whole
    ("" when neither; module docstring)."""
    if not claim.near or claim.near & WHOLE or _SHARE.search(claim.clause):
        return ""
    if _whole(stated):
        for part in siblings:
            own = part.near - stated.near - stated.terms
            if _part_of(part, stated) and not _beside(part, claim) and claim.near & own:
                return f'as a whole; {part.text} is its part for "{", ".join(sorted(claim.near & own))}"'
        return ""
    for whole in siblings:
        if not _whole(whole) or not _part_of(stated, whole) or _beside(whole, claim):
            continue
        named = claim.near & (whole.near | whole.terms)
        if named and not claim.near & (stated.near - whole.near - whole.terms):
            return f'as a part; {whole.text} is the whole for "{", ".join(sorted(named))}"'
    return ""


def _whole(item: Bound) -> bool:
    """A number its own phrase calls a whole (`6.2 GW total`, `total spend was EUR 520m`)."""
    return item.quantity.claim and bool(item.near & WHOLE)


def _beside(other: Bound, claim: Bound) -> bool:
    """The claim's clause writes `other`'s value too, or it is the claim's own value."""
    values = {r.value for r in other.quantity.readings}
    return bool(values & claim.beside or values & {r.value for r in claim.quantity.readings})


def _part_of(part: Bound, whole: Bound) -> bool:
    """`part` is a smaller number than `whole` in its unit (or a scaled number whose unit is left to
    be understood: `310m`), for its time."""
    p, w = part.quantity, whole.quantity
    if part is whole or not p.claim or _whole(part) or part.change != whole.change:
        return False
    if p.dimension != w.dimension and (p.dimension or p.plain):
        return False
    if part.years and whole.years and not part.years & whole.years:
        return False
    return max(r.value for r in p.readings) < min(r.value for r in w.readings)
