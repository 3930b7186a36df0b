"""Are two numbers with the same value about the same thing? The rules, on numbers bound to what
they are about (evidence/binding.py):

- **years**: they meet, or cannot be said not to (`timely`); a number a report gives for its own
  year (a table row's, one written by it) needs a fact that gives it for that year; a number whose
  one year is only its context's is not another year's figure of something evidence gives for its
  context's year (`contemporary`); a number its clause gives for several years of its own as a whole
  (`combined`, `in total`) is stated only by one given for all of them, or as a whole, or by a
  change (an evidence change over years is for the later one), not by a level at one year's end;
- **forecast or measurement**: a forecast's or scenario's number (`low case 4 GW`) does not state
  a number its sentence gives as measured, nor one its words give for another scenario (`the 4 GW
  base case`; evidence/forecasts.py); a number that is no forecast's does not state a table row's
  that its label gives as a forecast's (`| ~4.5 GW (range 3.8-5.2) | Corvel forecast |`);
- **whose figure**: a party's figure set against another party's in its text (`versus NSO's 4.8
  GW`) does not state a claim that names another owner (`the industry's 4.8 GW`, a table row whose
  label cell names `VSIA`; evidence/owners.py);
- **change or level**: a change (`+0.1 GW`, `rose by 12%`) is stated only by a change; a level
  column of a report table is not stated by a change (an addition); and not in the other direction;
- **ends of a range**: a range's lower end (`1.5` of `1.5-2.0 GW`) is not stated by a range's upper
  end, nor its upper end by a lower one (`from 3 to 5 GW` is a change, not a range, unless a range
  is said to run so: `figures range from 3.8 to 9.9 GW`);
- **what it is a number of**: the claim's words do not name what another number of the same text is
  about rather than this one, when its sentence names both (the 1.7 GW of `transmission 3.1 GW,
  distribution 1.7 GW` is not a transmission figure; a word of the claim that many texts use, like
  `installations`, does not make it about `stated`); nor, when none of its words is about this
  number, what at least two of them say of another fact's number.
- **whole or part**: a text's whole (`total`) does not state a claim whose own phrase names a part
  of it that the text gives, nor a part one whose phrase names only the whole (evidence/wholes.py).

Which number of another value a claim's words may be about instead: evidence/rivals.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from deepresearch.evidence.binding import Bound
from deepresearch.evidence.eligible import WHOLE
from deepresearch.evidence.forecasts import forecast_row, scenario
from deepresearch.evidence.number_match import same_value, years_text
from deepresearch.evidence.owners import other_owner
from deepresearch.evidence.reading import NEGATION
from deepresearch.evidence.wholes import whole_or_part

CONTAINS = re.compile(r"\b(?:includ\w*|compris\w*|contain\w*|of which|among them)\b", re.IGNORECASE)


def _closer(
    claim: Bound,
    stated: Bound,
    siblings: Sequence[Bound],
    distinctive: Callable[[frozenset[str]], frozenset[str]],
) -> str:
    """Why `stated` is about another item of its text than the claim ("" when not): the claim's
    distinctive words are about another number of the same text, none of its distinctive words is
    about `stated`, and the claim's sentence (or table) names what `stated` is about too
    (`transmission 3.1 GW, distribution 1.7 GW`), or none of the claim's distinctive words is about
    `stated` at all (`97% response; uncertainty about ±3%`: an uncertainty of 97% is the response's
    figure, whatever word many facts use they share). Not when
    the claim says its number includes the other thing (`4.9 GW includes behind-the-meter
    systems`)."""
    if CONTAINS.search(" ".join(sorted(claim.terms))) or CONTAINS.search(claim.clause):
        return ""
    for other in siblings:
        if other is stated or not other.quantity.claim or not _alike(other, stated):
            continue
        if same_value(claim.quantity, other.quantity):
            continue
        theirs = distinctive((other.terms - stated.terms) & claim.terms)
        ours = stated.terms - other.terms
        # (`stated` about none of the claim's distinctive words: its sentence need not name its item)
        named = ours & claim.around or not distinctive(stated.terms & claim.terms)
        if theirs and not distinctive(ours & claim.terms) and named:
            return f'for another item; {other.text} is its figure for "{", ".join(sorted(theirs))}"'
    return ""


def _alike(other: Bound, stated: Bound) -> bool:
    """Numbers of one unit, or `other` written with a scale word but its unit left to be understood
    (`EUR 520m; battery revenue was 310m`)."""
    q = other.quantity
    return q.dimension == stated.quantity.dimension or (not q.dimension and not q.plain)


def _column(
    claim: Bound,
    stated: Bound,
    siblings: Sequence[Bound],
    distinctive: Callable[[frozenset[str]], frozenset[str]],
) -> str:
    """Why `stated` is the figure of another column of the claim's table ("" when not): it is about
    what another header of numbers in its unit names (`DC`, `per 100,000 residents`), and about
    none of the distinctive words that set the claim's own header apart (`HPC`; `Points` sets
    nothing apart from `Points per 100,000 residents`, and says little where every fact counts
    points); or the words that set the claim's header apart are what another number of its text
    is about, not it (`6,100` under `Points per 100,000 residents`, where the text gives `(105)`)."""
    named = distinctive((stated.terms & claim.columns) - claim.terms)
    if named and not distinctive(stated.terms & claim.header):
        return f'for "{", ".join(sorted(named))}", which another column of this table gives'
    own = distinctive(claim.header - stated.terms)
    for other in siblings if own else ():
        q = other.quantity
        if (
            q.claim
            and q.dimension == stated.quantity.dimension
            and own <= other.terms
            and not same_value(claim.quantity, q)
        ):
            return f'for another column; {other.text} is its figure for "{", ".join(sorted(own))}"'
    return ""


def _elsewhere(
    claim: Bound,
    stated: Bound,
    texts: Sequence[Sequence[Bound]],
    distinctive: Callable[[frozenset[str]], frozenset[str]],
) -> Bound | None:
    """When none of the claim's words is about `stated`: another number of another fact (its unit,
    its years, another value) that at least two of the claim's words are about (or its one word,
    when that is all it says and few facts use it: `the industry's 4.8 GW`), when the claim's
    sentence names what `stated` is about (or `stated` is about nothing); or all the claim's
    distinctive words, when `stated` is about words its sentence does not use at all (the 1.6 GW of
    a region is not the 2.3 GW under construction). Not for a sentence that negates: its words may
    say what the number is not about."""
    if not claim.terms or stated.terms & claim.terms or claim.negated:
        return None  # a sentence that says what its number is not is not held to a figure for those words
    apart = bool(stated.terms) and not stated.terms & claim.around
    own = distinctive(claim.terms)
    for text in texts:
        for other in text:
            q = other.quantity
            if other.origin == stated.origin or not q.claim or q.dimension != stated.quantity.dimension:
                continue
            shared = other.terms & claim.terms
            # two words, or the claim's one word when that is all it says and few facts use it
            enough = len(shared) >= 2 or (claim.terms == own and len(own) == 1 and own <= shared)
            if not ((not apart and enough) or (apart and own and own <= shared)):
                continue
            if {r.value for r in q.readings} & claim.beside:
                continue  # (the words may be about the other number of its clause: `1-10 MW`)
            if claim.years and other.years and not claim.years & other.years:
                continue
            if not same_value(claim.quantity, q):
                return other
    return None


def contemporary(
    claim: Bound,
    matches: Sequence[Bound],
    texts: Sequence[Sequence[Bound]],
    distinctive: Callable[[frozenset[str]], frozenset[str]],
) -> Bound | None:
    """For a number whose one year is only its context's (its sentence names none of its own: the
    year of the sentence before, of its paragraph), when every number with its value is given for
    another year: the figure that evidence gives for the claim's year, of another value, of the same
    thing (all the words, two or more, of one of them: `the NSO's validated 3.4 GW` after a sentence
    about end-2025, where 3.4 GW is the end-2024 operational fleet and 4.8 GW the end-2025 one) or
    of what the distinctive words of the claim's own phrase name, when none of them names (`3.4 GW
    under construction`, where 2.3 GW is under construction at end-2025). Not for a clause that
    negates: it may name what the number is not."""
    if len(claim.years) != 1 or claim.strength >= 2 or NEGATION.search(claim.clause):
        return None
    if not all(m.strength and m.years and not m.years & claim.years for m in matches):
        return None
    series = [m.terms for m in matches if len(m.terms) >= 2]
    phrase = frozenset() if any(m.terms & claim.near for m in matches) else distinctive(claim.near)
    found: list[Bound] = []
    for text in texts:
        for item in text:
            q = item.quantity
            if not q.claim or q.dimension != claim.quantity.dimension or same_value(claim.quantity, q):
                continue
            if not item.strength or not item.years & claim.years or item.change != claim.change:
                continue
            if item.forecast or {r.value for r in q.readings} & claim.beside:
                continue
            if any(terms <= item.terms for terms in series) or phrase & item.terms:
                found.append(item)
    # (the one whose own phrase names most of what the claim's does)
    return max(found, key=lambda i: (len(phrase & i.near), len(phrase & i.terms)), default=None)


def _as_a_whole(claim: Bound) -> bool:
    """A number its clause gives for years of its own as a whole (`0.6 GW implied for 2019-2021
    combined`, `in total over 2023-2024`)."""
    return claim.strength == 2 and len(claim.years) >= 2 and bool(claim.terms & WHOLE)


def _for_years(stated: Bound, years: frozenset[int]) -> bool:
    """Whether an evidence number may be for all of `years`: it names them, or none, or it is a change
    (an evidence change over years is given for the later one)."""
    return not stated.years or years <= stated.years or stated.change


def loosely_dated(claim: Bound, stated: Bound) -> bool:
    """A number the claim gives for its own year, stated by a fact that does not give it for it."""
    return claim.strength == 2 and bool(claim.years) and not (stated.strength and stated.years & claim.years)


def timely(claim: Bound, stated: Bound) -> bool:
    """Their years meet, or cannot be said not to: the claim's years are its own (strength 2), or
    the one year of its sentence against evidence that names its years at least as surely."""
    if not claim.years or not stated.years or claim.years & stated.years:
        return True
    return not (claim.strength == 2 or (claim.strength == 1 and stated.strength >= 1))


def written_as_bound(item: Bound) -> bool:
    """A number written as a bound or a divisor (`above 1 MW`, `1 MW or more`, `per 100,000`,
    `a minimum of 2 hours`): no item's figure."""
    return _as_bound(item.text, item.clause)


_BOUND_BEFORE = re.compile(
    r"(?:\b(?:per|above|over|below|under|than|least|exceeding|minimum|maximum)\s+(?:of\s+)?|(?:[<>]=?|[≥≤])\s*)$"
)
_BOUND_AFTER = re.compile(r"\s+(?:or|and)\s+(?:more|less|above|over|below|under|greater|higher|lower)\b")


@lru_cache(maxsize=8192)
def _as_bound(text: str, clause: str) -> bool:
    """Whether `text` stands in `clause` as a bound (fixed patterns: a pattern per number would be
    compiled again for each, past the regex cache)."""
    start = clause.find(text)
    while start != -1:
        end = start + len(text)
        if _BOUND_BEFORE.search(clause, max(0, start - 40), start) or _BOUND_AFTER.match(clause, end):
            return True
        start = clause.find(text, start + 1)
    return False


def _every(terms: frozenset[str]) -> frozenset[str]:
    return terms


def conflict(
    claim: Bound,
    stated: Bound,
    siblings: Sequence[Bound],
    texts: Sequence[Sequence[Bound]] = (),
    dated: bool = False,
    distinctive: Callable[[frozenset[str]], frozenset[str]] = _every,
) -> str:
    """Why `stated`, which has the claim's value, is not about the same thing ("" when it is)."""
    who = f"{stated.origin} states {stated.text}"
    if not timely(claim, stated):
        return f"{who} for {years_text(stated.years)}, not {years_text(claim.years)}"
    if dated and loosely_dated(claim, stated):
        said = f"only loosely for {years_text(stated.years)}" if stated.years else "for no year"
        return f"{who} {said}, not for {years_text(claim.years)}"
    if _as_a_whole(claim) and not (_for_years(stated, claim.years) or stated.terms & WHOLE):
        return f"{who} for {years_text(stated.years)}, not for {years_text(claim.years)} as a whole"
    if stated.forecast and claim.observed:
        return f"{who} as a forecast or scenario, not as a measured figure"
    if forecast_row(claim) and not stated.forecast:
        return f"{who} as no forecast's or scenario's figure, not as the one its row gives"
    party = other_owner(claim, stated, siblings)
    if party:
        return f"{who} as {party}'s figure, not the one its words name"
    ours, theirs = scenario(claim), scenario(stated)
    if ours and theirs and not ours & theirs:
        return f"{who} for another scenario than the one its words name ({', '.join(sorted(ours))})"
    if claim.change and not (stated.change or stated.changing):
        return f"{who} as a level, not as a change"
    if stated.change and not claim.change and claim.column >= 0:
        return f"{who} as a change, not as a level"  # a table's level column, an addition
    if claim.quantity.span * stated.quantity.span < 0:
        ends = ("lower", "upper") if stated.quantity.span < 0 else ("upper", "lower")
        return f"{who} as the {ends[0]} end of a range, not the {ends[1]}"
    if claim.direction * stated.direction < 0:
        return f"{who} as a {'rise' if stated.direction > 0 else 'fall'}, not a {'fall' if stated.direction > 0 else 'rise'}"
    closer = _closer(claim, stated, siblings, distinctive) or _column(claim, stated, siblings, distinctive)
    closer = closer or whole_or_part(claim, stated, siblings)
    if closer:
        return f"{who} {closer}"
    other = _elsewhere(claim, stated, texts, distinctive)
    if other is not None:
        said = ", ".join(sorted(other.terms & claim.terms))
        return f'{who}, but not for "{said}": {other.origin} gives {other.text} for that'
    return ""
