"""Is a number grounded? Stated by the evidence for the same thing, or derived where the words say so.

A number is grounded when a number of the evidence states it (evidence/cited.py: the same value,
evidence/number_match.py, about the same thing, evidence/aboutness.py), or when it follows from
numbers of the evidence and of its own sentence by the arithmetic its words name
(evidence/derivation.py), unless the evidence gives another value for the same thing (a report's
wrong figure is not rescued by arithmetic: evidence/rivals.py, `wrong_figure`). Numbers of one
sentence are judged together: first those stated, then those derived, where a derivation may use the
sentence's numbers already grounded. A report's sentence that names no year is about the one year for
which the evidence surely states its other numbers: a number of it stated only for another year is
judged for that one too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from deepresearch.evidence.arithmetic import Operand, operands
from deepresearch.evidence.binding import Bound, bind_text
from deepresearch.evidence.cited import Evidence
from deepresearch.evidence.derivation import derive as derivation
from deepresearch.evidence.number_match import same_value, years_text
from deepresearch.evidence.quantities import Quantity


@dataclass(frozen=True)
class Judgement:
    """Whether a number is grounded, how (for --explain), and else why not."""

    grounded: bool
    how: str = ""
    why: str = ""
    source: Bound | None = None  # the evidence number that states it


def judge(
    claim: Bound,
    evidence: Evidence,
    local: Sequence[Operand] = (),
    spans: Iterable[int] = (),
    context: Evidence | None = None,
    derive: bool = True,
    taken: Sequence[Bound] = (),
) -> Judgement:
    """Stated by the evidence (or the `context`: found there, never combined), or (with `derive`)
    derived from the evidence and the `local` operands (numbers of the same sentence, grounded);
    `taken`: numbers that state the same value written before in the claim's sentence."""
    stated, why = evidence.stating(claim, taken)
    if stated is None and context is not None:
        stated, _ = context.stating(claim, taken)
    if stated is not None:
        return Judgement(True, f'stated by {stated.origin} ("{stated.text}")', source=stated)
    written = {o.value for o in local if o.row == -1}  # (the sentence's own numbers)
    other = evidence.wrong_figure(claim, written) if derive and evidence.dated else None
    if other is not None:  # the claim gives the wrong figure for it: no arithmetic makes it right
        years = f" for {years_text(other.years)}" if other.years else ""
        return Judgement(False, "", why or f"{other.origin} gives {other.text}{years} for the same thing")
    how = (
        derivation(claim, local, evidence.operands(), spans, evidence.dated, evidence.distinctive)
        if derive
        else ""
    )
    if how:
        return Judgement(True, f"derived: {how}")
    if not why and taken:
        why = f"written twice here, and {taken[0].origin} states {taken[0].text} once"
    if not why:
        near = evidence.nearest(claim)
        if near is not None:
            years = f" for {years_text(near.years)}" if near.years else ""
            why = f"the nearest: {near.origin} states {near.text}{years}"
    return Judgement(False, "", why)


def year_spans(years: Iterable[int]) -> list[int]:
    """The numbers of years between any two of `years`."""
    ordered = sorted(set(years))
    return sorted({b - a for i, a in enumerate(ordered) for b in ordered[i + 1 :]})


def judge_together(
    claims: Sequence[Bound],
    evidence: Evidence,
    beside: Sequence[Operand] = (),
    spans: Iterable[int] = (),
    context: Evidence | None = None,
    where: str = "this sentence",
    distinct: bool = False,
) -> list[Judgement]:
    """The numbers of one sentence: those stated first, then those derived, where a derivation may
    use the sentence's numbers already grounded and the operands `beside` (its table, its paragraph).
    `distinct` (a report): a value the sentence writes twice (its digits again: `EUR 90k, 90k`) is
    written for two things (`received 1.0 GW of bids for 1.0 GW`), so the evidence number that states
    the first (a range's end before any other: `_stated`) does not state the next, nor does one that
    restates it (its fact's, or another fact's whose phrase shares a word with it or which is about two
    of its words)."""
    spans = list(spans)
    claims = list(claims)
    verdicts, taken = _stated(claims, evidence, context, distinct)
    for index, year in (_siblings_years(claims, verdicts) if distinct else {}).items():
        # (no other number of its sentence is the figure it should have been: `3.4 GW, then 4.8 GW`)
        values = frozenset(r.value for c in claims for r in c.quantity.readings)
        dated = replace(claims[index], years=frozenset({year}), strength=0, beside=values)
        verdict = judge(dated, evidence, context=context, derive=False, taken=taken[index])
        if not verdict.grounded:  # (it is judged for that year from now on)
            claims[index], verdicts[index] = dated, verdict
    for _ in range(3):  # a number derived from another number of the sentence, itself grounded
        grounded = [
            o
            for claim, verdict in zip(claims, verdicts, strict=True)
            if verdict.grounded
            for o in operands(claim, where, "local", claim.column)
        ]
        before = sum(v.grounded for v in verdicts)
        for index, claim in enumerate(claims):
            if not verdicts[index].grounded:
                local = [o for o in grounded if o.shown != claim.text] + list(beside)
                verdicts[index] = judge(claim, evidence, local, spans, context, taken=taken[index])
        if sum(v.grounded for v in verdicts) == before:
            break
    return verdicts


