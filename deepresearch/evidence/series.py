"""A list's item told apart by its place: a sentence's numbers of one unit written in the order a
cited text writes its own.

When a sentence writes three or more numbers of one unit as a list, its items' words written once
(`from about 28% to 44% to 60%`, `totals of EUR 340m, 410m and 520m`; not `importing 1,050 MW ...
~1,600 MW load shed`; it may close with their total: `..., 6.2 GW in total`), and a cited text
writes numbers of that unit in which every other of them stands, in the same order and one after the
other, the item is the text's number at its place (the year or row that text gives it): a claim with
another value there is that list's item, changed, even when another text states its value for
something else (`23%`, gas's share, for a list of battery shares whose first is 28%). A table row's
cells likewise, against a quoted row in the same order (`| 2024 | 39,500 | 31,300 | 4,900 | 3,300
|`: the HPC column's 3,300 is not the DC column's 4,900). Bare numbers only in a table, where the
header gives their unit.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepresearch.evidence.binding import Bound
from deepresearch.evidence.cited import Evidence
from deepresearch.evidence.eligible import WHOLE
from deepresearch.evidence.number_match import same_value

_LEAST = 3  # two other items in order are needed to place one: two alone may be a part of a series


def misplaced(claims: Sequence[Bound], evidence: Evidence) -> dict[int, str]:
    """The claims (by index) whose place in a list of their sentence a cited text's list fills with
    another value, and why."""
    out: dict[int, str] = {}
    for index, claim in enumerate(claims):
        if not claim.quantity.claim or not (claim.quantity.dimension or claim.column >= 0):
            continue
        items = [c for c in claims if _alike(c, claim)]
        if len(items) < _LEAST or any(i.near - items[0].near - WHOLE for i in items[1:]):
            continue  # (a list writes its items' words once: `1,050 MW ... ~1,600 MW load shed` is none)
        rival = _at_place(items, items.index(claim), evidence)
        if rival is not None:
            out[index] = f"{rival.origin} writes this list in the same order, with {rival.text} at its place"
    return out


def _alike(item: Bound, claim: Bound) -> bool:
    """Items of one list: one unit, each with a year of its own or none (`from 0.3 GW in 2022 to 0.9
    GW in 2023, 0.6 GW more`: the 0.6 GW is no item of the two; a table row's cells, levels and
    changes alike, all take its label's year)."""
    dated = bool(item.years) and item.strength == 2
    return (
        item.quantity.claim
        and item.quantity.dimension == claim.quantity.dimension
        and dated == (bool(claim.years) and claim.strength == 2)
    )


def _at_place(items: Sequence[Bound], place: int, evidence: Evidence) -> Bound | None:
    """The number of a cited text at the claim's place in the list the other items align with,
    when it has another value and no text's aligned list has the claim's value there."""
    rival: Bound | None = None
    claim = items[place]
    for text in evidence.texts:
        row = [b for b in text if b.quantity.claim and b.quantity.dimension == claim.quantity.dimension]
        for shift in range(-place, len(row) - place):
            if not _aligned(items, place, row, shift):
                continue
            there = row[place + shift]
            if same_value(claim.quantity, there.quantity):
                return None  # (a text writes the claim's value at its place)
            rival = rival or there
    return rival


def _aligned(items: Sequence[Bound], place: int, row: Sequence[Bound], shift: int) -> bool:
    """Every item but the one at `place` has the value of the text's number `shift` places on."""
    for j, item in enumerate(items):
        if j == place:
            continue
        k = j + shift
        if not 0 <= k < len(row) or not same_value(item.quantity, row[k].quantity):
            return False
    return True
