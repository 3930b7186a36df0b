"""The report's claims as the verifier judges them: each sentence that carries a citation.

A claim is one sentence (report/sentences.py) of a block that makes claims, with the source IDs
it cites; its key (evidence/support.py) finds the verifier's verdict on it. `unsupported_claim` is
the check violation for a claim the verifier judged unsupported by the facts it cites.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from deepresearch.evidence.support import SupportRecord, Verdict, claim_key
from deepresearch.report.blocks import Block
from deepresearch.report.citations import find_groups
from deepresearch.report.sentences import makes_claims, sentence_spans
from deepresearch.report.violation import Violation
from deepresearch.state.model import Support


@dataclass(frozen=True)
class Claim:
    """One cited sentence of the report."""

    key: str
    line: int  # the report line where the sentence starts
    text: str  # the sentence with its citations, whitespace collapsed
    sources: tuple[str, ...]  # the source IDs it cites, in order


def cited_claims(blocks: list[Block]) -> Iterator[Claim]:
    """Every sentence that cites a source, in the blocks that make claims."""
    for block in blocks:
        if not makes_claims(block):
            continue
        for start, end in sentence_spans(block.text):
            ids = tuple(dict.fromkeys(i for g in find_groups(block.text[start:end]) for i in g.ids))
            if ids:
                text = " ".join(block.text[start:end].split())
                line = block.line + block.text.count("\n", 0, start)
                yield Claim(claim_key(text), line, text, ids)


def verdict_of(claim: Claim, record: SupportRecord) -> Verdict:
    """The verifier's verdict on the claim (unchecked when it has none)."""
    return record.verdicts.get(claim.key, Verdict(Support.UNCHECKED))


@dataclass(frozen=True)
class SupportCounts:
    """How the report's claims were judged."""

    claims: int
    supported: int
    partial: int
    unsupported: int

    @property
    def checked(self) -> int:
        """Claims the verifier judged: supported + partial + unsupported."""
        return self.supported + self.partial + self.unsupported


def support_counts(blocks: list[Block], record: SupportRecord) -> SupportCounts:
    """Counts of the claims by verdict."""
    counts = Counter(verdict_of(c, record).support for c in cited_claims(blocks))
    return SupportCounts(
        sum(counts.values()), counts[Support.SUPPORTED], counts[Support.PARTIAL], counts[Support.UNSUPPORTED]
    )


def unsupported_violations(blocks: list[Block], record: SupportRecord) -> list[Violation]:
    """An `unsupported_claim` violation for each claim the verifier judged unsupported."""
    found = []
    for claim in cited_claims(blocks):
        verdict = verdict_of(claim, record)
        if verdict.support is Support.UNSUPPORTED:
            reason = verdict.reason.rstrip(".") or "no reason given"
            message = (
                f"the verifier judged this sentence unsupported by the facts it cites ({reason}); "
                "state only what those facts say, cite the fact that says it, or remove the sentence."
            )
            found.append(Violation(claim.line, "unsupported_claim", message))
    return found