def _stated(
    claims: list[Bound], evidence: Evidence, context: Evidence | None, distinct: bool
) -> tuple[list[Judgement], list[list[Bound]]]:
    """Each claim stated or not (none derived), and the numbers stating its digits that an earlier
    one took (`distinct`). A range's ends take theirs first: where a sentence writes a value twice,
    once as a range's end (`~3.8 GW (range 3.8-5.2)`), a range's end in the evidence states that
    one, not the central value before it."""
    order = sorted(range(len(claims)), key=lambda i: claims[i].quantity.span == 0)
    done: dict[int, Judgement] = {}
    taken: list[list[Bound]] = [[] for _ in claims]
    for index in order:
        earlier = [(claims[i], v) for i, v in done.items()] if distinct else []
        taken[index] = [v.source for c, v in earlier if v.source is not None and _twice(c, claims[index])]
        done[index] = judge(claims[index], evidence, context=context, derive=False, taken=taken[index])
    return [done[i] for i in range(len(claims))], taken


def _siblings_years(claims: Sequence[Bound], verdicts: Sequence[Judgement]) -> dict[int, int]:
    """A report's sentence that names no year at all, whose other numbers evidence states for one
    year, given surely: that year, for each number stated only for another (`VSIA's 4.9 GW against
    the NSO's 3.4 GW`, the 4.9 GW end-2025's and the 3.4 GW end-2024's). Not where a number is
    where a change started (`from 3.4 GW to 4.8 GW`)."""
    if any(c.years or c.undated for c in claims):
        return {}
    sources = [v.source if v.grounded else None for v in verdicts]
    out: dict[int, int] = {}
    for index, source in enumerate(sources):
        if source is None or source.strength < 2 or not source.years:
            continue
        others = {s.years for i, s in enumerate(sources) if i != index and s is not None and s.strength == 2}
        if len(others) == 1 and len(year := next(iter(others))) == 1 and not year & source.years:
            out[index] = next(iter(year))
    return out


def _twice(earlier: Bound, claim: Bound) -> bool:
    """The claim writes the earlier number's digits again, for its value: `EUR 90k, 90k`, `10 GW
    (low 10)`; not a restatement in another unit or scale (`3.4 GW (3,400 MW)`)."""
    first, again = _DIGITS.search(earlier.text), _DIGITS.search(claim.text)
    if first is None or again is None or first.group() != again.group():
        return False
    mine, theirs = claim.quantity, earlier.quantity
    if earlier.text == claim.text or same_value(mine, theirs):
        return True
    # (a bare range's end, judged first: `~3.8 GW (range 3.8-5.2)`)
    return bool(theirs.span) and same_value(theirs, mine)


_DIGITS = re.compile(r"\d(?:[\d.,]*\d)?")


def missing_numbers(statement: str, evidence: Iterable[str], context: Iterable[str] = ()) -> list[Quantity]:
    """The numbers `statement` claims that the `evidence` texts neither state (for the same thing) nor
    derive where the statement says so, and that the `context` texts (a longer passage: too many
    numbers to combine safely) do not state."""
    claims = bind_text(statement, whole=True)
    if not claims:
        return []
    cited = Evidence.read((("the quote", text) for text in evidence), lends=True)
    around = Evidence.read((("the text around the quote", text) for text in context), lends=True)
    spans = year_spans(y for c in claims for y in c.years)
    verdicts = judge_together(claims, cited, spans=spans, context=around, where="the statement")
    return [claim.quantity for claim, verdict in zip(claims, verdicts, strict=True) if not verdict.grounded]
