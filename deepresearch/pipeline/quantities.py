"""Quantitative values in a fact's statement, for novelty: a number with its unit, normalised.

The numbers are read by `deepresearch.evidence.quantities` (the same reading as numeric grounding:
separators, decimal commas, scale words, units in their base — 4,800 MW is 4.8 GW — and what is not a
claim: years, dates, references, citation IDs, ordinals). A number with a known unit (W, Wh, %, a
currency) is compared in that unit; a number without one takes the word after it as its unit ("42
points" is 42 point), and a number with neither is not a quantity. Two quantities are the same when
their units match and a reading is shared, so "the index stood at 42 points" restates "the index
reached 42 points in 2025".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from deepresearch.evidence.quantities import prepare
from deepresearch.evidence.quantities import quantities as read_quantities

_WORD = re.compile(r"\s*(°?[^\W\d_][\w°²³/-]*)", re.UNICODE)
_FUNCTION_WORDS = frozenset(
    ("a", "an", "and", "are", "as", "at", "before", "between", "by", "during", "for", "from", "in",
     "into", "is", "of", "on", "or", "over", "per", "since", "than", "that", "the", "to", "under",
     "until", "up", "was", "were", "which", "while", "with", "within")
)  # fmt: skip


@dataclass(frozen=True)
class Quantity:
    """A number (every plausible reading of it, in its unit's base) and its unit; `text` as written."""

    unit: str
    readings: frozenset[Decimal]
    text: str = ""

    def same_as(self, other: Quantity) -> bool:
        """The same quantity: the same unit and a reading in common."""
        return self.unit == other.unit and bool(self.readings & other.readings)

    def __str__(self) -> str:
        return self.text or f"{min(self.readings)} {self.unit}".strip()


def _singular(word: str) -> str:
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def quantities(text: str) -> list[Quantity]:
    """Every quantity (number with a unit) stated in `text`, in order."""
    prepared = prepare(text)
    found = []
    for quantity in read_quantities(text):
        readings = frozenset(r.value.normalize() for r in quantity.readings)
        if quantity.dimension:
            found.append(Quantity(quantity.dimension.lower(), readings, quantity.text))
            continue
        match = _WORD.match(prepared, quantity.end)
        word = _singular(match.group(1)) if match else ""
        if word and word not in _FUNCTION_WORDS:
            shown = f"{quantity.text} {match.group(1)}" if match else quantity.text
            found.append(Quantity(word, readings, shown))
    return found
