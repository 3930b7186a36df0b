"""ungrounded_number: each number a report states must come from the facts cited where it is stated.

A number in a block that makes claims (years, dates, citation IDs, section numbers and list ordinals
are not claims: evidence/quantities.py) is judged in its sentence, or its table row with its header
and caption (report/number_scope.py), against the facts of the sources cited there: it must be
stated by one of them for the same thing — its year, its change or level, what it is a number of
(evidence/number_match.py), by a source the citation closing its clause cites when the sentence
cites several, and, when a possessive right before it names a cited source by its publisher or its
kind (`AHPA's 205,000`, `the blog's 250,000`), one of that source's figures — or be derived, where
its words say so, from their numbers and the sentence's own (evidence/derivation.py). A fact contributes its statement's numbers and its quote's;
a fact marked `Verified: partial` only the statement numbers its quote grounds; a fact the verifier
judged `unsupported` nothing (it has left the closed world). The evidence weights and margin that code
wrote into a conflict between cited facts count too, for bare numbers only, and only they state a
bare number its phrase calls a weight or margin (`margin 0.30`, not a fact's `0.3 GW`); the rest
of its resolution is the reflector's words, not a source's, and grounds nothing. Anything else is
reported at its line, with why the nearest evidence does not ground it and the fact elsewhere that
does state it, if any.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from urllib.parse import urlparse

from deepresearch.evidence.binding import Bound
from deepresearch.evidence.cited import Evidence
from deepresearch.evidence.consistency import backwards, contradictions
from deepresearch.evidence.judge import Judgement, judge_together, missing_numbers
from deepresearch.evidence.number_match import same_value
from deepresearch.evidence.quantities import Quantity, quantities
from deepresearch.evidence.series import misplaced
from deepresearch.evidence.terms import terms_of
from deepresearch.report.blocks import Block
from deepresearch.report.number_scope import Scope, scopes
from deepresearch.report.violation import Violation
from deepresearch.state.model import Fact, Support, TaskDoc, Verified


@dataclass(frozen=True)
class Judged:
    """One number the report states, where, and whether (and how) the cited facts ground it."""

    bound: Bound
    line: int
    grounded: bool
    cited: tuple[str, ...]  # the source IDs cited in its sentence or row
    how: str = ""  # how it is grounded: the fact that states it, or the derivation
    why: str = ""  # why not, when it is not
    source: Bound | None = None  # the fact's number that states it

    @property
    def quantity(self) -> Quantity:
        """The number as read."""
        return self.bound.quantity


# Labels of a web address's host that name no publisher: `www.stats.gov.vl` is the statistics office's.
_GENERIC_HOST = frozenset({"www", "gov", "org", "com", "net", "edu", "co", "ac", "example"})


def publishers(doc: TaskDoc, sources: Collection[str]) -> frozenset[str]:
    """The words that name who publishes the sources: their web addresses' hosts (`ncpa.example`),
    top-level domain and generic labels aside."""
    hosts = [(urlparse(s.url).hostname or "").split(".")[:-1] for s in doc.sources if s.id in sources]
    return terms_of(
        " ".join(label.replace("-", " ") for h in hosts for label in h if label not in _GENERIC_HOST)
    )


def counts(fact: Fact) -> bool:
    """Whether a fact is evidence at all: not judged unsupported by the verifier."""
    return fact.support is not Support.UNSUPPORTED


class FactEvidence:
    """Each fact's numbers, read once; evidence per set of cited sources, built once."""

    def __init__(self, doc: TaskDoc) -> None:
        self.doc = doc
        self.by_source: dict[str, list[Fact]] = defaultdict(list)
        for fact in doc.facts:
            for source_id in dict.fromkeys(fact.sources):
                self.by_source[source_id].append(fact)
        self._facts: dict[str, Evidence] = {}
        self._cited: dict[frozenset[str], Evidence] = {}
        self._values: tuple[list[float], list[int]] | None = None  # every fact number's value, sorted

    def of_fact(self, fact: Fact) -> Evidence:
        """The fact's statement and quote as evidence (a partial fact: only what its quote backs)."""
        if fact.id not in self._facts:
            evidence = Evidence.of_fact(fact.id, fact.statement, fact.quote)
            if fact.verified is Verified.PARTIAL:
                lacking = {q.text for q in missing_numbers(fact.statement, [fact.quote])}
                statement = tuple(
                    b for b in evidence.texts[0] if b.text not in lacking or not b.quantity.claim
                )
                evidence = Evidence([statement, *evidence.texts[1:]])
            self._facts[fact.id] = evidence
        return self._facts[fact.id]

    def of_fact_id(self, fact_id: str) -> Evidence:
        """The evidence of the fact with this ID (none when there is no such fact)."""
        fact = self.doc.fact(fact_id)
        return self.of_fact(fact) if fact is not None else Evidence()

    def cited(self, sources: frozenset[str]) -> Evidence:
        """The evidence of every fact (that counts) of the sources, and of their conflicts."""
        if sources not in self._cited:
            facts = {f.id: f for s in sorted(sources) for f in self.by_source.get(s, []) if counts(f)}
            texts = [text for f in facts.values() for text in self.of_fact(f).texts]
            evidence = Evidence(texts, dated=True, names=publishers(self.doc, sources))
            weights = [(c.id, c.weights) for c in self.doc.conflicts if set(c.facts) & set(facts)]
            self._cited[sources] = evidence.with_weights(Evidence.read(weights))
        return self._cited[sources]

    def stating(self, bound: Bound) -> Fact | None:
        """A fact anywhere in task.md that states the number for the same thing (for the hint):
        only the facts with a number of its value, to its written precision, are asked."""
        if self._values is None:
            pairs = sorted(
                (abs(float(r.value)), index)
                for index, fact in enumerate(self.doc.facts)
                for q in (
                    *quantities(fact.statement, claims_only=False),
                    *quantities(fact.quote, claims_only=False),
                )
                for r in (*q.readings, *q.bare)
            )
            self._values = ([v for v, _ in pairs], [i for _, i in pairs])
        values, owners = self._values
        near: set[int] = set()
        for r in (*bound.quantity.readings, *bound.quantity.bare):
            v = abs(float(r.value))
            width = min(float(r.exact) / 2, 0.05 * v) + 1e-9 * v
            near.update(owners[bisect_left(values, v - width) : bisect_right(values, v + width)])
        for index in sorted(near):
            fact = self.doc.facts[index]
            if self.of_fact(fact).stating(bound)[0] is not None:
                return fact
        return None


