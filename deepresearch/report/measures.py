"""What a report rests on, in numbers every run measures: facts verified, claims supported by the
verifier, numbers grounded in the cited facts, and independent sources (copies folded).

`claims_supported` of `claims_checked` is our FACT-style citation accuracy: the verifier judged
each cited sentence against the facts it cites; `claims_checked` counts those it judged (supported,
partial or unsupported), not the sentences it could not check. knowledge.json carries these as its
`measures` object, with exactly the keys of `Measures`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from deepresearch.evidence.support import SupportRecord, SupportStore
from deepresearch.report.blocks import body_blocks
from deepresearch.report.claims import SupportCounts, support_counts
from deepresearch.report.number_check import judge_numbers
from deepresearch.state.model import TaskDoc, Verified


@dataclass(frozen=True)
class Measures:
    """The run's measures (knowledge.json `measures`)."""

    facts_total: int
    facts_verified: int
    claims_checked: int
    claims_supported: int
    numbers_total: int
    numbers_grounded: int
    sources: int
    independent_sources: int
    copies_folded: int

    def to_dict(self) -> dict[str, int]:
        """JSON-ready, in field order."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class ReportMeasures:
    """The measures and the details the References statistics show."""

    measures: Measures
    support: SupportCounts
    note: str  # why claims were not checked, when they were not
    facts_partial: int


def measure(report_body: str, doc: TaskDoc, workspace_root: Path) -> ReportMeasures:
    """The measures of a report body (no References) against task.md and the stored verdicts."""
    blocks = body_blocks(report_body)
    record: SupportRecord = SupportStore(workspace_root).load()
    judged = list(judge_numbers(blocks, doc))
    counts = support_counts(blocks, record)
    measures = dataclasses.replace(
        doc_measures(doc),
        claims_checked=counts.checked,
        claims_supported=counts.supported,
        numbers_total=len(judged),
        numbers_grounded=sum(j.grounded for j in judged),
    )
    partial = sum(f.verified is Verified.PARTIAL for f in doc.facts)
    return ReportMeasures(measures, counts, record.note, partial)


def doc_measures(doc: TaskDoc) -> Measures:
    """The measures that need no report (claims and numbers 0)."""
    independent = len(doc.independent([s.id for s in doc.sources]))
    return Measures(
        len(doc.facts), sum(f.verified is Verified.YES for f in doc.facts), 0, 0, 0, 0,
        len(doc.sources), independent, len(doc.sources) - independent,
    )  # fmt: skip
