"""What a number is about: the year it is for, the words beside it, and whether it states a change.

A number is read (evidence/quantities.py; a list writes its unit once: evidence/lists.py) and bound,
in the text it is written in, to:

- **years** (evidence/years.py): the year written by it, shared with the numbers written as one with
  it, or its place in a list of years; else the years of its clause that no other number took (a
  table cell: of its column's header, else of its row's label cells); else, weakly, those of its
  sentence (a table row: of any column's header), then the `fallback` years given (its
  paragraph's), or, for evidence, every year of its text; none for where a change started (`up from
  38.5%`), and an evidence change does not take the year of where it started (`from 3.4 GW at the
  end of 2024, an increase of 1.4 GW`). Their **strength**: 2 for its own, 1 for
  the one year of a sentence's opening clause (`In 2024, ...`) or, for evidence, of its sentence,
  0 for a looser guess (evidence/aboutness.py says when years conflict).
- **terms** (evidence/terms.py): what the number is a number of.
- **change**: written as a change (`+5`, `−15%`, `rose by 12%`, `an increase of 0.2 GW`, `19% lower`,
  a clause about additions or growth: `net additions were 0.3 GW`, a column `Net power added`) and
  its **direction** (+1 a rise, −1 a fall, 0 not said); evidence may be a change (`changing`) when
  its item (its group of clauses: evidence/terms.py) speaks of one (`end-2022: 1.2 GW; net additions
  0.3 GW`: 1.2 GW is a level). An evidence change between two years is for the later one.
- **signals**: the derivations the words of its clause name, and whether its sentence marks it as
  derived (evidence/signals.py).

Clauses are the pieces of a sentence between `,` `;` `:` brackets, `and` (not the `and` of `between 4
and 5`), `but`, `while`, `whereas`, `versus`, spaced dashes, and the spaced `+`, `=` and `plus` of a
written sum (`6.2 GW total = 2.3 GW under construction + 3.9 GW permitted`: three items). A table row is bound cell by cell
(`bind_row`). A bare number of a quoted table row (no header to say its unit) is `loose`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import cached_property
from itertools import pairwise

from deepresearch.evidence.lists import share_units
from deepresearch.evidence.quantities import Quantity, prepare, quantities
from deepresearch.evidence.signals import (
    DERIVED,
    change_at,
    derivation_inputs,
    derived_marks,
    sentence_speaks_of_change,
    signals_in,
)
from deepresearch.evidence.terms import CHANGE_TERMS, Clause, clause_terms, group_spans, terms_of
from deepresearch.evidence.units import named_dimensions
from deepresearch.evidence.years import YearMention, belonging, mentions

_SENTENCE = re.compile(r".+?(?:[.!?。！？]+(?=\s|$)|$)", re.DOTALL)
_CLAUSE_BREAK = re.compile(
    r"(?<!\d),|,(?!\d)|:(?=\s)|[;()\[\]，、；：（）]|\s(?:and|but|while|whereas|versus|vs\.?|against|plus)\s"
    r"|\s[–—=+-]\s",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|cannot|never|neither|nor|no longer)\b|n't\b", re.IGNORECASE)
_BETWEEN = re.compile(r"\bbetween\s+\S+(?:\s+\S+)?$", re.IGNORECASE)
_CHANGE_HEADER = re.compile(
    r"\b(?:added|additions?|net|growth|change|gap|difference|increase|decrease|fall|rise|drop|decline|cut|"
    r"reduction|yoy|y/y|delta)\b|增长|变化|增幅|降幅",
    re.IGNORECASE,
)


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
    beside: frozenset[Decimal] = frozenset()  # the values of the other numbers of its clause
    changing: bool = False  # evidence whose item speaks of a change: it may be one
    undated: bool = False  # where a change started (`up from 38.5%`): its year is not the sentence's
    # The units its sentence (a cell: its column's header) names: what a bare number may be measured in;
    # None when not known (lenient).
    named: frozenset[str] | None = None
    negated: bool = False  # its text says what something is not (`cannot have been auction projects`)
    clause: str = ""  # the clause it is written in
    # A table cell's: the words of its header that no other header of numbers in its unit has, and
    # the words of those other headers that its header does not have.
    header: frozenset[str] = frozenset()
    columns: frozenset[str] = frozenset()

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
    around: frozenset[str] = frozenset()
    named: frozenset[str] | None = None  # the units a cell's header names


def clauses_of(text: str, start: int, end: int) -> list[Clause]:
    """The clauses of text[start:end] (module docstring)."""
    cuts = [start]
    for cut in _CLAUSE_BREAK.finditer(text, start, end):
        if cut.group().strip().lower() == "and" and _BETWEEN.search(
            text, max(0, cut.start() - 40), cut.start()
        ):
            continue  # the `and` of `between 4 and 5 GW`: a range is one clause
        cuts.append(cut.start())
    cuts.append(end)
    return [(a, b) for a, b in pairwise(cuts) if b > a]


def _within(years: Sequence[YearMention], start: int, end: int) -> frozenset[int]:
    return frozenset(y for m in years if start <= m.start < end for y in m.years)


@dataclass
class _Reading:
    """One text being bound: its numbers, its years, which years belong to which number."""

    text: str
    found: list[Quantity]
    years: list[YearMention]
    owned: dict[int, YearMention]
    origin: str
    whole: bool
    context: Context

    @classmethod
    def of(cls, text: str, origin: str, whole: bool, context: Context) -> _Reading:
        prepared = prepare(text)
        found = share_units(prepared, quantities(text, claims_only=False))
        years = mentions(prepared, found)
        return cls(prepared, found, years, belonging(prepared, found, years), origin, whole, context)

    # Properties of the whole text, read once for all its numbers.
    @cached_property
    def free(self) -> list[YearMention]:
        """The years no number took as its own."""
        taken = {(m.start, m.end) for m in self.owned.values()}
        return [m for m in self.years if (m.start, m.end) not in taken]

    @cached_property
    def all_terms(self) -> frozenset[str]:
        """The terms of the whole text."""
        return terms_of(self.text)

    @cached_property
    def negated(self) -> bool:
        """Whether the text says what something is not."""
        return bool(_NEGATION.search(self.text))

    def sentence(self, start: int, end: int, claims_only: bool) -> list[Bound]:
        clauses = clauses_of(self.text, start, end)
        free = self.free
        intro = _intro_years(clauses, self.found, free)
        weak = _within(free, start, end) or (_within(self.years, start, end) if self.whole else frozenset())
        weak = (
            intro or weak or (_within(self.years, 0, len(self.text)) if self.whole else self.context.fallback)
        )
        strength = int(len(intro) == 1 or (self.whole and len(weak) == 1))
        starts = [q.start for q in self.found if q.claim]
        derived, about = derived_marks(self.text, clauses, starts), clause_terms(self.text, clauses, starts)
        inputs = derivation_inputs(self.text, starts)
        # evidence may be a change when its item speaks of one (`end-2022: 1.2 GW; net additions 0.3
        # GW`: the 1.2 GW is a level)
        items = group_spans(self.text, clauses) if self.origin else []
        named = (
            self.context.named if self.context.named is not None else named_dimensions(self.text[start:end])
        )
        started = self._started(start, end)
        bound: list[Bound] = []
        for c_start, c_end in clauses:
            here = [q for q in self.found if c_start <= q.start < c_end]
            for q in here:
                if claims_only and not q.claim:
                    continue
                terms = (
                    terms_of(self.text[c_start:c_end])
                    if q.start in inputs
                    else about.get(c_start, frozenset())
                )
                b = self._bound(q, here, (c_start, c_end), terms, q.start in derived)
                if q.start in inputs:  # a derivation's input: a quoted value, with only its own words
                    b = replace(b, change=change_at(self.text, q.start, q.end)[0])
                undated = not b.years and (q.start in inputs or bool(_STARTING.search(self.text, 0, q.start)))
                own = b.years or (frozenset() if undated else weak)
                strong = 2 if b.years else strength
                if self.origin and b.change and not b.years and own & started:
                    own, strong = own - started, 0  # `from 3.4 GW at end-2024, an increase of 1.4 GW`
                changing = any(
                    a <= q.start < z and sentence_speaks_of_change(self.text[a:z]) for a, z in items
                )
                bound.append(
                    replace(b, years=own, strength=strong, changing=changing, undated=undated, named=named)
                )
        return bound

    def _started(self, start: int, end: int) -> frozenset[int]:
        """The years of the numbers of text[start:end] where a change started (`from 3.4 GW at the
        end of 2024`): not the year of the change."""
        return frozenset(
            y
            for q in self.found
            if start <= q.start < end and q.start in self.owned and _STARTING.search(self.text, 0, q.start)
            for y in self.owned[q.start].years
        )

    def _bound(
        self, q: Quantity, here: list[Quantity], clause: Clause, terms: frozenset[str], derived: bool
    ) -> Bound:
        """The number bound to its own years (none: weak ones come from the sentence), its words,
        signals and change."""
        ctx = self.context
        own = self.owned[q.start].years if q.start in self.owned else _within(self.free, *clause) or ctx.years
        change, direction = change_at(self.text, q.start, q.end)
        change = ctx.change or ((change or bool(terms & CHANGE_TERMS)) and not _margin(self.text, q.start))
        if self.origin and change and len(own) > 1:
            own = frozenset({max(own)})  # `the end-2025 increase over end-2024 was 1.4 GW`
        signals = signals_in(self.text[slice(*clause)]) | ctx.signals | ({DERIVED} if derived else set())
        beside = frozenset(r.value for other in here if other is not q for r in other.readings)
        return Bound(
            q, own, 2 if own else 0, terms | ctx.terms, signals, change, direction, self.origin,
            around=ctx.around or self.all_terms, beside=beside, clause=self.text[slice(*clause)],
            negated=self.negated,
        )  # fmt: skip


def bind_text(
    text: str,
    *,
    claims_only: bool = True,
    origin: str = "",
    whole: bool = False,
    context: Context | None = None,
) -> list[Bound]:
    """Every number of a prose text (or a quoted table row), bound as the module docstring says.
    `whole`: evidence; a number with no year of its own takes, weakly, those of its text."""
    if _looks_like_row(text):
        return bind_row(text.strip().strip("|").split("|"), [], claims_only=claims_only, origin=origin)
    reading = _Reading.of(text, origin, whole, context or Context())
    return [
        b for match in _SENTENCE.finditer(reading.text) for b in reading.sentence(*match.span(), claims_only)
    ]


def _intro_years(
    clauses: list[Clause], found: Sequence[Quantity], free: Sequence[YearMention]
) -> frozenset[int]:
    """The years of a sentence's opening clause when it states no number (`In 2024, ...`)."""
    if not clauses or any(clauses[0][0] <= q.start < clauses[0][1] for q in found if q.claim):
        return frozenset()
    return _within(free, *clauses[0])