def _judge_scope(scope: Scope, evidence: Evidence) -> list[Judgement]:
    """Each number of the scope: stated by the evidence, else derived (evidence/judge.py)."""
    claims = [bound for bound, _ in scope.numbers]
    verdicts = judge_together(
        claims, evidence, scope.earlier, scope.spans, where=f"this {scope.kind}", distinct=True
    )
    stated = [v.source for v in verdicts]
    against = {
        **misplaced(claims, evidence),
        **backwards(scope.text, claims, stated),
        **contradictions(scope.text, claims, scope.spans),
    }
    for index, why in against.items():
        verdicts[index] = Judgement(False, "", why)  # the sentence cannot be right as written
    return verdicts


def judge_numbers(
    blocks: list[Block],
    doc: TaskDoc,
    evidence: FactEvidence | None = None,
    lines: Collection[int] | None = None,
) -> Iterator[Judged]:
    """Every number stated in the blocks that make claims (those on `lines`, when given), judged
    where it is stated. A number derived once may be repeated where the same sources are cited."""
    evidence = evidence or FactEvidence(doc)
    derived: list[tuple[frozenset[str], Bound]] = []
    for scope in scopes(blocks, lines):
        if not scope.numbers:
            continue
        cited = evidence.cited(frozenset(scope.cited)) if scope.cited else Evidence()
        verdicts = _judge_scope(scope, cited)
        for index, closes in scope.closes.items():
            verdicts[index] = _closed(scope.numbers[index][0], verdicts[index], closes, evidence)
        for index, word in scope.owners.items():
            owned = whose(word, scope.cited, evidence.doc)
            if owned and len(owned) < len(scope.cited):
                verdicts[index] = _owned(scope.numbers[index][0], verdicts[index], owned, evidence, word)
        for (bound, line), verdict in zip(scope.numbers, verdicts, strict=True):
            if verdict.grounded and verdict.how.startswith("derived"):
                derived.append((frozenset(scope.cited), replace(bound, origin=f"line {line}")))
            elif not verdict.grounded:
                verdict = _repeated(bound, scope, derived) or verdict
            yield Judged(bound, line, verdict.grounded, scope.cited, verdict.how, verdict.why, verdict.source)


def whose(word: str, cited: Collection[str], doc: TaskDoc) -> tuple[str, ...]:
    """The cited sources a possessive's word names (`the blog's`: a blog; `AHPA's`: ahpa.example)."""
    terms = terms_of(word)  # (its kind by its whole name: `the review's` is no peer-reviewed source's)
    return tuple(
        s.id
        for s in doc.sources
        if s.id in cited and (word.lower() == s.type or (terms and terms <= publishers(doc, {s.id})))
    )


