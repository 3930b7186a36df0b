"""A number bound to what it is about in the text it is written in (evidence/binding.py reads it)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from deepresearch.evidence.quantities import Quantity


@dataclass(frozen=True)
class Bound:
    """A number as stated in one text, with what it is about there."""

    quantity: Quantity
    years: frozenset[int] = frozenset()
    strength: int = 0  # 2: its own years; 1: the one year of its sentence; 0: a looser guess
    terms: frozenset[str] = frozenset()
    signals: frozenset[str] = frozenset()
    change: bool = False  # written as a change (its sign, the words right by it, its column's header)
    direction: int = 0
    origin: str = ""  # where it was read: a fact ID, or "" for the text being judged
    column: int = -1  # a table cell's column
    loose: bool = False  # a bare number of a quoted table row: its unit may be in a header not quoted
    around: frozenset[str] = frozenset()  # the terms of its whole text (a table: of its cells)
    beside: frozenset[Decimal] = frozenset()  # the values of the other figures of its clause (no name)
    changing: bool = False  # evidence whose item speaks of a change: it may be one
    undated: bool = False  # where a change started (`up from 38.5%`): its year is not the sentence's
    # The units its sentence (a cell: its column's header) names: what a bare number may be measured in;
    # None when not known (lenient).
    named: frozenset[str] | None = None
    negated: bool = False  # its text says what something is not (`cannot have been auction projects`)
    clause: str = ""  # the clause it is written in
    near: frozenset[str] = frozenset()  # the terms between it and the numbers either side in its sentence
    # A table cell's: the words of its header that no other header of numbers in its unit has, and
    # the words of those other headers that its header does not have.
    header: frozenset[str] = frozenset()
    columns: frozenset[str] = frozenset()
    # its item's words (a cell: its column's header) name a forecast or scenario; its sentence (a row)
    # gives it as measured, speaking of nothing foreseen (evidence/forecasts.py)
    forecast: bool = False
    observed: bool = False
    label: frozenset[str] = frozenset()  # a table cell's: the words of its row's label cells
    party: frozenset[str] = frozenset()  # a table cell's: the parties its row's label cells name by acronym
    rate: bool = False  # written per something (`EUR 90k/MW-yr`, `90k, 109k and 113k per MW-year`)
    divided: bool = False  # a term of a division its text writes out (`180m / ~1.65 GW`)

    @property
    def text(self) -> str:
        """The number as written, with its unit."""
        return self.quantity.text


@dataclass(frozen=True)
class Context:
    """What a table cell's row and column lend its numbers (years of strength 2), and the weak
    `fallback` years of a text (a paragraph's, a table's headers')."""

    years: frozenset[int] = frozenset()
    terms: frozenset[str] = frozenset()
    signals: frozenset[str] = frozenset()
    change: bool = False
    fallback: frozenset[int] = frozenset()
    period: bool = False  # the fallback years are those a sentence before names: the text goes on about them
    around: frozenset[str] = frozenset()
    named: frozenset[str] | None = None  # the units a cell's header names
    forecast: bool = False  # a cell's header names a forecast or scenario
    observed: bool | None = None  # a cell's row (and header) gives its numbers as measured
