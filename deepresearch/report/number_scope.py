"""Where each number of a report is stated: its sentence (or table row), what that cites, and the
numbers beside it that a derivation may use.

- A sentence of a paragraph or list item cites the sources of its own citation groups; a sentence
  without one borrows those of the next cited sentence of its block (a citation closes the claim it
  follows), else of the previous one; a list item without any, those of the list's lead-in. In a
  sentence with several citations, the first one after a number closes its clause (`closes`): a
  fact of another of the sentence's sources does not state it (report/number_check.py); nor does
  one when a possessive right before the number names a cited source (`owners`: `the blog's 250,000`).
- A number of a sentence that names no year (and does not place itself against another time: `a
  year earlier`) is weakly about the years of the nearest sentence before it in its block that names
  any (`**CONF-4: 9.9 GW for 2025.** ... the NSO's 4.8 GW`); else about those its paragraph names that
  no number takes; a list item's, else about those its lead-in is about where it ends. A change `from
  A to B` in such a sentence runs over the years a sentence before names (its block's, or its lead-in's),
  A the first's, B the last's (evidence/reading.py); not over a paragraph's free years: no span.
- A table row cites the sources cited in its cells, else those of its caption (the paragraph right
  before the table). Its numbers are bound cell by cell to the cell, the column's header and the
  row's label cells (evidence/binding.py).
- A derivation may use the sentence's own numbers (and those of the sentence before, when it opens
  by referring to it: `That is a growth of 21%`), in a table a cell of an earlier row in the column
  of one of the row's numbers (last year's value for a growth rate), and, where the sentence marks
  the number derived, the numbers of its paragraph.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from deepresearch.evidence.arithmetic import PARAGRAPH, Operand, operands
from deepresearch.evidence.binding import Bound, Context, bind_row, bind_text, paragraph_years, years_in
from deepresearch.evidence.judge import year_spans
from deepresearch.evidence.quantities import prepare
from deepresearch.evidence.terms import terms_of
from deepresearch.evidence.years import elsewhen
from deepresearch.report.blocks import Block
from deepresearch.report.citations import find_groups
from deepresearch.report.sentences import makes_claims, sentence_spans


@dataclass
class Scope:
    """One sentence or table row: its numbers (each with its report line) and what it cites."""

    kind: str  # "sentence" or "row"
    line: int
    numbers: list[tuple[Bound, int]]
    cited: tuple[str, ...]
    earlier: list[Operand] = field(default_factory=list)  # cells of earlier rows of its table
    spans: list[int] = field(default_factory=list)  # years between two years it names
    text: str = ""  # a sentence's text, as its numbers were read in it (prepared)
    # a sentence's number, by index: the sources of the citation closing its clause, when the sentence
    # has several citations (`the industry's 4.9 GW [S03], the minister's 4.5 GW [S08]`)
    closes: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # a sentence's number, by index: the word of a possessive right before it that may name a source
    # (`the blog's 250,000`, `AHPA's 205,000`): whose figure it is (report/number_check.py)
    owners: dict[int, str] = field(default_factory=dict)

    def local(self, row: int = -1) -> list[Operand]:
        """The scope's own numbers as operands (the table row `row` for earlier rows)."""
        where = f"this {self.kind}" if row == -1 else f"the row on line {self.line}"
        return [o for bound, _ in self.numbers for o in operands(bound, where, "local", bound.column, row)]


def _ids(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for g in find_groups(text) for i in g.ids))


def _sentence_scopes(
    block: Block, fallback: tuple[str, ...], lines: Collection[int] | None, led: Context | None = None
) -> list[Scope]:
    spans = sentence_spans(block.text)
    texts = [block.text[a:b] for a, b in spans]
    cited = [_ids(text) for text in texts]
    own, led = paragraph_years(block.text), led or Context()  # (a list item's: its lead-in's)
    contexts = _contexts(texts, own or led.fallback, not own and led.period)
    scopes: list[Scope] = []
    for index, (start, sentence) in enumerate(zip((a for a, _ in spans), texts, strict=True)):
        context = contexts[index]
        ids = (
            cited[index]
            or next((c for c in cited[index + 1 :] if c), ())
            or next((c for c in reversed(cited[:index]) if c), fallback)
        )
        first = block.line + block.text.count("\n", 0, start)
        prepared = prepare(sentence)
        numbers = [
            (b, first + prepared.count("\n", 0, b.quantity.start))
            for b in bind_text(sentence, context=context)
        ]
        years = [y for b, _ in numbers for y in b.years]
        scope = Scope("sentence", first, numbers, ids, spans=year_spans(years), text=prepared)
        scope.closes = _closing(prepared, [b for b, _ in numbers])
        scope.owners = _owners(prepared, [b for b, _ in numbers])
        scopes.append(scope)
    for index, scope in enumerate(scopes):  # a derived number may rest on its paragraph's numbers
        refers = index > 0 and _REFERS.match(texts[index]) is not None
        scope.earlier = [
            o for other in scopes if other is not scope for b, _ in other.numbers
            for o in operands(b, *_where(other is scopes[index - 1] and refers))
        ]  # fmt: skip
    if lines is None:
        return scopes
    return [
        s
        for s, text in zip(scopes, texts, strict=True)
        if any(s.line <= n <= s.line + text.count("\n") for n in lines)
    ]


