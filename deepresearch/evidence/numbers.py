"""Numbers written in prose: every reading of each, where it is written, and the text around one.

Reading a text (after NFKC, so full-width digits and `％` count, and non-breaking spaces are spaces):

- thousands separators: `1,234,567`, `1 234 567` (space, no-break or thin space), `1.234.567`,
  `1'234'567`;
- decimals: `3.5` and `3,5`. A single `,` or `.` followed by exactly three digits is ambiguous
  (`1,234` / `1.234`), so both readings are kept: 1234 and 1.234, unless the text's other numbers
  say which separator is its decimal one (`2.1 GW = 2,100 MW`: 2,100 is 2100 only);
- sign: a leading `-` or `−` (or a dash after a space), never the hyphen of `COVID-19` or `2019-2020`;
- percentages: `42%`, `42 percent`, `42 per cent`, `42个百分点` read as 42 and also as 0.42;
- scale words: `thousand`/`k`, `million`/`mn`/`m`, `billion`/`bn`/`b`, `trillion`/`tn`,
  `千`, `万`/`萬`, `百万`, `千万`, `亿`/`億`, `万亿`, `兆`, and German, French and Spanish ones
  (`Mio.`, `Mrd.`, `Milliarden`, `millions`, `milliards`, `millones`, `mil millones`...):
  `1.2 million` is read as both 1.2 and 1200000 (units.py reads them in full, with units);
- percentages also as `Prozent`, `pour cent`, `por ciento`, `パーセント`;

Whether a number is one of them, and about the same thing, is the one rule for facts, reports and
figures alike: evidence/number_match.py, aboutness.py and judge.py.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal

_SPACES = "[ \u00a0\u202f\u2009'’]"  # 1 234 567 (thin and no-break spaces too), 1'234'567 (Swiss)
_NUMBER = re.compile(
    rf"(?<![\w.,])(?P<sign>[-−]|(?<!\S)[–—])?"
    rf"(?P<num>\d{{1,3}}(?:{_SPACES}\d{{3}})+(?:[.,]\d+)?(?!\d)|\d+(?:[.,]\d+)*)"
    r"(?P<suffix>\s?(?:%|percent\b|per cent\b|pct\b|prozent\b|pour cent\b|por ciento\b|パーセント|个百分点"
    r"|万亿|萬億|千万|百万|千億|千亿|百億|百亿|十億|十亿|亿|億|万|萬|兆|千)"
    r"|\s?(?:thousand|million|billion|trillion|tausend|millionen|milliarden|billionen|millions|milliards"
    r"|mil millones|millones|millón|mil|mio\.|mio|mrd\.|mrd|md)(?![^\W\d_])|(?:k|mn|m|bn|b|tn)\b)?",
    re.IGNORECASE | re.ASCII,  # ASCII: a CJK character before a number is not part of a word
)
# A decimal separator no one could read as a thousands one: not followed by exactly three digits.
_DECIMAL_POINT = re.compile(r"(?<![\d.,])\d+\.(?:\d{1,2}|\d{4,})(?![\d.,])")
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])\d+,(?:\d{1,2}|\d{4,})(?![\d.,])")
_SCALES = {
    "thousand": 3, "k": 3, "million": 6, "mn": 6, "m": 6, "billion": 9, "bn": 9, "b": 9,
    "trillion": 12, "tn": 12, "千": 3, "万": 4, "百万": 6, "千万": 7, "亿": 8, "万亿": 12,
    "萬": 4, "億": 8, "十亿": 9, "十億": 9, "百亿": 10, "百億": 10, "千亿": 11, "千億": 11, "萬億": 12, "兆": 12,
    "tausend": 3, "millionen": 6, "milliarden": 9, "billionen": 12, "millions": 6, "milliards": 9,
    "mil": 3, "millón": 6, "millones": 6, "mil millones": 9, "mio.": 6, "mio": 6, "mrd.": 9, "mrd": 9,
    "md": 9,
}  # fmt: skip


@dataclass(frozen=True)
class Mention:
    """One reading of a number in a text, with where it was written."""

    value: Decimal
    start: int
    end: int
    signed: bool  # written with a minus sign


def normalize(text: str) -> str:
    """NFKC: full-width digits and signs become ASCII, special spaces become plain spaces."""
    return unicodedata.normalize("NFKC", text)


def thousands(text: str) -> str:
    """The separator `text` groups thousands with, when its other numbers tell: `,` when it writes
    decimal points (`2.1 GW = 2,100 MW`) and no decimal comma, `.` in the reverse case; else ""."""
    points, commas = bool(_DECIMAL_POINT.search(text)), bool(_DECIMAL_COMMA.search(text))
    return "," if points and not commas else "." if commas and not points else ""


def readings(num: str, grouping: str = "") -> set[Decimal]:
    """Every plausible value of a digit string with separators (see the module docstring);
    `grouping`: the separator its text groups thousands with (see `thousands`), if known."""
    compact = re.sub(_SPACES, "", num)
    if compact != num:  # space-grouped thousands; a decimal part may follow
        return {Decimal(compact.replace(",", "."))}
    parts = re.split(r"([.,])", num)
    digits, seps = parts[0::2], parts[1::2]
    if not seps:
        return {Decimal(num)}
    if len(seps) == 1:
        decimal = Decimal(f"{digits[0]}.{digits[1]}")
        if len(digits[1]) != 3:
            return {decimal}
        whole = Decimal(digits[0] + digits[1])
        return {whole} if seps[0] == grouping else {decimal, whole}
    groups_ok = len(digits[0]) <= 3 and all(len(d) == 3 for d in digits[1:-1])
    if groups_ok and len(set(seps)) == 1 and len(digits[-1]) == 3:
        return {Decimal("".join(digits))}  # 1,234,567 or 1.234.567
    if groups_ok and len(set(seps[:-1])) == 1 and seps[-1] != seps[0]:
        return {Decimal(f"{''.join(digits[:-1])}.{digits[-1]}")}  # 1,234.5 or 1.234,5
    return set()  # a version number, a date or a list: not one number


def mentions(text: str) -> list[Mention]:
    """Every reading of every number written in `text` (normalised with `normalize`)."""
    found: list[Mention] = []
    text = normalize(text)
    grouping = thousands(text)
    for match in _NUMBER.finditer(text):
        suffix = (match.group("suffix") or "").strip().lower()
        signed = match.group("sign") is not None
        for base in readings(match.group("num"), grouping):
            values = {base}
            if suffix in _SCALES:
                values.add(base.scaleb(_SCALES[suffix]))
            elif suffix:  # a percentage
                values.add(base.scaleb(-2))
            for value in values:
                found.append(Mention(-value if signed else value, match.start(), match.end(), signed))
    return found


def closest_excerpt(written: str, text: str, width: int = 30) -> str:
    """The part of `text` around the number nearest to the value `written`, for a rejection message."""
    text = normalize(text)
    found = mentions(text)
    if not found:
        return text[: 2 * width] + ("..." if len(text) > 2 * width else "")
    target = Decimal(written)
    best = min(found, key=lambda m: abs(m.value - target) / max(abs(target), Decimal(1)))
    start, end = max(0, best.start - width), min(len(text), best.end + width)
    snippet = text[start:end]
    if start and " " in snippet[: best.start - start]:  # drop a cut-off first word
        snippet = snippet[snippet.index(" ") + 1 :]
    if end < len(text) and " " in snippet[best.end - end :]:  # and a cut-off last word
        snippet = snippet[: snippet.rindex(" ")]
    return f"{'...' if start else ''}{snippet.strip()}{'...' if end < len(text) else ''}"
