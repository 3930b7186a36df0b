"""Which number of another value a claim's words may be about instead of any number with its value.

- `rival`: its unit, its time, a level for a level and a change for a change, not a threshold or a
  divisor (evidence/cited.py weighs the words);
- `weakly_stated`: a number found only by rounding (`5 GW` for 4.8 GW), or only as a threshold
  (`minimum 2-hour`) for a claim that names none, is weaker evidence: a number of another value,
  written as coarsely as the claim, that its words are about as much (`the 4 GW low case`) shows
  it is that number, changed; so, for a claim written as a bound (`below 100 EUR/kWh`), or that its
  own phrase calls one (`the Act's 2.4 GW floor`), stated only by a plain figure, does a bound of
  another value;
- `wrong_figure`: a number no evidence states is not derived when the evidence gives another value
  for the same thing: its kind (change or level), its years (all of them, when its own), and at
  least two of its distinctive words (`frequency deviations beyond ±200 mHz fell to 4 in 2024` when
  a fact gives 3 for them in 2024: the sentence gives the wrong figure, not an arithmetic of
  others); not a value its sentence states too, nor for a change that the words right by it make
  one (`0.6 GW more`, `up 0.6 GW`): those are differences of figures, not the figure of their
  thing, unless its words make it a whole (`the combined loss of 410 MW` when a fact gives the
  combined loss as 1,460 MW; a change by its words is of the kind of evidence whose item speaks of
  one); nor for a sum that names no year (`the two rounds together awarded 1.6 GW`: each round's
  figure is for its own year).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Sequence

from deepresearch.evidence.aboutness import timely, written_as_bound
from deepresearch.evidence.binding import Bound
from deepresearch.evidence.number_match import as_coarse, exact, same_value
from deepresearch.evidence.signals import SUM

Distinctive = Callable[..., frozenset[str]]  # the words of a set that few evidence texts use
_BOUNDS = frozenset({"threshold", "floor", "minimum", "maximum", "limit", "cap", "ceil"})


def rival(claim: Bound, item: Bound) -> bool:
    """A number that may be the one the claim's words are about instead: another figure in its unit
    for its time (`_another_figure`), a level for a level and a change for a change, and not for
    other years than the claim's."""
    return _another_figure(claim, item) and item.change == claim.change and _same_time(claim, item)


def _same_time(claim: Bound, item: Bound) -> bool:
    """An evidence number for the claim's time: timely, and for none of the claim's years only when
    it names none (`0.3 GW in 2022` is not a rival to a figure loosely for 2025)."""
    return timely(claim, item) and not (claim.years and item.years and not claim.years & item.years)


def wrong_figure(
    claim: Bound, texts: Sequence[Sequence[Bound]], distinctive: Callable[[frozenset[str]], frozenset[str]],
    written: Collection[float] = (),
) -> Bound | None:  # fmt: skip
    """Another value the evidence gives for what the claim is about (module docstring), or None;
    not one the claim's sentence states itself (`written`): then the claim is another figure
    (`rose from 0.3 GW in 2022 to 0.9 GW in 2023, 0.6 GW more`)."""
    total = SUM in claim.signals  # (`the combined loss of 1,460 MW`: a whole's figure, not a difference)
    if (worded_change(claim) and not total) or (not claim.years and total):
        return None  # (a sum for no year may add a fact's figures for several: `the two rounds together`)
    own = claim.strength == 2 and bool(claim.years)
    for text in texts:
        for item in text:
            q = item.quantity
            if not q.claim or q.dimension != claim.quantity.dimension or not _same_kind(claim, item):
                continue
            if same_value(claim.quantity, q) or any(float(r.value) in written for r in q.readings):
                continue
            if (own and not (item.strength and item.years == claim.years)) or not timely(claim, item):
                continue  # (a figure for 2024 is not the one for 2024-2025)
            if len(distinctive(claim.terms & item.terms)) >= 2:
                return item
    return None


def _same_kind(claim: Bound, item: Bound) -> bool:
    """A change for a change, a level for a level; a claim made a change by its words (`the combined
    loss of 1,460 MW`) is of the kind of evidence whose item speaks of one (a fact's `fell to`)."""
    return item.change == claim.change or (claim.change and item.changing)


