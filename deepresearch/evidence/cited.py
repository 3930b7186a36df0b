"""The numbers of cited texts as evidence: a fact's statement and quote, bound to what they are
about; which of them states a claimed number for the same thing (evidence/aboutness.py).

When several state it, the one most about the claim wins: its year and the claim's distinctive
words (those few of the texts use). When none of them shares a word with the claim, a number for the
claim's own year with another value that is about the claim's distinctive words by a margin (one
year or two words) shows the claim gives the wrong number for it. So does one of another value, for
the claim's time, whose own phrase shares more of those words with the claim's phrase than any number
with its value (its phrase and clause, less the words another number of its clause has in its own
phrase: evidence/owners.py): by one word when the claim's phrase names nothing of those, else by two,
or by three words that many texts use when it shares no word with their phrases (the words naming
the cited sources' publishers left out: they say who counts, not what). A claim whose one year is only its
context's, stated only by numbers for other years, is not grounded when evidence gives the same
thing another value for that year (evidence/aboutness.py: `contemporary`). A number found only by
rounding, or only as a threshold, is weaker evidence (evidence/rivals.py: `weakly_stated`). A number
of a text that names rather than counts (`round 3`, a date's day) states only a claim that names it
by the same word (`rounds 2 and 3`, a `Round` column). A number of one scenario does not state a
claim its words give for another (evidence/forecasts.py), nor a number written with another figure
than the claim is written with (`3.9 GW in 47 projects` for `2.3 GW in 47 projects`:
evidence/owners.py). A bare number its own phrase calls a weight or margin (`margin 0.30`) is stated
only by a conflict's evidence weights.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace

from deepresearch.evidence.aboutness import CONTAINS, conflict, contemporary
from deepresearch.evidence.arithmetic import Operand, operands
from deepresearch.evidence.binding import Bound, bind_text
from deepresearch.evidence.eligible import may_state
from deepresearch.evidence.forecasts import other_scenario
from deepresearch.evidence.number_match import same_value, years_text
from deepresearch.evidence.owners import own_words, partnered
from deepresearch.evidence.rivals import others, rival, weakly_stated, wrong_figure
from deepresearch.evidence.years import elsewhen


@dataclass
class Evidence:
    """Numbers of evidence texts, bound, by text (a text's numbers are siblings), and their operands."""

    texts: list[tuple[Bound, ...]] = field(default_factory=list)
    weights: list[tuple[Bound, ...]] = field(default_factory=list)  # conflicts' evidence weights
    lends: bool = False  # a quoted table cell's bare digits may stand for a number with a unit
    dated: bool = False  # facts: a claim for its own year needs a fact that names a year
    names: frozenset[str] = frozenset()  # words that name who publishes the cited sources
    _operands: list[Operand] | None = field(default=None, init=False, repr=False)
    _frequency: dict[str, int] | None = field(default=None, init=False, repr=False)

    @classmethod
    def read(cls, texts: Iterable[tuple[str, str]], lends: bool = False) -> Evidence:
        """Evidence from (origin, text) pairs: a fact's statement and quote, say."""
        bound = [
            tuple(bind_text(text, claims_only=False, origin=origin, whole=True)) for origin, text in texts
        ]
        return cls(bound, lends=lends)

    @classmethod
    def of_fact(cls, origin: str, statement: str, quote: str) -> Evidence:
        """A fact's statement and quote. A bare cell of a quoted table row takes the unit with which
        the statement gives its digits (the row's label then says what year it is for); a number
        with no year of its own takes, weakly, every year the fact names."""
        stated = tuple(bind_text(statement, claims_only=False, origin=origin, whole=True))
        taken: set[Bound] = set()
        quoted = tuple(
            _adopt(b, stated, taken) for b in bind_text(quote, claims_only=False, origin=origin, whole=True)
        )
        years = frozenset(y for b in (*stated, *quoted) for y in b.years)
        dated = [
            tuple(b if b.years or b.undated else replace(b, years=years, strength=0) for b in text)
            for text in (stated, quoted)
        ]
        return cls(dated, dated=True)

    def with_weights(self, weights: Evidence) -> Evidence:
        """This evidence and the numbers of a conflict's evidence weights: they ground only bare
        numbers, and are never combined."""
        return Evidence(self.texts, list(weights.texts), self.lends, self.dated, self.names)

    def operands(self) -> list[Operand]:
        """Every claim number of the texts as derivation operands."""
        if self._operands is None:
            self._operands = [
                o
                for i, text in enumerate(self.texts)
                for b in text
                for o in operands(b, b.origin, f"{b.origin}#{i}")
            ]
        return self._operands

    def stating(self, claim: Bound, taken: Collection[Bound] = ()) -> tuple[Bound | None, str]:
        """(the evidence number that states the claim, "") or (None, why the nearest candidate with
        its value does not); `taken`: numbers that state another number of the claim's sentence."""
        if claim.quantity.plain and claim.near & _WEIGHING:  # (`margin 0.30`: code's weight, no source's)
            weight = self._weight(claim)
            return weight, "" if weight else "only a conflict's evidence weights give a weight or margin"
        why = ""
        matches: list[Bound] = []
        words: list[frozenset[str]] = []  # (each match's own words: evidence/owners.py)
        for text in self.texts:
            for item in text:
                if not may_state(claim, item, taken):
                    continue
                if not same_value(claim.quantity, item.quantity, item.loose and self._lends(claim, item)):
                    continue
                reason = conflict(claim, item, text, self.texts, self.dated, self.distinctive)
                if not reason:
                    matches.append(item)
                    words.append(own_words(item, text))
                why = why or reason
        if matches:
            return self._best(claim, matches, words)
        weight = self._weight(claim)
        return (weight, "") if weight is not None else (None, why)

    def _best(
        self, claim: Bound, matches: Sequence[Bound], words: Sequence[frozenset[str]]
    ) -> tuple[Bound | None, str]:
        """The match most about the claim, unless a number of another value is what the claim's words
        are about instead (module docstring): then None and why; `words`: each match's own."""
        best = max(matches, key=lambda m: _score(claim, m, self))
        silent = not any(m.terms & claim.terms for m in matches)
        # a sentence that negates may name what its number is not: no rival for those words
        instead = (
            self._better(claim, _score(claim, best, self))
            if self.dated and silent and not claim.negated
            else None
        )
        instead = instead or self._nearer(claim, matches, words)  # (the words right by its number)
        instead = instead or weakly_stated(claim, matches, self.texts, self.distinctive)
        instead = instead or other_scenario(claim, matches, others(claim, self.texts))
        instead = instead or partnered(claim, matches, others(claim, self.texts))
        then = None if instead else contemporary(claim, matches, self.texts, self.distinctive)
        if then is not None:  # (the figure of its context's year)
            return None, f"{best.origin} states {best.text} for {years_text(best.years)}; " + (
                f"{then.origin} gives {then.text} for {years_text(claim.years)}, the year its context is about"
            )
        if instead is None:
            return best, ""
        shared = (
            self.distinctive(instead.terms & claim.terms, 10)
            or instead.near & claim.near
            or (instead.terms & claim.terms)
        )
        named = ", ".join(sorted(shared)) or years_text(instead.years)
        return (
            None,
            f'{best.origin} states {best.text}, but {instead.origin} gives {instead.text} for "{named}"',
        )

    def wrong_figure(self, claim: Bound, written: Collection[float] = ()) -> Bound | None:
        """Another value a text gives for what the claim is about, not one of the `written` values of
        its sentence (evidence/rivals.py)."""
        return wrong_figure(claim, self.texts, lambda terms: self.distinctive(terms, 10), written)

    def _weight(self, claim: Bound) -> Bound | None:
        """A conflict's evidence weight or margin that states a bare claim whose sentence speaks of
        weights or margins (`2 rounds` is not the weight 1.00)."""
        if not claim.quantity.plain or not claim.around & _WEIGHING:
            return None
        return next(
            (
                i
                for text in self.weights
                for i in text  # (not the digits of an ID: `Fact-003 W=1.00`)
                if i.quantity.claim and i.quantity.plain and same_value(claim.quantity, i.quantity)
            ),
            None,
        )

    def distinctive(self, terms: frozenset[str], share: int = 5) -> frozenset[str]:
        """The words of `terms` that few texts of this evidence use (at most one in `share`, or three)."""
        if self._frequency is None:
            counts: dict[str, int] = {}
            for text in self.texts:
                for word in {w for b in text for w in b.terms}:
                    counts[word] = counts.get(word, 0) + 1
            self._frequency = counts
        limit = max(3, len(self.texts) // share)
        frequency = self._frequency
        return frozenset(t for t in terms if frequency.get(t, 0) <= limit)

    def _better(self, claim: Bound, score: int) -> Bound | None:
        """When no number with the claim's value says anything its words say: a number of another
        value, for the claim's own year, whose words are some of the claim's, by a margin over the
        best one with its value: two (a year, or two words) for prose, one word for a table cell
        (its row's label names its item)."""
        if not claim.years or claim.strength < 2:
            return None
        for text in self.texts:
            for item in text:
                q = item.quantity
                if not q.claim or q.dimension != claim.quantity.dimension or not item.strength:
                    continue
                if not item.years & claim.years or not self.distinctive(item.terms & claim.terms, 10):
                    continue
                if {r.value for r in q.readings} & claim.beside:
                    continue
                margin = 1 if claim.column >= 0 else 2  # a table row's label names its item surely
                if _score(claim, item, self) >= score + margin and not same_value(claim.quantity, q):
                    return item
        return None

    def _nearer(
        self, claim: Bound, matches: Sequence[Bound], words: Sequence[frozenset[str]]
    ) -> Bound | None:
        """A number of another value (its unit, the claim's years) that the words of the claim's own
        phrase are about, by distinctive words, more than about any number with its value (their
        phrases or their clauses, but not the words another number of their clause has in its own
        phrase: evidence/owners.py, `own_words`): `discharged up to 9.3 GW` is not the 9.3 GW `demand
        peak` when a cited fact's `discharge peaked at 2.9 GW`. By one word when the phrase says
        nothing of any number with its value (and does not say what its number is not), else by two;
        or by three words, distinctive or not, when it shares no word with their phrases. The words
        that name the sources' publishers (`NCPA's count`) say who counts, not what. A table cell's
        number too, by the words of its note (`NSO pipeline (2.3 GW under construction + ...)`). Not
        for a sentence that says what its number includes."""
        if not claim.near or CONTAINS.search(claim.clause):  # (a cell's: the words of its note)
            return None
        near = claim.near - self.names
        ours = max(len(self.distinctive(near & w)) for w in words)
        # (a claim placed against another time than its context's, `a year earlier`: its time is unsure)
        margin = 2 if ours or claim.negated or (not claim.years and elsewhen(claim.clause)) else 1
        loose = not claim.negated and not any(near & m.near for m in matches)
        for text in self.texts:
            for item in text:
                shared = near & item.near if rival(claim, item) else frozenset()
                if len(self.distinctive(shared)) >= ours + margin or (loose and len(shared) >= 3):
                    return item
        return None

    def _lends(self, claim: Bound, cell: Bound) -> bool:
        """A quoted cell's bare digits stand for the claim's number: always in a fact's own check
        (`lends`), else when the cell's row label and the claim name the same year."""
        return self.lends or (cell.strength == 2 == claim.strength and bool(cell.years & claim.years))

    def nearest(self, claim: Bound) -> Bound | None:
        """The evidence number most like the claim: same unit, its years, its words, closest value."""
        candidates = [
            b for text in self.texts for b in text
            if b.quantity.claim and (b.quantity.dimension == claim.quantity.dimension or claim.quantity.plain)
        ]  # fmt: skip
        if not candidates:
            return None
        target = float(claim.quantity.readings[0].value)

        def score(b: Bound) -> tuple[int, int, float]:
            years = 2 if claim.years and claim.years & b.years else int(not (claim.years and b.years))
            distance = abs(float(b.quantity.readings[0].value) - target) / max(abs(target), 1e-12)
            return years, len(claim.terms & b.terms), -distance

        return max(candidates, key=score)


_WEIGHING = frozenset({"weight", "margin"})  # (stemmed: weights, margins)


def _score(claim: Bound, item: Bound, evidence: Evidence) -> int:
    """How much an evidence number is about what the claim is about: its year (2), its distinctive
    words (1 each)."""
    dated = 2 if item.strength and item.years & claim.years else 0
    return dated + len(evidence.distinctive(item.terms & claim.terms, 10))


def _adopt(cell: Bound, statement: Sequence[Bound], taken: set[Bound]) -> Bound:
    """A bare quoted cell that the statement gives with a unit: that number, with the cell's years
    (its row's label) or else the statement's, the words of both, and a change when the statement
    gives it as one (`net additions 0.3 GW` for the row's `0.3`)."""
    if not cell.loose:
        return cell
    counts = [
        b
        for b in statement
        if b.quantity.claim and b.quantity.plain and b.quantity.bare == cell.quantity.bare
    ]
    if counts:  # the statement says it is a count, and (when one) what it counts
        return replace(
            cell, loose=False, terms=cell.terms | (counts[0].terms if len(counts) == 1 else frozenset())
        )
    for b in statement:
        q = b.quantity
        if b in taken or not q.claim or not q.dimension or not q.bare:
            continue
        if {r.value for r in q.bare} & {r.value for r in cell.quantity.bare}:
            taken.add(b)
            years, strength = (cell.years, cell.strength) if cell.years else (b.years, b.strength)
            quantity = replace(cell.quantity, readings=q.readings, dimension=q.dimension)
            return replace(
                cell,
                quantity=quantity,
                loose=False,
                years=years,
                strength=strength,
                terms=cell.terms | b.terms,
                change=cell.change or b.change,
                direction=cell.direction or b.direction,
            )
    return cell
