"""The years a text names, and which number each belongs to.

A year is a four-digit whole number 1800-2100 that evidence/quantities.py does not read as a claim
(`2024`, `end-2025`, `2024年`); a range of years (`2022-2025`, `between 2022 and 2025`, `from 2021
to 2025`) is one mention of every year in it, with its two ends kept. A year belongs to a number:

- when it is written right after it (`0.9 GW in 2023`, `EUR 95m (2022)`, `4.8 GW at end-2025`, `100
  EUR/kWh by 2023`, `on 29 January 2025`) or right before it (`2024: 3.4 GW`, `(May 2024) awarded
  0.9 GW`);
- numbers written as one share it: `0.9 GW / 1.6 GWh at end-2021`, `3.4 GW (3,400 MW) in 2024`,
  `1.5-2.0 GW in 2026`, and so do the numbers in brackets or in a range after it: `10 GW by 2025
  (low 4, high 14)`, `4.5 GW by end-2025, range 3.8-5.2 GW`;
- a list of numbers takes a list or range of as many years in order: `0.9, 1.2, 2.1, 3.4 and 4.8
  GW in 2021-2025`, `+5, +19, +23 and +26 in 2022-2025`; `from 210 to 130 EUR/kWh between 2022 and
  2025` gives 210 to 2022 and 130 to 2025.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from deepresearch.evidence.quantities import Quantity

_YEAR_LINK = re.compile(r"\s*(?:[-–—/]|to|and|through|until|till)\s*", re.IGNORECASE)
_MONTH = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
# What may stand between a number and the year it is for: `in`, `(`, `at end-`, `on 29 January`.
_AFTER = re.compile(
    r"(?:\s*/\s*[A-Za-z-]{1,8})*\s*(?:[A-Za-z]{1,4}\s*)?(?:\([^()\d]*\d[\d.,]*\s*[A-Za-z]{1,4}\)\s*)?\(?\s*"
    r"(?:(?:[A-Za-z-]{2,14}\s+){1,2}(?=(?:in|for|at|by|as of|on)\s))?"
    r"(?:(?:in|for|at|by|during|as of|of|from|since|until|through|on|over|between)\s+)?"
    r"(?:the\s+)?(?:(?:end|start|beginning|middle|close)\s+of\s+|(?:year-?end|end|mid|early|late)[- ]?)?"
    rf"(?:\d{{1,2}}\s+)?(?:(?:{_MONTH})\.?\s+)?(?:FY\s?)?",
    re.IGNORECASE,
)
_BEFORE = re.compile(r"\s*(?:\)\s*(?:[a-z]+\s+){0,2}|[:：|–—-]\s*|\s*)")
_PARTNER = re.compile(r"\s*(?:/|=|\(|\)\s*/|≈)\s*|[-–—]")
_LIST = re.compile(r"\s*(?:/|,|;|,?\s+and|,?\s+to)\s*[+−-]?", re.IGNORECASE)
_SAME_CLAUSE = re.compile(r"\s+(?:[a-z-]+\s+){1,3}", re.IGNORECASE)  # `2.3 GW under construction in 29`
_SPREAD = re.compile(
    r"[,;]\s*(?:a\s+|with\s+a\s+)?(?:range|low|high|between|spread)\b[^,;.()]*$", re.IGNORECASE
)
_INPUTS = re.compile(r"\((?:derived|computed|calculated)", re.IGNORECASE)  # `(derived: 46,200 less 39,500)`
_FROM = re.compile(r"\bfrom\s*$", re.IGNORECASE)


_ELSEWHEN = re.compile(
    r"\b(?:earlier|before|previous\w*|prior|later|following|next|last|ago|since|then|once|former\w*|"
    r"initially|originally|until|preceding|subsequent\w*)\b",
    re.IGNORECASE,
)


def elsewhen(text: str) -> bool:
    """Whether a text places what it says against another time than the years it names (`a year
    later`, `the year before`, `since`): its numbers without a year of their own are not theirs."""
    return bool(_ELSEWHEN.search(text))


@dataclass(frozen=True)
class YearMention:
    """Where a year (or a range of years) is written, and its years."""

    start: int
    end: int
    years: frozenset[int]
    ends: tuple[int, int]  # the first and last year as written


def mentions(text: str, found: Sequence[Quantity]) -> list[YearMention]:
    """The years written in `text` (prepared), a range of years joined into one mention."""
    out: list[YearMention] = []
    for q in found:
        digits = text[q.start : q.end]
        if q.claim or q.dimension or not re.fullmatch(r"\d{4}", digits) or not 1800 <= int(digits) <= 2100:
            continue
        year = int(digits)
        last = out[-1] if out else None
        if last and _YEAR_LINK.fullmatch(text[last.end : q.start]) and 0 < year - last.ends[1] <= 30:
            out[-1] = YearMention(
                last.start, q.end, frozenset(range(last.ends[0], year + 1)), (last.ends[0], year)
            )
        else:
            out.append(YearMention(q.start, q.end, frozenset({year}), (year, year)))
    return out


def _written_by(text: str, q: Quantity, years: list[YearMention]) -> YearMention | None:
    after = next((y for y in years if y.start >= q.end), None)
    if after is not None and after.start - q.end <= 40 and _AFTER.fullmatch(text, q.end, after.start):
        return after
    before = next((y for y in reversed(years) if y.end <= q.start), None)
    if before is not None and q.start - before.end <= 24 and _BEFORE.fullmatch(text, before.end, q.start):
        return before
    return None


_MONTH_AFTER = re.compile(rf"\s*(?:{_MONTH})\b", re.IGNORECASE)
_MONTH_BEFORE = re.compile(rf"\b(?:{_MONTH})\.?\s*$", re.IGNORECASE)


def _date_part(text: str, q: Quantity) -> bool:
    """Whether a number is the day of a date (`14 November`, `March 5`)."""
    return bool(_MONTH_AFTER.match(text, q.end) or _MONTH_BEFORE.search(text, 0, q.start))


def _runs(text: str, claims: list[Quantity]) -> list[list[Quantity]]:
    """Numbers written as a list (`0.9, 1.2 and 2.1 GW`, `0.9/1.2/2.1`), of one unit."""
    runs: list[list[Quantity]] = []
    for q in claims:
        last = runs[-1][-1] if runs else None
        if last is not None and _LIST.fullmatch(text, last.end, q.start) and last.dimension == q.dimension:
            runs[-1].append(q)
        else:
            runs.append([q])
    return [run for run in runs if len(run) > 1]


def belonging(text: str, found: Sequence[Quantity], years: list[YearMention]) -> dict[int, YearMention]:
    """The year mention each number (by its start) belongs to (module docstring); the mentions used
    are those no other number may take as its clause's."""
    claims = [q for q in found if q.claim]
    starts = {m.start for m in years} | {m.end for m in years}
    owned: dict[int, YearMention] = {}
    for q in found:
        if q.start in starts or q.end in starts or (not q.claim and _date_part(text, q)):
            continue  # a year itself, or the day of a date
        mention = _written_by(text, q, years)
        if mention is not None:
            owned[q.start] = mention
    for a, b in itertools.pairwise(claims):  # numbers written as one share a year
        if _PARTNER.fullmatch(text, a.end, b.start):
            shared = owned.get(a.start) or owned.get(b.start)
            if shared is not None:
                owned.setdefault(a.start, shared)
                owned.setdefault(b.start, shared)
    for a, b in itertools.pairwise(claims):  # `10 GW by 2025 (low 4 GW, high 14 GW)`, `4.5 GW, range 3.8-5.2`
        between = text[a.end : b.start]
        bracket = "(" in between and ")" not in between and not _INPUTS.search(between)
        if a.start in owned and b.start not in owned and (bracket or _SPREAD.search(between)):
            owned[b.start] = owned[a.start]
            for c in claims[claims.index(b) + 1 :]:
                if ")" in text[b.end : c.start] or c.start in owned:
                    break
                owned[c.start] = owned[a.start]
    for a, b in itertools.pairwise(claims):  # `2.3 GW under construction in 29 projects at end-2025`
        if b.start in owned and a.start not in owned and _SAME_CLAUSE.fullmatch(text, a.end, b.start):
            owned[a.start] = owned[b.start]
    for run in _runs(text, claims):
        _pair_list(text, run, years, owned)
    return owned


