"""Quantities written in prose: numbers with their units and scale, ranges, and what is not a claim.

`quantities(text)` reads every number that states something (a claim), in its unit's base (see
units.py): `4,800 MW` and `4.8 GW` both read 4.8e9 W, `4,8 Mrd. €` and `€4.8bn` 4.8e9 EUR.
Separators and decimal commas are read as in numbers.py (`1,234` keeps both readings, unless the
text's other numbers say which separator is its decimal one). Chinese and
Japanese compounds are one number: `1兆2000億円` is 1.2e12 JPY, `1億2500万` 1.25e8. A range shares its unit and scale: `4–5 GW`, `4 to 5 GW`,
`between 4 and 5 GW`, `€4–5 billion`, `4至5吉瓦` are two quantities, each in GW (or billions of euros).

Not claims (left out): years (a bare whole number 1800-2100, `2020s`, `2024年`), the parts of a date
(`2024-03-01`, `5 March`, `3月5日`, `10:30`), numbers inside URLs, references (`Section 3.2`, `§ 4`, `Figure 2`, `Table 1`,
`p. 12`, `unit 2`, `图 1`, `第3章`, and the bare numbers that go on with their list: `rounds 2 and
3`), citation IDs (`[S01]`, `[12]`, `Fact-003`, and any word-hyphen-number such as `COVID-19`), list ordinals (`1.` or `2)` opening a line, `(3)`, `1st`, `4th`).
With `claims_only=False` everything is read, and number words (`twelve`, `twenty`) too: evidence may
spell a number that a statement writes in digits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal

from deepresearch.core.langdetect import detect_language
from deepresearch.evidence.numbers import normalize, readings, thousands
from deepresearch.evidence.units import LONG_SCALE_LANGUAGES, Unit, read_prefix, read_tail


@dataclass(frozen=True)
class Reading:
    """One plausible value of a written number and its precision, both in base units: `step` takes
    a whole number's trailing zeros as rounding (4800: 100), `exact` does not (4800: 1)."""

    value: Decimal
    step: Decimal
    exact: Decimal


@dataclass(frozen=True)
class Quantity:
    """A number as a claim: how it was written, where, and what it may mean."""

    text: str  # as written, with its unit: "4,800 MW"
    start: int  # offsets in the normalised text
    end: int
    readings: tuple[Reading, ...]  # with scale and unit applied (absolute values)
    bare: tuple[Reading, ...]  # the digits alone (a table cell under a "GW" header says just 4.8)
    dimension: str  # "" for a bare number, else W, Wh, %, EUR, USD, GBP, CNY
    claim: bool = True  # False for years, dates, references and number words (read as evidence)
    span: int = 0  # an end of a range (`1.5-2.0 GW`, `between 4 and 5`): -1 its lower, +1 its upper

    @property
    def plain(self) -> bool:
        """Written without scale or unit: it may be compared with any reading of another number."""
        return not self.dimension and self.readings == self.bare


