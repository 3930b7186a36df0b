"""Quantitative values in a fact's statement: a number with its unit, normalised, for novelty.

"The E1 index reached 42 points in 2025" holds one quantity, 42 point; the year is a date, not a
quantity. A restatement ("the E1 index stood at 42 points") holds the same one, so it is not new.
Numbers are read by `deepresearch.figures.numbers.mentions` (thousands separators, decimals, scale
words, percentages: every plausible reading is kept and two quantities are equal when a reading is
shared); a year is a date, not a quantity; the unit is the percent sign or scale word written with the number, a currency sign before
it, and the word after it when that word is not a function word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from deepresearch.figures.numbers import mentions, normalize

_CURRENCY = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy", "₹": "inr"}
_WORD = re.compile(r"\s*(°?[^\W\d_][\w°²³/-]*)", re.UNICODE)
_FUNCTION_WORDS = frozenset(
    ("a", "an", "and", "are", "as", "at", "before", "between", "by", "during", "for", "from", "in",
     "into", "is", "of", "on", "or", "over", "per", "since", "than", "that", "the", "to", "under",
     "until", "up", "was", "were", "which", "while", "with", "within")
)  # fmt: skip
_PERCENT = re.compile(r"%|percent|per cent|pct|个百分点", re.I)


@dataclass(frozen=True)
class Quantity:
    """A number (every plausible reading of it) and its unit, normalised."""

    unit: str
    readings: frozenset[Decimal]

    def same_as(self, other: Quantity) -> bool:
        """The same quantity: the same unit and a reading in common."""
        return self.unit == other.unit and bool(self.readings & other.readings)

    def __str__(self) -> str:
        shown = min((f"{d:f}" for d in self.readings), key=lambda text: (len(text), text))
        return f"{shown} {self.unit}".strip()


def _singular(word: str) -> str:
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _unit(text: str, start: int, end: int) -> str:
    written = text[start:end]
    before = text[max(0, start - 1) : start]
    parts = [_CURRENCY[before]] if before in _CURRENCY else []
    if _PERCENT.search(written):
        parts.append("%")
    else:
        scale = re.sub(r"[\d.,\s\u00a0\u202f\u2009+\-−–—]", "", written).lower()
        match = _WORD.match(text, end)
        word = _singular(match.group(1)) if match else ""
        if word and word not in _FUNCTION_WORDS:
            parts.append(word)
        elif scale and not parts:
            parts.append(scale)  # "4 million" with nothing after: a count
    return " ".join(parts)


_BEFORE_YEAR = frozenset(("in", "since", "by", "from", "to", "until", "of", "during", "between", "and",
                          "before", "after", "year", "fy", "early", "late", "mid"))  # fmt: skip


def _is_year(text: str, start: int, written: str, unit: str) -> bool:
    """A date, not a quantity: a four-digit year with no unit, or after "in", "since", "by"..."""
    if not (written.isdigit() and len(written) == 4 and 1800 <= int(written) <= 2200):
        return False
    words = re.findall(r"[^\W\d_]+", text[max(0, start - 12) : start])
    return not unit or (bool(words) and words[-1].lower() in _BEFORE_YEAR)


def quantities(text: str) -> list[Quantity]:
    """Every quantity (number with a unit) written in `text`, in order."""
    text = normalize(text)
    spans: dict[tuple[int, int], set[Decimal]] = {}
    for mention in mentions(text):
        spans.setdefault((mention.start, mention.end), set()).add(mention.value.normalize())
    found = []
    for (start, end), readings in sorted(spans.items()):
        unit = _unit(text, start, end)
        if not unit or _is_year(text, start, text[start:end].strip(), unit):
            continue
        found.append(Quantity(unit, frozenset(readings)))
    return found