def _owned(
    bound: Bound, verdict: Judgement, owned: tuple[str, ...], evidence: FactEvidence, word: str
) -> Judgement:
    """A number the sentence gives as a cited source's (`the blog's 250,000`) must be one of that
    source's figures (its value in its unit, for whatever year), not another cited source's."""
    if not verdict.grounded or verdict.source is None or verdict.how.startswith("derived"):
        return verdict
    fact = evidence.doc.fact(verdict.source.origin)
    if fact is None or set(fact.sources) & set(owned):
        return verdict
    q = bound.quantity
    if any(
        i.quantity.claim and i.quantity.dimension == q.dimension and same_value(q, i.quantity)
        for text in evidence.cited(frozenset(owned)).texts
        for i in text
    ):
        return verdict
    cites = "".join(f"[{s}]" for s in owned)
    return Judgement(False, "", f"{fact.id} states it, but the sentence gives it as {word}'s ({cites})")


def _closed(bound: Bound, verdict: Judgement, closes: tuple[str, ...], evidence: FactEvidence) -> Judgement:
    """A number stated by a fact of a source that the citation closing its clause does not cite is
    stated by that citation's facts, or not at all: where a sentence cites several sources, the one
    after a number says whose figure it is (`the industry's 4.9 GW [S03]`)."""
    if not verdict.grounded or verdict.source is None or verdict.how.startswith("derived"):
        return verdict
    fact = evidence.doc.fact(verdict.source.origin)
    if fact is None or set(fact.sources) & set(closes):
        return verdict  # (a conflict's weight, or a fact the citation cites)
    stated, why = evidence.cited(frozenset(closes)).stating(bound)
    if stated is not None:
        return Judgement(True, f'stated by {stated.origin} ("{stated.text}")', source=stated)
    cites = "".join(f"[{s}]" for s in closes)
    return Judgement(
        False,
        "",
        f"{fact.id} states it, but the citation closing its clause is {cites}" + (f" ({why})" if why else ""),
    )


def _repeated(bound: Bound, scope: Scope, derived: list[tuple[frozenset[str], Bound]]) -> Judgement | None:
    """The number as derived earlier in the report from sources this sentence cites too."""
    earlier = Evidence([tuple(b for cited, b in derived if cited and cited <= set(scope.cited))])
    stated, _ = earlier.stating(bound)
    return Judgement(True, f"derived on {stated.origin}, from the sources cited here") if stated else None


def explanation(judged: Judged) -> str:
    """How a number is grounded, or why it is not: one line for `deepresearch check --explain`."""
    cites = "".join(f"[{s}]" for s in judged.cited) or "nothing cited"
    if judged.grounded:
        return f"{judged.line}: {judged.bound.text} ({cites}): {judged.how}"
    return f"{judged.line}: {judged.bound.text} ({cites}): NOT grounded" + (
        f": {judged.why}" if judged.why else ""
    )


def number_violations(blocks: list[Block], doc: TaskDoc) -> list[Violation]:
    """An `ungrounded_number` violation for each number the cited facts neither state nor derive."""
    evidence = FactEvidence(doc)
    return [
        Violation(judged.line, "ungrounded_number", _message(judged, evidence))
        for judged in judge_numbers(blocks, doc, evidence)
        if not judged.grounded
    ]


def _message(judged: Judged, evidence: FactEvidence) -> str:
    cites = "".join(f"[{s}]" for s in judged.cited)
    where = (
        f"the facts of the sources cited where it is stated ({cites})"
        if cites
        else "any cited fact (nothing is cited where it is stated)"
    )
    why = f": {judged.why}" if judged.why else ""
    other = evidence.stating(judged.bound)
    if other is not None and not counts(other):
        reason = f" ({other.support_reason})" if other.support_reason else ""
        hint = (
            f"; {other.id} states it, but the verifier judged {other.id} unsupported by its quote{reason}, "
            "so it is not evidence: state what a supported fact gives, or remove it"
        )
    elif other is not None and not set(other.sources) <= set(judged.cited):
        hint = f"; {other.id} states it: cite {''.join(f'[{s}]' for s in other.sources)} for it"
    else:
        hint = (
            "; state only what the cited facts give for this (a difference, sum, ratio, growth rate or "
            "share of their numbers only where the sentence says so), or remove it"
        )
    return f"{judged.bound.text} is not grounded in {where}{why}{hint}."