# `up from 38.5%`, `rose from 95m`: where a change started, not the year the sentence is about.
_STARTING = re.compile(
    r"\bfrom\s+(?:(?:about|around|roughly|nearly|some|just|only|EUR|USD|US\$|[$€£¥])\s*)*$", re.I
)


def _margin(text: str, start: int) -> bool:
    """A number written as `±0.1 GWh`: a margin, not a change."""
    return text[max(0, start - 2) : start].strip().endswith("±")


def _looks_like_row(text: str) -> bool:
    stripped = text.strip()
    return stripped.count("|") >= 2 and "\n" not in stripped


def _leads(cell: str, found: Sequence[Quantity]) -> bool:
    """A cell that opens with its number (`290 [S01]`, `+16,000`): a column of numbers."""
    return bool(found) and found[0].start <= len(cell) - len(cell.lstrip()) + 1


def bind_row(
    cells: Sequence[str], header: Sequence[str], *, claims_only: bool = True, origin: str = "",
    around: frozenset[str] = frozenset(),
) -> list[Bound]:  # fmt: skip
    """Every number of a table row, each bound to its cell, its column's header and the row's label
    cells (the cells that state no number); `around`: the terms of the whole table."""
    numbers = [quantities(cell, claims_only=True) for cell in cells]
    label_text = " ".join(cell for cell, found in zip(cells, numbers, strict=True) if not found)
    label_years, headed = years_in(label_text), years_in(" ".join(header))
    heads = [
        (terms_of(header[i]), {q.dimension for q in found})
        for i, found in enumerate(numbers)
        if i < len(header) and _leads(cells[i], found)
    ]
    bound: list[Bound] = []
    for index, cell in enumerate(cells):
        head = header[index] if index < len(header) else ""
        context = Context(
            years_in(head) or label_years, terms_of(head) | terms_of(label_text), signals_in(head),
            bool(_CHANGE_HEADER.search(head)), fallback=headed, around=around or terms_of(" ".join(cells)),
            named=named_dimensions(f"{head} {cell}"),
        )  # fmt: skip
        for b in bind_text(cell, claims_only=claims_only, origin=origin, context=context):
            loose = bool(origin) and b.quantity.claim and b.quantity.plain and not head
            own = terms_of(head) if _leads(cell, numbers[index]) else frozenset()  # (not a note's number)
            others = frozenset().union(
                *(words for words, dims in heads if own and words != own and b.quantity.dimension in dims)
            )
            bound.append(replace(b, column=index, loose=loose, header=own - others, columns=others - own))
    return bound


def paragraph_years(text: str) -> frozenset[int]:
    """The years a paragraph names that no number of it takes as its own: weak years for its
    numbers that have none."""
    reading = _Reading.of(text, "", False, Context())
    return _within(reading.free, 0, len(reading.text))


def years_in(text: str) -> frozenset[int]:
    """Every year `text` names."""
    prepared = prepare(text)
    return _within(mentions(prepared, quantities(text, claims_only=False)), 0, len(prepared))
