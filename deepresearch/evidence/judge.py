"""Is a number grounded? Stated by the evidence for the same thing, or derived where the words say so.

A number is grounded when a number of the evidence states it (evidence/cited.py: the same value,
evidence/number_match.py, about the same thing, evidence/aboutness.py), or when it follows from
numbers of the evidence and of its own sentence by the arithmetic its words name
(evidence/derivation.py), unless the evidence gives another value for the same thing (a report's
wrong figure is not rescued by arithmetic: evidence/aboutness.py, `rival`). Numbers of one sentence
are judged together: first those stated, then those derived, where a derivation may use the
sentence's numbers already grounded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from deepresearch.evidence.arithmetic import Operand, operands
from deepresearch.evidence.binding import Bound, bind_text
from deepresearch.evidence.cited import Evidence
from deepresearch.evidence.derivation import derive as derivation
from deepresearch.evidence.number_match import years_text
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
    other = evidence.rival(claim, written) if derive and evidence.dated else None
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
    `distinct` (a report): a value the sentence writes twice is written for two things (`received
    1.0 GW of bids for 1.0 GW`), so the evidence number that states the first does not state the next."""
    spans = list(spans)
    verdicts: list[Judgement] = []
    taken: list[list[Bound]] = []
    for claim in claims:
        earlier = zip(claims[: len(verdicts)], verdicts, strict=True) if distinct else ()
        taken.append([v.source for c, v in earlier if v.source is not None and c.text == claim.text])
        verdicts.append(judge(claim, evidence, context=context, derive=False, taken=taken[-1]))
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
