"""suspicious_number: a report sentence that states a number from a suspicious source must cite it.

A source flagged suspicious (instruction-like text aimed at AI agents, sources/injection.py) may
still be quoted, but the reader must see where its numbers come from: in a real run an injected
figure leaked, uncited, into "figures in circulation range from 3.8 to 9.9 GW". So for every number
written in a fact that cites a suspicious source (statement or quote, read as claims by
`evidence.quantities`: units normalised, so 9,900 MW is 9.9 GW; years, sections and references left
out), a sentence of the report that states the same number must cite that source, or cite another
source whose own facts state the number (then the number does not rest on the suspicious page alone).
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from deepresearch.evidence.quantities import Quantity, quantities
from deepresearch.report.blocks import Block
from deepresearch.report.citations import BRACKET_RE, bracket_ids, strip_citations
from deepresearch.report.sentences import makes_claims, sentence_spans, split_sentences
from deepresearch.state.model import TaskDoc

KIND = "suspicious_number"
Key = tuple[str, Decimal]  # (dimension, value in base units); "" for the digits alone


def suspicious_number_violations(blocks: list[Block], doc: TaskDoc) -> list[tuple[int, str, str]]:
    """(line, kind, message) for each uncited number of a suspicious source (see the module doc)."""
    flagged = doc.suspicious()
    if not flagged:
        return []
    from_flagged, from_others = _numbers_by_source(doc, flagged)
    found: list[tuple[int, str, str]] = []
    for block in blocks:
        if not makes_claims(block):
            continue
        for (start, end), sentence in zip(
            sentence_spans(block.text), split_sentences(block.text), strict=True
        ):
            cited = {i for match in BRACKET_RE.finditer(sentence) for i in bracket_ids(match.group(1))}
            for quantity in quantities(strip_citations(sentence)):
                keys = _keys(quantity, bare=quantity.plain)
                owners = set().union(*(from_flagged.get(k, set()) for k in keys))
                others = set().union(*(from_others.get(k, set()) for k in keys))
                if not owners or cited & (owners | others):
                    continue
                ids = "".join(f"[{i}]" for i in sorted(owners))
                at = block.text.find(quantity.text, start, end)  # the number's own line, if it wraps
                line = block.line + block.text.count("\n", 0, at if at >= 0 else start)
                found.append(
                    (
                        line,
                        KIND,
                        f"states {quantity.text}, a number from {ids}, a source flagged suspicious (it "
                        f"addresses AI agents), without citing it; cite {ids} where the number is stated, "
                        "so the reader sees where it comes from, or leave the number out.",
                    )
                )
                break  # one violation per sentence is enough to send it back
    return found


def _numbers_by_source(doc: TaskDoc, flagged: set[str]) -> tuple[dict[Key, set[str]], dict[Key, set[str]]]:
    """Each number stated in a fact → the suspicious sources citing it, and the other sources."""
    suspicious: dict[Key, set[str]] = defaultdict(set)
    others: dict[Key, set[str]] = defaultdict(set)
    for fact in doc.facts:
        keys = {k for q in quantities(f"{fact.statement}\n{fact.quote}") for k in _keys(q, bare=True)}
        for source_id in fact.sources:
            target = suspicious if source_id in flagged else others
            for key in keys:
                target[key].add(source_id)
    return suspicious, others


def _keys(quantity: Quantity, bare: bool) -> set[Key]:
    """A quantity's values in base units (9.9 GW and 9,900 MW alike), and with `bare` its digits
    alone (a fact's 9.9 GW is matched by a report's unitless 9.9)."""
    keys = {(quantity.dimension, r.value) for r in quantity.readings}
    return keys | {("", r.value) for r in quantity.bare} if bare else keys