def worded_change(claim: Bound) -> bool:
    """A change that the words right by it make one (`0.6 GW more`, `up 0.6 GW`, `rose by 12%`), not
    its sign: a difference of figures, not the figure of its thing."""
    if not claim.change or claim.direction == 0:
        return False
    digits = _DIGITS.search(claim.text)
    return digits is None or not _signed(digits.group(), claim.clause)


_DIGITS = re.compile(r"\d[\d,.]*")
_SIGN = re.compile(r"[+±−–-]\s?$")


def _signed(digits: str, clause: str) -> bool:
    """Whether `digits` stand in the clause right after a sign (fixed patterns: one built for each
    number would be compiled again for each)."""
    at = clause.find(digits)
    while at != -1:
        if _SIGN.search(clause, max(0, at - 2), at):
            return True
        at = clause.find(digits, at + 1)
    return False


def weakly_stated(
    claim: Bound, matches: Sequence[Bound], texts: Sequence[Sequence[Bound]], distinctive: Distinctive
) -> Bound | None:
    """When the numbers with the claim's value state it only weakly, rounded to the claim's
    precision (`5 GW` for 4.8 GW) or as a threshold for a claim that states no threshold (a
    `minimum 2-hour requirement` for an average of 2.0 hours): a number of another value written
    as coarsely as the claim (its unit, or one its sentence names; the claim's years) that the
    claim's distinctive words are about at least as much, by one word or more. A tie goes to the
    number the words name: `FEI's 5 GW low case` is the low case a fact gives as 4 GW, not the
    4.8 GW outturn beside it; `about 5 GW` is still the fleet's 4.8 GW beside a region's 1.9 GW. A claim
    written as a bound (`below 100 EUR/kWh`), or that its own phrase calls one (`the Act's 2.4 GW floor`),
    is stated weakly by a plain figure: a bound of another value that its words are about as much is
    the one meant (the base case's `below 100`, not the outturn's 178; the floor's `at least 2.4 GW`,
    not the `0.2 GW` by which a total exceeded it)."""
    # (`below 100 EUR/kWh`, `the Act's 2.4 GW floor`: a bound, stated surely only by a bound)
    limit = written_as_bound(claim) or bool(claim.near & _BOUNDS)
    bounded = limit or bool(claim.terms & _BOUNDS)
    if any(
        exact(claim.quantity, m.quantity)
        and (bounded or not written_as_bound(m))
        and (written_as_bound(m) or not limit)
        for m in matches
    ):
        return None
    ours = max(len(distinctive(m.terms & claim.terms, 10)) for m in matches)
    rivals = [
        (len(distinctive(item.terms & claim.terms, 10)), item)
        for item in others(claim, texts, named=True, bounds=limit)
        if as_coarse(item.quantity, claim.quantity)
    ]
    words, rival = max(rivals, key=lambda r: r[0], default=(0, None))
    return rival if words >= max(ours, 1) else None


def others(
    claim: Bound, texts: Sequence[Sequence[Bound]], named: bool = False, bounds: bool = False
) -> Iterator[Bound]:
    """The numbers of the evidence that are another figure than the claim's (`_another_figure`)."""
    return (item for text in texts for item in text if _another_figure(claim, item, named, bounds))


def _another_figure(claim: Bound, item: Bound, named: bool = False, bounds: bool = False) -> bool:
    """A number of the evidence in the claim's unit (`named`: for a bare claim, in a unit its sentence
    names too) with another value, for its years, that states an item's figure: not the value of
    another number of the claim's clause (`1-10 MW`), and written as a bound or a divisor (`1 MW or
    more`, `per 100,000`) only when `bounds` (then only so)."""
    mine, q = claim.quantity, item.quantity
    unit = q.dimension == mine.dimension or (
        named and mine.plain and claim.named is not None and q.dimension in claim.named
    )
    if not q.claim or not unit or same_value(mine, q):
        return False
    if {r.value for r in q.readings} & claim.beside or not timely(claim, item):
        return False
    return written_as_bound(item) == bounds