_NUMBER = re.compile(
    r"(?<![\w.,])(?P<num>\d{1,3}(?:[ \u00a0\u202f\u2009'’]\d{3})+(?:[.,]\d+)?(?!\d)|\d+(?:[.,]\d+)*)",
    re.ASCII,
)
NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
    "dozen": 12,
}  # fmt: skip
_WORD_NUMBER = re.compile(rf"\b(?:{'|'.join(NUMBER_WORDS)})\b", re.IGNORECASE)
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_REFERENCE_WORDS = (
    r"sections?|sec\.|§+|chapters?|ch\.|figures?|figs?\.|tables?|annex(?:es)?|appendix|appendices|"
    r"articles?|art\.|pages?|p\.|pp\.|paragraphs?|para\.|items?|steps?|phases?|rounds?|no\.|nos\.|"
    r"numbers?|versions?|v\.?|lines?|questions?|tasks?|parts?|exhibits?|equations?|eq\.|rules?|units?"
)
_REFERENCE = re.compile(rf"(?:(?<![^\W\d_])(?:{_REFERENCE_WORDS}))\s*\d+(?:[.\-–]\d+)*", re.IGNORECASE)
_LIST_ON = re.compile(r"\s*(?:,|&|and|or)\s*", re.IGNORECASE)
_COUNTED = re.compile(r"\s*(?!(?:and|or)\b)[^\W\d_]", re.IGNORECASE)
# Spans of the text that hold no claims, as regexes over the normalised text.
_NOT_CLAIMS = [
    re.compile(r"(?:https?|ftp)://\S+|www\.\S+", re.IGNORECASE),  # URLs: ports, paths, IDs
    re.compile(r"(?<!\d)\d{4}-\d{1,2}(?:-\d{1,2})?(?!\d)"),  # ISO dates (and 2026-11-23T10:00Z)
    re.compile(r"(?<!\d)\d{1,2}/\d{1,2}/\d{2,4}(?!\d)"),  # 03/05/2024
    re.compile(r"(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)"),  # times
    re.compile(rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b", re.IGNORECASE),  # March 5
    re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b", re.IGNORECASE),  # 5 March
    re.compile(r"\d+\s*[年月日号时]"),  # 2024年, 3月, 5日
    _REFERENCE,
    re.compile(r"[图表第]\s*\d+(?:[.\-–]\d+)*|\d+\s*[章节条页款项]"),  # 图2, 第3章, 12页
    re.compile(r"[\[【]\s*\d+(?:\s*[,;，、–-]\s*\d+)*\s*[\]】]"),  # numeric citations [12], [3, 4]
    re.compile(r"[^\W\d_]+-\d+(?:\.\d+)?", re.ASCII),  # Fact-003, COVID-19, E-3
    re.compile(r"(?m)^\s*\(?\d{1,2}[.)](?=\s)"),  # list ordinals opening a line
    re.compile(r"\(\d{1,2}\)|\b\d+(?:st|nd|rd|th)\b", re.IGNORECASE),  # (3), 1st, 4th
    re.compile(r"\b\d{4}s\b"),  # the 2020s
]
_BILLION = re.compile(r"\bbillion\b", re.IGNORECASE)
_RANGE = re.compile(r"\s*(?:[-–—~～]|to|and|至|到)\s*", re.IGNORECASE)
_BETWEEN = re.compile(r"(?:between|from)\s*$", re.IGNORECASE)
# `from 3 to 5 GW` is a change, unless a range is said to run so (`figures range from 3.8 to 9.9 GW`)
_FROM = re.compile(r"(?<!\brange\s)(?<!\branges\s)(?<!\branging\s)(?<!\branged\s)\bfrom\s*$", re.IGNORECASE)
_YEAR_BEFORE = re.compile(r"\b(?:in|since|by|during|until|of|for)\s*$|(?:end|mid)-$", re.IGNORECASE)


@dataclass(frozen=True)
class _Raw:
    """A number before its range partner is known."""

    start: int  # where it is written, a currency sign before it included
    digits_at: int  # where its digits start
    end: int  # after its unit
    digits: tuple[Reading, ...]  # readings of the digits
    scale: int
    unit: Unit | None
    word: bool = False  # spelled out: twelve
    cjk: bool = False  # its scale is a big Chinese or Japanese one (万, 亿, 億, 兆): 1兆 may go on 2000億
    span: int = 0  # an end of a range: -1 its lower, +1 its upper (not `from 3 to 5`: a change)


def _step(value: Decimal, exact: bool = False) -> Decimal:
    """The place of the last written digit: 0.1 for 3.5, 1 for 41, 100 for 4800 (trailing zeros
    of a whole number may be rounding, unless `exact`)."""
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent < 0:
        return Decimal(1).scaleb(exponent)
    if value == 0 or exact:
        return Decimal(1)
    normal = value.normalize().as_tuple().exponent
    return Decimal(1).scaleb(normal) if isinstance(normal, int) else Decimal(1)


def _scaled(raw: _Raw, scale: int, unit: Unit | None) -> tuple[Reading, ...]:
    factor = Decimal(1).scaleb(scale) * (unit.factor if unit else Decimal(1))
    return tuple(Reading(r.value * factor, r.step * factor, r.exact * factor) for r in raw.digits)


def _masked(text: str) -> list[tuple[int, int]]:
    return [m.span() for regex in _NOT_CLAIMS for m in regex.finditer(text)]


def _listed_labels(text: str, raws: list[_Raw]) -> set[int]:
    """Where the bare numbers that go on with a reference's list start (`rounds 2 and 3`, `Tables
    1, 2 or 4`): labels too, not claims."""
    ends = {m.end() for m in _REFERENCE.finditer(text)}
    labels: set[int] = set()
    for raw in raws:
        if raw.unit or raw.scale or raw.word or _COUNTED.match(text, raw.end):
            continue  # (`Section 3 and 12 projects`: a word after it says what it counts)
        if any(end <= raw.digits_at and _LIST_ON.fullmatch(text[end : raw.digits_at]) for end in ends):
            labels.add(raw.digits_at)
            ends.add(raw.end)
    return labels


def _is_year(raw: _Raw, text: str) -> bool:
    digits = text[raw.digits_at : raw.end]
    return bool(re.fullmatch(r"\d{4}", digits) and 1800 <= int(digits) <= 2100 and not raw.unit)


def _raw_numbers(text: str, words: bool, long_scale: bool) -> list[_Raw]:
    found: list[_Raw] = []
    grouping = thousands(text)
    for match in _NUMBER.finditer(text):
        values = sorted({abs(v) for v in readings(match.group("num"), grouping)})
        if not values:
            continue  # a version number or a list of numbers, not one number
        digits = tuple(Reading(v, _step(v), _step(v, exact=True)) for v in values)
        tail, prefix = read_tail(text, match.end(), long_scale), read_prefix(text, match.start())
        start = prefix[1] if prefix else match.start()
        unit = tail.unit or (prefix[0] if prefix else None)
        end = max(tail.end, match.end())
        found.append(_Raw(start, match.start(), end, digits, tail.scale, unit, cjk=tail.cjk))
    if words:
        for match in _WORD_NUMBER.finditer(text):
            value = Decimal(NUMBER_WORDS[match.group().lower()])
            tail = read_tail(text, match.end(), long_scale)
            reading = (Reading(value, Decimal(1), Decimal(1)),)
            end = max(tail.end, match.end())
            found.append(_Raw(match.start(), match.start(), end, reading, tail.scale, tail.unit, True))
    return sorted(found, key=lambda r: r.start)


def _join_compounds(raws: list[_Raw]) -> list[_Raw]:
    """One number from the parts of a Chinese or Japanese compound: 1兆2000億円 is 1.2 × 10¹² yen,
    1億2500万人 125 million people, 1万2000 twelve thousand."""
    out: list[_Raw] = []
    for raw in raws:
        head = out[-1] if out else None
        if (
            head is None
            or not head.cjk
            or head.unit is not None
            or head.end != raw.digits_at
            or raw.scale >= head.scale
            or any(r.value >= Decimal(1).scaleb(head.scale - raw.scale) or r.value % 1 for r in raw.digits)
        ):
            out.append(raw)
            continue
        digits = tuple(
            Reading(h.value.scaleb(head.scale) + r.value.scaleb(raw.scale), r.step.scaleb(raw.scale),
                    r.exact.scaleb(raw.scale))
            for h in head.digits
            for r in raw.digits
        )  # fmt: skip
        out[-1] = _Raw(head.start, head.digits_at, raw.end, digits, 0, raw.unit, cjk=raw.cjk)
    return out


def _join_ranges(text: str, raws: list[_Raw]) -> list[_Raw]:
    """Give both ends of a range the unit and scale written once (`4–5 GW`, `€4–5 billion`)."""
    out = list(raws)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        between = text[a.end : b.start]
        if not _RANGE.fullmatch(between) or (
            between.strip().lower() == "and" and not _BETWEEN.search(text[: a.start])
        ):
            continue
        if (a.unit and b.unit and a.unit != b.unit) or (a.scale and b.scale and a.scale != b.scale):
            continue  # "12% to $4.2 billion": two quantities, not a range
        if _is_year(a, text) and (
            a.digits[0].value > b.digits[-1].value or _YEAR_BEFORE.search(text[: a.start])
        ):
            continue  # "rose in 2023 to 5 GW", "EUR 15,800 in 2023 to EUR 13,900": a year, then a value
        scale, unit = a.scale or b.scale, b.unit or a.unit
        span = 0 if _FROM.search(text[: a.start]) else 1  # `from 3 to 5 GW`: where a change started
        out[i] = replace(a, scale=a.scale or scale, unit=a.unit or unit, span=-span)
        out[i + 1] = replace(b, scale=b.scale or scale, unit=b.unit or unit, span=span)
    return out


def prepare(text: str) -> str:
    """The text quantities are read from (offsets refer to it; its lines are the text's lines):
    NFKC, with a full-width comma kept apart from digits (`2，2024` is two numbers, not 22,024)."""
    return normalize(text.replace("，", "， ").replace("、", "、 "))


def long_scale(text: str, language: str | None = None) -> bool:
    """Whether `billion` means 10¹² in `text`: it is German or French (`language`, else detected,
    and only when the word is there)."""
    if not _BILLION.search(text):
        return False
    return (language if language is not None else detect_language(text)) in LONG_SCALE_LANGUAGES


def quantities(text: str, claims_only: bool = True, language: str | None = None) -> list[Quantity]:
    """The quantities in `text` (see `prepare`), claims only unless `claims_only` is False;
    `language`: the text's language code when known (else detected where it matters)."""
    text = prepare(text)
    raws = _raw_numbers(text, not claims_only, long_scale(text, language))
    raws = _join_ranges(text, _join_compounds(raws))
    masked = _masked(text)
    labels = _listed_labels(text, raws)
    found: list[Quantity] = []
    for raw in raws:
        claim = not (raw.word or _is_year(raw, text) or any(s <= raw.digits_at < e for s, e in masked))
        claim = claim and raw.digits_at not in labels
        if claims_only and not claim:
            continue
        dimension = raw.unit.dimension if raw.unit else ""
        scaled = _scaled(raw, raw.scale, raw.unit)
        shown = text[raw.start : raw.end].strip()
        found.append(Quantity(shown, raw.start, raw.end, scaled, raw.digits, dimension, claim, raw.span))
    return found
