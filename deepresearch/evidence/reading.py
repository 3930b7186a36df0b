"""One prose text being bound (evidence/binding.py): its sentences, clauses, numbers and years, and
which years and words belong to which number."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import pairwise

from deepresearch.evidence.bound import Bound, Context
from deepresearch.evidence.forecasts import a_forecast, measured, outturn
from deepresearch.evidence.lists import list_ends, share_units
from deepresearch.evidence.phrases import after_break, lead_words, tail_phrase, tail_words
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
from deepresearch.evidence.years import YearMention, belonging, elsewhen, mentions

_CLAUSE_BREAK = re.compile(
    r"(?<!\d),|,(?!\d)|:(?=\s)|[;()\[\]，、；：（）]|\s(?:and|but|while|whereas|versus|vs\.?|against|plus)\s"
    r"|\s[–—=+-]\s",
    re.IGNORECASE,
)
NEGATION = re.compile(r"\b(?:not|cannot|never|neither|nor|no longer)\b|n't\b", re.IGNORECASE)
# evidence that says it gives no change (`with no net-additions figure`): its words are no change's
_DENIED = re.compile(
    r"\b(?:no|without)\s+(?:[\w-]+\s+)?(?:net[- ])?(?:additions?|growth|increases?|changes?)\b(?:\s+figures?)?",
    re.IGNORECASE,
)
# written per something other than time (`/MW-yr`, ` per MW-year`; not `per year`, `/yr`)
_PER = re.compile(
    r"\s?(?:/\s?|per\s+)(?!(?:years?|yr|annum|a|months?|weeks?|days?|hours?|h)\b)[^\W\d_]", re.IGNORECASE
)
# a division written out with its terms (`180m / ~1.65 GW`): spaced, not a list's `95/180/310m`
_DIVIDEND = re.compile(r"\s+/\s+[~≈]?\s?\d")
_DIVISOR = re.compile(r"\d\S*\s+/\s+[~≈]?\s?$")
_BETWEEN = re.compile(r"\bbetween\s+\S+(?:\s+\S+)?$", re.IGNORECASE)


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


def within(years: Sequence[YearMention], start: int, end: int) -> frozenset[int]:
    return frozenset(y for m in years if start <= m.start < end for y in m.years)


@dataclass
class Reading:
    """One text being bound: its numbers, its years, which years belong to which number."""

    text: str
    found: list[Quantity]
    years: list[YearMention]
    owned: dict[int, YearMention]
    origin: str
    whole: bool
    context: Context
    ends: dict[int, int] = field(default_factory=dict)  # where each list number's list ends

    @classmethod
    def of(cls, text: str, origin: str, whole: bool, context: Context) -> Reading:
        prepared = prepare(text)
        if origin:  # (blanked, offsets kept: `with no net-additions figure` makes no number a change)
            prepared = _DENIED.sub(lambda m: " " * len(m.group()), prepared)
        raw = quantities(text, claims_only=False)
        found = share_units(prepared, raw)
        years = mentions(prepared, found)
        ends = list_ends(prepared, raw)  # (read before the lists share their unit: it ends none)
        return cls(prepared, found, years, belonging(prepared, found, years), origin, whole, context, ends)

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
        return bool(NEGATION.search(self.text))

    @cached_property
    def ratios(self) -> tuple[frozenset[int], frozenset[int]]:
        """The starts of the numbers written per something (after their list: `90k, 109k and 113k
        per MW-year`), and of those that are a term of a division the text writes out (`180m / ~1.65
        GW`: the amount and the fleet a rate is computed from)."""
        rates = frozenset(q.start for q in self.found if _PER.match(self.text, self.ends.get(q.start, q.end)))
        divided = frozenset(
            q.start
            for q in self.found
            if _DIVIDEND.match(self.text, q.end) or _DIVISOR.search(self.text, max(0, q.start - 30), q.start)
        )
        return rates, divided

    def weak(self, clauses: list[Clause], start: int, end: int) -> tuple[frozenset[int], int]:
        """The years a number of text[start:end] with none of its own takes, and their strength."""
        intro = _intro_years(clauses, self.found, self.free)
        # the years of the sentence's other numbers, but not when it places itself against another time
        others = self.whole or not elsewhen(self.text[start:end])
        weak = within(self.free, start, end) or (within(self.years, start, end) if others else frozenset())
        weak = (
            intro or weak or (within(self.years, 0, len(self.text)) if self.whole else self.context.fallback)
        )
        return weak, int(len(intro) == 1 or (self.whole and len(weak) == 1))

    def sentence(self, start: int, end: int, claims_only: bool) -> list[Bound]:
        """The numbers of the sentence text[start:end], bound (evidence/binding.py)."""
        clauses = clauses_of(self.text, start, end)
        weak, strength = self.weak(clauses, start, end)
        starts = [q.start for q in self.found if q.claim]
        derived, about = derived_marks(self.text, clauses, starts), clause_terms(self.text, clauses, starts)
        inputs = derivation_inputs(self.text, starts)
        # evidence may be a change when its item speaks of one (`end-2022: 1.2 GW; net additions 0.3
        # GW`: the 1.2 GW is a level), and a forecast's when its item names one
        items = group_spans(self.text, clauses)
        observed = self.context.observed
        observed = measured(self.text[start:end]) if observed is None else observed
        named = (
            self.context.named if self.context.named is not None else named_dimensions(self.text[start:end])
        )
        years = _SentenceYears(weak, strength, self._started(start, end), self._span_ends(start, end))
        bound: list[Bound] = []
        for c_start, c_end in clauses:
            here = [q for q in self.found if c_start <= q.start < c_end]
            for q in here:
                if claims_only and not q.claim:
                    continue
                terms = (
                    # (an input with no words of its own is about what its sentence is: `the North had a
                    # third of the Capital's density (derived: 105 against 290)`)
                    terms_of(self.text[c_start:c_end]) or terms_of(self.text[start:end])
                    if q.start in inputs
                    else about.get(c_start, frozenset())
                )
                b = self._bound(q, here, (c_start, c_end), terms, q.start in derived)
                if q.start in inputs:  # a derivation's input: a quoted value, with only its own words
                    b = replace(b, change=change_at(self.text, q.start, q.end)[0])
                undated = not b.years and (q.start in inputs or bool(_STARTING.search(self.text, 0, q.start)))
                changing = bool(self.origin) and self._changing(q, items)
                near = self._near(q, (c_start, c_end), (start, end))
                own, strong = years.of(q, b, undated, bool(self.origin))
                over = self._overall(start, end) if b.change and not b.years and near & _OVERALL else None
                if over and not self.origin:  # (`-38% overall` after `from 210 (2022) to ... 130 (2025)`)
                    own, strong = over, 2
                forecast = self.context.forecast or self._forecast(q, items, (c_start, c_end))
                bound.append(replace(
                    b, years=own, strength=strong, changing=changing, undated=undated, named=named, near=near,
                    forecast=forecast, observed=observed, rate=q.start in self.ratios[0],
                    divided=q.start in self.ratios[1],
                ))  # fmt: skip
        return bound

    def _near(self, q: Quantity, clause: Clause, sentence: Clause) -> frozenset[str]:
        """The words of the number's own phrase: from the last break after the number before it in
        its sentence (none: from its clause's start; a reporting verb's `that` is one), and on to the
        first break after it (not an agent's `by`). A list's
        later item with no word between it and the item before in its unit (`revenues were EUR 95m
        (2022), EUR 180m (2023)`) is about the same thing: it has that item's words before it."""
        numbers = [p for p in self.found if p.claim and sentence[0] <= p.start < sentence[1]]
        before = max((p.end for p in numbers if p.end <= q.start), default=-1)
        after = min((p.start for p in numbers if p.start >= q.end), default=sentence[1])
        tail = tail_words(self.text[q.end : after])
        previous = next((p for p in numbers if p.end == before), None)
        if (
            previous is not None
            and previous.dimension == q.dimension
            and not terms_of(self.text[before : q.start])
        ):
            home = next(c for c in clauses_of(self.text, *sentence) if c[0] <= previous.start < c[1])
            return self._near(previous, home, sentence) | tail
        lead = self.text[clause[0] : q.start] if before < 0 else after_break(self.text[before : q.start])
        return lead_words(lead) | tail

    def _forecast(self, q: Quantity, items: list[Clause], clause: Clause) -> bool:
        """A forecast's or scenario's number (evidence/forecasts.py): the words of its item up to it
        and of its own phrase after it name one, and its clause names no outturn."""
        item = next((a for a, z in items if a <= q.start < z), clause[0])
        after = min((p.start for p in self.found if p.claim and p.start >= q.end), default=clause[1])
        tail = tail_phrase(self.text[q.end : min(after, clause[1])])
        return a_forecast(self.text[item : q.end] + tail) and not outturn(self.text[slice(*clause)])

    def _changing(self, q: Quantity, items: list[Clause]) -> bool:
        return any(a <= q.start < z and self._speaks(a, z) for a, z in items)

    def _speaks(self, start: int, end: int) -> bool:
        return sentence_speaks_of_change(self.text[start:end])

    def _started(self, start: int, end: int) -> frozenset[int]:
        """The years of the numbers of text[start:end] where a change started (`from 3.4 GW at the
        end of 2024`): not the year of the change."""
        return frozenset(
            y
            for q in self.found
            if start <= q.start < end and q.start in self.owned and _STARTING.search(self.text, 0, q.start)
            for y in self.owned[q.start].years
        )

    def _overall(self, start: int, end: int) -> frozenset[int]:
        """The year a report's change given `overall` is for, in a sentence that names a span of years
        (`from 210 EUR/kWh (2022) to ... 130 (2025), -38% overall`): the change from its first year to
        its last, for the last, as an evidence change between two years is."""
        years = within(self.years, start, end)
        return frozenset({max(years)}) if len(years) >= 2 else frozenset()

    def _span_ends(self, start: int, end: int) -> dict[int, int]:
        """In a report's sentence that names no year, about the span of years a sentence before names
        (`over the same period`, a list under a lead-in about 2022-2024): a change `from A to B` runs
        over the whole span, A the first year's, B the last's (not a step of a chain: `from A to B to
        C`; not over the years a paragraph names that no number takes: they may be no span)."""
        span = self.context.fallback
        if self.origin or not self.context.period or len(span) < 2 or within(self.years, start, end):
            return {}
        claims = [q for q in self.found if q.claim and start <= q.start < end]
        ends: dict[int, int] = {}
        for a, b in pairwise(claims):
            if (
                _STARTING.search(self.text, 0, a.start)
                and _ON_TO.fullmatch(self.text, a.end, b.start)
                and not _ON_TO.match(self.text, b.end)
            ):
                ends[a.start], ends[b.start] = min(span), max(span)
        return ends

    def _bound(
        self, q: Quantity, here: list[Quantity], clause: Clause, terms: frozenset[str], derived: bool
    ) -> Bound:
        """The number bound to its own years (none: weak ones come from the sentence), its words,
        signals and change."""
        ctx = self.context
        own = self.owned[q.start].years if q.start in self.owned else within(self.free, *clause) or ctx.years
        change, direction = change_at(self.text, q.start, q.end)
        change = ctx.change or ((change or bool(terms & CHANGE_TERMS)) and not _margin(self.text, q.start))
        if self.origin and change and len(own) > 1:
            own = frozenset({max(own)})  # `the end-2025 increase over end-2024 was 1.4 GW`
        signals = signals_in(self.text[slice(*clause)]) | ctx.signals | ({DERIVED} if derived else set())
        # (the figures of its clause: not a name, `round 3`, nor a year)
        beside = frozenset(
            r.value for other in here if other is not q and other.claim for r in other.readings
        )
        return Bound(
            q, own, 2 if own else 0, terms | ctx.terms, signals, change, direction, self.origin,
            around=ctx.around or self.all_terms, beside=beside, clause=self.text[slice(*clause)],
            negated=self.negated,
        )  # fmt: skip


@dataclass(frozen=True)
class _SentenceYears:
    """A sentence's years for its numbers that name none: its weak years and their strength, the
    years its changes start from, and the span ends its `from A to B` runs over."""

    weak: frozenset[int]
    strength: int
    started: frozenset[int]
    ends: dict[int, int]

    def of(self, q: Quantity, b: Bound, undated: bool, evidence: bool) -> tuple[frozenset[int], int]:
        """The years a bound number is for, and how strongly."""
        own = b.years or (frozenset() if undated else self.weak)
        strong = 2 if b.years else self.strength
        if evidence and b.change and not b.years and own & self.started:
            own, strong = own - self.started, 0  # `from 3.4 GW at end-2024, an increase of 1.4 GW`
        if q.start in self.ends:  # (`from EUR 15m to EUR 30m` over its context's 2022-2024)
            own, strong = frozenset({self.ends[q.start]}), 1
        return own, strong


def _intro_years(
    clauses: list[Clause], found: Sequence[Quantity], free: Sequence[YearMention]
) -> frozenset[int]:
    """The years of a sentence's opening clause when it states no number (`In 2024, ...`)."""
    if not clauses or any(clauses[0][0] <= q.start < clauses[0][1] for q in found if q.claim):
        return frozenset()
    return within(free, *clauses[0])


# `up from 38.5%`, `rose from 95m`: where a change started, not the year the sentence is about.
_STARTING = re.compile(
    r"\bfrom\s+(?:(?:about|around|roughly|nearly|some|just|only|EUR|USD|US\$|[$€£¥])\s*)*$", re.I
)


# (stemmed) words that give a change as the whole of a span's: `-38% overall`
_OVERALL = frozenset({"overall", "cumulativ", "altogether"})
# `... to EUR 30m`: where a change `from` a number ends.
_ON_TO = re.compile(
    r"\s+to\s+(?:(?:about|around|roughly|nearly|some|just|only|EUR|USD|US\$|[$€£¥])\s*)*", re.I
)


def _margin(text: str, start: int) -> bool:
    """A number written as `±0.1 GWh`: a margin, not a change."""
    return text[max(0, start - 2) : start].strip().endswith("±")