def _pair_list(
    text: str, run: list[Quantity], years: list[YearMention], owned: dict[int, YearMention]
) -> None:
    """A list of n numbers takes, in order, a range of n years right after or before it, else n
    single years of its text; `from a to b` takes the ends of a range after or before it, before
    any single years of its text (`from EUR 95m in 2022 to EUR 310m in 2024, and from 210 to 130
    EUR/kWh between 2022 and 2025`)."""
    after = [y for y in years if y.start >= run[-1].end and y.start - run[-1].end <= 60]
    before = [y for y in years if y.end <= run[0].start and run[0].start - y.end <= 80]
    span = next((y for y in (*after, *reversed(before)) if len(y.years) == len(run)), None)
    ends = next((y for y in (*after, *reversed(before)) if y.ends[0] != y.ends[1]), None)
    if span is None and len(run) == 2 and ends is not None and _FROM.search(text, 0, run[0].start):
        span = YearMention(ends.start, ends.end, frozenset(ends.ends), ends.ends)  # (its range's ends)
    singles = [y for y in years if len(y.years) == 1]
    if span is None and len(singles) == len(run) and len({min(y.years) for y in singles}) == len(run):
        for q, mention in zip(run, sorted(singles, key=lambda y: min(y.years)), strict=True):
            owned.setdefault(q.start, mention)
        return
    if span is not None:
        for q, year in zip(run, sorted(span.years), strict=True):
            owned[q.start] = YearMention(span.start, span.end, frozenset({year}), (year, year))
