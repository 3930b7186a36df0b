"""What a number is about: the year it is for, the words beside it, and whether it states a change.

A number is read (evidence/quantities.py; a list writes its unit once: evidence/lists.py) and bound,
in the text it is written in, to:

- **years** (evidence/years.py): the year written by it, shared with the numbers written as one with
  it, or its place in a list of years; else the years of its clause that no other number took (a
  table cell: of its column's header, else of its row's label cells); else, weakly, those of its
  sentence (a table row: of any column's header; not its other numbers' when it places itself
  against another time: `against 4.8 GW a year later`), then the `fallback` years given (the sentence
  before's, or its paragraph's, or a list's lead-in's: report/number_scope.py; a report's change `from
  A to B` over them runs from the first to the last, of strength 1), or, for evidence, every year of
  its text; a report's change given `overall` in a sentence that names a span of years (`from 210
  (2022) to ... 130 (2025), -38% overall`) is, as its own, for the span's last year;
  none for where a change started (`up from 38.5%`), and an evidence change does not take the year
  of where it started (`from 3.4 GW at the end of 2024, an increase of 1.4 GW`). Their
  **strength**: 2 for its own, 1 for the one year of a sentence's opening clause (`In 2024, ...`)
  or, for evidence, of its sentence, 0 for a looser guess (evidence/aboutness.py says when years conflict).
- **terms** (evidence/terms.py): what the number is a number of (a derivation's input, `(derived: 105
  against 290)`: its own clause's words, or its sentence's when it has none); and the words of its own phrase
  (`near`): those between it and the breaks (punctuation, `during`, `at`, `to`, `and`...) nearest it
  on either side, up to the numbers either side (`discharged up to 2.9 GW during the record 9.3 GW
  peak`: `discharged` is the 2.9 GW's, `record peak` the 9.3 GW's); the `by` of who made what its
  noun counts is none (`38,100 rides by staff`), and a reporting verb's `that` is one (`the office's
  note shows that`: who reports it is not what it counts).
- **change**: written as a change (`+5`, `−15%`, `rose by 12%`, `an increase of 0.2 GW`, `19% lower`,
  a clause about additions or growth: `net additions were 0.3 GW`, a column `Net power added`) and
  its **direction** (+1 a rise, −1 a fall, 0 not said); evidence may be a change (`changing`) when
  its item (its group of clauses: evidence/terms.py) speaks of one (`end-2022: 1.2 GW; net additions
  0.3 GW`: 1.2 GW is a level); not by words that say it gives none (`with no net-additions figure`).
  An evidence change between two years is for the later one.
- **signals**: the derivations the words of its clause name, and whether its sentence marks it as
  derived (evidence/signals.py).
- **forecast** (evidence/forecasts.py): its item's words (a cell: its column's header) name a
  forecast or scenario (`low case 4 GW`); and **observed**: its sentence (a row, with its header)
  gives its numbers as measured, speaking of nothing foreseen.
- **rate**: written per something other than time (`EUR 90k/MW-yr`; a list writes it once, after its
  last number: `EUR 90k, 109k and 113k per MW-year`), and **divided**: a term of a division its text
  writes out (`180m / ~1.65 GW`); evidence/eligible.py says what may state a rate.

Clauses are the pieces of a sentence between `,` `;` `:` brackets, `and` (not the `and` of `between 4
and 5`), `but`, `while`, `whereas`, `versus`, spaced dashes, and the spaced `+`, `=` and `plus` of a
written sum (`6.2 GW total = 2.3 GW under construction + 3.9 GW permitted`: three items). A table row is bound cell by cell
(`bind_row`), with the parties its row's label cells name by acronym (evidence/owners.py). A bare
number of a quoted table row (no header to say its unit) is `loose`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from deepresearch.evidence.bound import Bound, Context
from deepresearch.evidence.forecasts import a_forecast, measured
from deepresearch.evidence.owners import parties
from deepresearch.evidence.quantities import Quantity, prepare, quantities
from deepresearch.evidence.reading import Reading, clauses_of, within
from deepresearch.evidence.signals import signals_in
from deepresearch.evidence.terms import terms_of
from deepresearch.evidence.units import named_dimensions
from deepresearch.evidence.years import mentions

__all__ = ["Bound", "Context", "bind_row", "bind_text", "clauses_of", "paragraph_years", "years_in"]

_SENTENCE = re.compile(r".+?(?:[.!?。！？]+(?=\s|$)|$)", re.DOTALL)
_CHANGE_HEADER = re.compile(
    r"\b(?:added|additions?|net|growth|change|gap|difference|increase|decrease|fall|rise|drop|decline|cut|"
    r"reduction|yoy|y/y|delta)\b|增长|变化|增幅|降幅",
    re.IGNORECASE,
)


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
    reading = Reading.of(text, origin, whole, context or Context())
    return [
        b for match in _SENTENCE.finditer(reading.text) for b in reading.sentence(*match.span(), claims_only)
    ]


def _looks_like_row(text: str) -> bool:
    stripped = text.strip()
    return stripped.count("|") >= 2 and "\n" not in stripped


def _leads(cell: str, found: Sequence[Quantity]) -> bool:
    """A cell that opens with its number (`290 [S01]`, `+16,000`, `≥ -0.3 GW`): a column of numbers."""
    return bool(found) and found[0].start <= len(cell) - len(cell.lstrip(_SIGNS)) + 1


_SIGNS = " \t~≈≥≤<>±+−–-"  # (a bound or a sign before a number, and spaces)


def bind_row(
    cells: Sequence[str], header: Sequence[str], *, claims_only: bool = True, origin: str = "",
    around: frozenset[str] = frozenset(),
) -> list[Bound]:  # fmt: skip
    """Every number of a table row, each bound to its cell, its column's header and the row's label
    cells (the cells that state no number); `around`: the terms of the whole table."""
    numbers = [quantities(cell, claims_only=True) for cell in cells]
    label_text = " ".join(cell for cell, found in zip(cells, numbers, strict=True) if not found)
    label_years, headed = years_in(label_text), years_in(" ".join(header))
    label, party = terms_of(label_text), parties(label_text)
    heads = [
        (terms_of(header[i]), {q.dimension for q in found})
        for i, found in enumerate(numbers)
        if i < len(header) and _leads(cells[i], found)
    ]
    observed = measured(" ".join((*cells, *header)))
    bound: list[Bound] = []
    for index, cell in enumerate(cells):
        head = header[index] if index < len(header) else ""
        context = Context(
            years_in(head) or label_years, terms_of(head) | terms_of(label_text), signals_in(head),
            bool(_CHANGE_HEADER.search(head)), fallback=headed, around=around or terms_of(" ".join(cells)),
            named=named_dimensions(f"{head} {cell}"), forecast=a_forecast(head),
            observed=observed,
        )  # fmt: skip
        for b in bind_text(cell, claims_only=claims_only, origin=origin, context=context):
            loose = bool(origin) and b.quantity.claim and b.quantity.plain and not head
            own = terms_of(head) if _leads(cell, numbers[index]) else frozenset()  # (not a note's number)
            others = frozenset().union(
                *(words for words, dims in heads if own and words != own and b.quantity.dimension in dims)
            )
            bound.append(replace(
                b, column=index, loose=loose, header=own - others, columns=others - own, label=label,
                party=party,
            ))  # fmt: skip
    return bound


def paragraph_years(text: str) -> frozenset[int]:
    """The years a paragraph names that no number of it takes as its own: weak years for its
    numbers that have none."""
    reading = Reading.of(text, "", False, Context())
    return within(reading.free, 0, len(reading.text))


def years_in(text: str) -> frozenset[int]:
    """Every year `text` names."""
    prepared = prepare(text)
    return within(mentions(prepared, quantities(text, claims_only=False)), 0, len(prepared))
