"""The verifier's verdicts in the report: unsupported_claim at its line, the statistics, report.html's
marks and knowledge.json's measures."""

from __future__ import annotations

import re

from deepresearch.evidence.support import SupportStore, Verdict, claim_key
from deepresearch.report.blocks import body_blocks
from deepresearch.report.check import check_report
from deepresearch.report.claims import cited_claims
from deepresearch.report.html import render_html
from deepresearch.report.knowledge import knowledge_export
from deepresearch.report.measures import measure
from deepresearch.report.references import finalize_report
from deepresearch.state.model import Support
from tests.report.conftest import Run

REPORT = """\
# Electric cars

## Market

Electric cars sold 17 million in 2024 [S01]. They are
now more than 20% of new cars [S01][S02]. Everyone will drive one soon [S02].

| Year | Sales |
| --- | --- |
| 2024 | 17 million [S01] |
"""
VERDICTS = {
    "Electric cars sold 17 million in 2024 [S01].": Verdict(Support.SUPPORTED, "Fact-001 gives 17 million."),
    "They are now more than 20% of new cars [S01][S02].": Verdict(Support.PARTIAL, "'now' is not stated."),
    "Everyone will drive one soon [S02].": Verdict(Support.UNSUPPORTED, "No fact forecasts this."),
}


def _judged(run: Run) -> Run:
    run.doc.conflicts.clear()
    SupportStore(run.root).save({claim_key(text): verdict for text, verdict in VERDICTS.items()})
    return run


def test_claims_are_the_cited_sentences_with_their_lines() -> None:
    claims = [(c.line, c.text, c.sources) for c in cited_claims(body_blocks(REPORT))]
    assert claims == [
        (5, "Electric cars sold 17 million in 2024 [S01].", ("S01",)),
        (5, "They are now more than 20% of new cars [S01][S02].", ("S01", "S02")),
        (6, "Everyone will drive one soon [S02].", ("S02",)),
        (10, "2024 | 17 million [S01]", ("S01",)),
    ]


def test_an_unsupported_sentence_is_a_violation_at_its_line(run: Run) -> None:
    found = [(v.line, v.kind, v.message) for v in check_report(REPORT, _judged(run).doc, run.root)]
    assert found == [
        (
            6,
            "unsupported_claim",
            "the verifier judged this sentence unsupported by the facts it cites (No fact forecasts this); "
            "state only what those facts say, cite the fact that says it, or remove the sentence.",
        )
    ]


def test_statistics_html_and_measures(run: Run) -> None:
    doc = _judged(run).doc
    final = finalize_report(REPORT, doc, run.root, [])
    assert final.rstrip().splitlines()[-1] == (
        "| Claims supported | 1 of 3 (33%) · 1 partial · 1 unsupported · 1 not checked |"
    )
    html = render_html(final, doc, run.root)
    spans = re.findall(r'<span class="claim claim-(\w+)" title="([^"]*)">', html)
    assert spans == [
        ("supported", "Claim supported by the cited facts: Fact-001 gives 17 million."),
        ("partial", "Claim partly supported by the cited facts: &#x27;now&#x27; is not stated."),
        ("partial", "Claim partly supported by the cited facts: &#x27;now&#x27; is not stated."),
        ("unsupported", "Claim not supported by the cited facts: No fact forecasts this."),
        ("unchecked", "Support not checked"),
    ]
    assert html.count('<sup class="support">') == 4  # one sign per claim, after its last citation
    measures = knowledge_export(doc, measure(REPORT, doc, run.root).measures)["measures"]
    assert measures == {
        "facts_total": 7, "facts_verified": 6, "claims_checked": 3, "claims_supported": 1,
        "numbers_total": 3, "numbers_grounded": 3, "sources": 7, "independent_sources": 7, "copies_folded": 0,
    }  # fmt: skip


def test_copies_are_folded_in_the_measures_and_the_sides_of_a_conflict(run: Run) -> None:
    doc = run.doc
    copy = doc.source("S04")
    assert copy is not None
    copy.copy_of = "S03"  # the forum post repeats BNEF's text
    measures = knowledge_export(doc)["measures"]
    assert (measures["sources"], measures["independent_sources"], measures["copies_folded"]) == (7, 6, 1)
    # CONF-1 opposes Fact-003 [S03] and Fact-004 [S04]: a paragraph citing S03 now cites both sides.
    report = "# R\n\n## Costs\n\nPack prices fell 20% to $115/kWh in 2024, and by about 8% [S03].\n"
    kinds = [v.kind for v in check_report(report, doc, run.root)]
    assert "unaddressed_conflict" not in kinds
