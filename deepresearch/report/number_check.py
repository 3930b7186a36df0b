"""ungrounded_number: each number a report states must come from the facts it cites.

A number in a block that makes claims (years, dates, citation IDs, section numbers and list ordinals
are not claims: evidence/quantities.py) must be found, after normalisation, in a fact backed by a
source cited in the same top-level block (the paragraph, or the whole list or table), or follow from
such numbers (difference, ratio, growth rate, sum: recomputed and accepted within rounding). A fact
contributes its quote's numbers and its statement's; for a fact marked `Verified: partial` only the
statement numbers its quote grounds. The code-computed evidence weights of a conflict between cited
facts count too. Anything else is reported at its line, with the fact that does state it, if any.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

from deepresearch.evidence.number_match import Pool, found
from deepresearch.evidence.quantities import Quantity, prepare, quantities
from deepresearch.report.blocks import Block
from deepresearch.report.citations import block_groups
from deepresearch.report.sentences import makes_claims
from deepresearch.report.violation import Violation
from deepresearch.state.model import Fact, TaskDoc, Verified


@dataclass(frozen=True)
class Judged:
    """One number the report states, where, and whether the cited facts ground it."""

    quantity: Quantity
    line: int
    grounded: bool
    cited: tuple[str, ...]  # the source IDs cited in its block's scope


class _Evidence:
    """Each fact's numbers, read once; pools per set of cited sources, built once."""

    def __init__(self, doc: TaskDoc) -> None:
        self.doc = doc
        self.by_source: dict[str, list[Fact]] = defaultdict(list)
        for fact in doc.facts:
            for source_id in dict.fromkeys(fact.sources):
                self.by_source[source_id].append(fact)
        self._facts: dict[str, list[Quantity]] = {}
        self._pools: dict[frozenset[str], Pool] = {}
        self._by_value: defaultdict[Decimal, list[Fact]] | None = None

    def fact_numbers(self, fact: Fact) -> list[Quantity]:
        if fact.id not in self._facts:
            quote = quantities(fact.quote, claims_only=False)
            stated = quantities(fact.statement, claims_only=False)
            if fact.verified is Verified.PARTIAL:  # only what its quote backs
                backing = Pool(quote)
                stated = [q for q in stated if backing.grounds(q)]
            self._facts[fact.id] = quote + stated
        return self._facts[fact.id]

    def pool(self, cited: frozenset[str]) -> Pool:
        if cited not in self._pools:
            facts = {f.id: f for s in sorted(cited) for f in self.by_source.get(s, [])}
            numbers = [q for f in facts.values() for q in self.fact_numbers(f)]
            for conflict in self.doc.conflicts:
                if set(conflict.facts) & set(facts):
                    numbers += quantities(conflict.resolution, claims_only=False)
            self._pools[cited] = Pool(numbers)
        return self._pools[cited]

    def stated_by(self, quantity: Quantity) -> Fact | None:
        """A fact anywhere in task.md that states the number exactly (for the hint), found through
        an index of every fact's values, built on first use."""
        if self._by_value is None:
            self._by_value = defaultdict(list)
            for fact in self.doc.facts:
                for q in self.fact_numbers(fact):
                    for reading in dict.fromkeys((*q.readings, *q.bare)):
                        self._by_value[reading.value.normalize()].append(fact)
        for reading in (*quantity.readings, *quantity.bare):
            for fact in self._by_value.get(reading.value.normalize(), []):
                if found(quantity, self.fact_numbers(fact)):
                    return fact
        return None


def _scopes(blocks: list[Block]) -> dict[int, frozenset[str]]:
    cited: dict[int, set[str]] = defaultdict(set)
    for block in blocks:
        for group in block_groups(block):
            cited[block.scope].update(group.ids)
    return {scope: frozenset(ids) for scope, ids in cited.items()}


def judge_numbers(blocks: list[Block], doc: TaskDoc, evidence: _Evidence | None = None) -> Iterator[Judged]:
    """Every number stated in the blocks that make claims, judged against the facts cited there."""
    evidence = evidence or _Evidence(doc)
    scopes = _scopes(blocks)
    for block in blocks:
        if not makes_claims(block):
            continue
        cited = scopes.get(block.scope, frozenset())
        text = prepare(block.text)
        for quantity in quantities(block.text):
            grounded = bool(cited) and evidence.pool(cited).grounds(quantity)
            line = block.line + text.count("\n", 0, quantity.start)
            yield Judged(quantity, line, grounded, tuple(sorted(cited)))


def number_violations(blocks: list[Block], doc: TaskDoc) -> list[Violation]:
    """An `ungrounded_number` violation for each number the cited facts neither state nor derive."""
    evidence = _Evidence(doc)
    found_: list[Violation] = []
    for judged in judge_numbers(blocks, doc, evidence):
        if not judged.grounded:
            found_.append(Violation(judged.line, "ungrounded_number", _message(judged, evidence)))
    return found_


def _message(judged: Judged, evidence: _Evidence) -> str:
    cites = "".join(f"[{s}]" for s in judged.cited)
    where = (
        f"no fact of the sources cited here ({cites})" if cites else "no cited fact (nothing is cited here)"
    )
    other = evidence.stated_by(judged.quantity)
    hint = (
        f"; {other.id} states it: cite {''.join(f'[{s}]' for s in other.sources)} for it"
        if other is not None
        else "; state only numbers that task.md's facts give (or a difference, ratio, growth rate or "
        "sum of them), or remove it"
    )
    return f"{judged.quantity.text} is stated by {where}, nor derived from their numbers{hint}."