def _closing(text: str, numbers: list[Bound]) -> dict[int, tuple[str, ...]]:
    """For a sentence with several citations: the sources of the first one after each number (the
    citation that closes its clause), by the number's index."""
    groups = find_groups(text)
    if len(groups) < 2:
        return {}
    closes: dict[int, tuple[str, ...]] = {}
    for index, bound in enumerate(numbers):
        group = next((g for g in groups if g.start >= bound.quantity.start), None)
        if group is not None:
            closes[index] = group.ids
    return closes


# `the blog's 250,000`, `AHPA's about 205,000`: a possessive right before a number (its currency and
# an approximation between them aside) says whose figure it is.
_OWNER = re.compile(
    r"\b([^\W\d_][\w-]*)['’]s\s+(?:(?:about|around|roughly|nearly|almost|some|only|just|EUR|USD)\s+|"
    r"[~$€£]\s*)*$",
    re.IGNORECASE,
)


def _owners(text: str, numbers: list[Bound]) -> dict[int, str]:
    """The word of the possessive right before each number that has one, by the number's index."""
    owners: dict[int, str] = {}
    for index, bound in enumerate(numbers):
        start = bound.quantity.start
        found = _OWNER.search(text, max(0, start - 60), start)
        if found is not None:
            owners[index] = found.group(1)
    return owners


def _closing_years(text: str) -> Context:
    """The years a paragraph is about where it ends: its last sentence's, or those it takes from the
    sentences before (a list's lead-in: `Over the same period the other providers' revenues moved as
    follows:`), or its own (`period`: named by a sentence)."""
    texts = [text[a:b] for a, b in sentence_spans(text)]
    if not texts:
        return Context()
    named = years_in(texts[-1])
    return Context(fallback=named, period=True) if named else _contexts(texts, paragraph_years(text))[-1]


def _contexts(texts: list[str], paragraph: frozenset[int], period: bool = False) -> list[Context]:
    """The weak years of each sentence's numbers that have none of their own: those of the nearest
    sentence before that names any, when it names none and does not place itself against another
    time (`a year earlier`, `since`); else the years its paragraph names that no number takes."""
    contexts: list[Context] = []
    last: frozenset[int] = frozenset()
    for text in texts:
        named = years_in(text)
        inherits = last and not named and not elsewhen(text)
        contexts.append(Context(fallback=last if inherits else paragraph, period=bool(inherits) or period))
        last = named or last
    return contexts


# A sentence that opens by referring to the one before (`That is a growth of 21%`) may derive from
# its numbers as from its own.
_REFERS = re.compile(r"^\W*(?:this|that|these|those|it|which|such|i\.e\.)\b", re.IGNORECASE)


def _where(previous: bool) -> tuple[str, str, int, int]:
    return (
        ("the sentence before", "local", -1, -1)
        if previous
        else ("this paragraph", "paragraph", -1, PARAGRAPH)
    )


@dataclass
class _Table:
    header: list[str] = field(default_factory=list)
    caption: tuple[str, ...] = ()
    rows: list[Scope] = field(default_factory=list)
    terms: frozenset[str] = frozenset()  # of all its cells: what its rows and columns are about


def _row_scope(block: Block, table: _Table) -> Scope:
    cells = block.text.split(" | ")
    ids = _ids(block.text) or table.caption
    bound = bind_row(cells, table.header, around=table.terms)
    earlier = [o for row, scope in enumerate(table.rows) for o in scope.local(row)]
    years = [y for b in bound for y in b.years]
    return Scope("row", block.line, [(b, block.line) for b in bound], ids, earlier, year_spans(years))


def _spanned(blocks: list[Block]) -> dict[int, tuple[int, int]]:
    """The first and last line of each top-level block (a whole table, a whole list)."""
    spans: dict[int, tuple[int, int]] = {}
    for block in blocks:
        first, last = spans.get(block.scope, (block.line, block.line))
        spans[block.scope] = (min(first, block.line), max(last, block.line + block.text.count("\n")))
    return spans


def scopes(blocks: list[Block], lines: Collection[int] | None = None) -> Iterator[Scope]:
    """Every sentence and table row of the blocks that make claims, in order (module docstring);
    only those on `lines`, when given (a table's earlier rows are still read)."""
    spanned = _spanned(blocks)
    tables: dict[int, _Table] = {}
    cells: dict[int, list[str]] = {}
    for block in blocks:
        if block.kind in ("table_header", "table_row"):
            cells.setdefault(block.scope, []).append(block.text)
    lead_in: tuple[str, ...] = ()
    led = Context()  # the years its lead-in is about where it ends
    previous: Block | None = None
    for block in blocks:
        first, last = spanned[block.scope]
        wanted = lines is None or any(first <= n <= last for n in lines)
        if block.kind == "table_header":
            caption = _ids(previous.text) if previous is not None and previous.scope < block.scope else ()
            terms = terms_of(" ".join(cells.get(block.scope, [])))
            tables[block.scope] = _Table(block.text.split(" | "), caption, terms=terms)
        elif block.kind == "table_row" and wanted and makes_claims(block):
            table = tables.setdefault(block.scope, _Table())
            row = _row_scope(block, table)
            table.rows.append(row)
            if lines is None or row.line in lines:
                yield row
        elif block.kind in ("paragraph", "list_item") and wanted and makes_claims(block):
            item = block.kind == "list_item"
            yield from _sentence_scopes(block, lead_in if item else (), lines, led if item else None)
        if block.kind == "paragraph" and (previous is None or previous.scope != block.scope):
            lead_in, led = _ids(block.text), _closing_years(block.text)
        if block.kind != "table_row":
            previous = block
