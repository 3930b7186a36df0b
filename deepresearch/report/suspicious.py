"""suspicious_number: a report sentence that states a number from a suspicious source must cite it.

A source flagged suspicious (instruction-like text aimed at AI agents, sources/injection.py) may
still be quoted, but the reader must see where its numbers come from: in a real run an injected
figure leaked, uncited, into "figures in circulation range from 3.8 to 9.9 GW". So for every number
written in a fact that cites a suspicious source (statement or quote, read as `evidence.numbers`
reads numbers; years such as 2024 are left out), a sentence of the report that states the same
number must cite that source, or cite another source whose own facts state the number (then the
number does not rest on the suspicious page alone).
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from deepresearch.evidence.numbers import Mention, mentions, normalize
from deepresearch.report.blocks import Block
from deepresearch.report.citations import BRACKET_RE, bracket_ids, strip_citations
from deepresearch.report.sentences import makes_claims, split_sentences
from deepresearch.state.model import TaskDoc

KIND = "suspicious_number"
YEARS = (1800, 2200)  # four-digit integers in this range are read as years, not quantities


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
        for sentence in split_sentences(block.text):
            cited = {i for match in BRACKET_RE.finditer(sentence) for i in bracket_ids(match.group(1))}
            prose = strip_citations(sentence)
            for mention in _quantities(prose):
                owners = from_flagged.get(mention.value, set())
                if not owners or cited & owners or cited & from_others.get(mention.value, set()):
                    continue
                written = normalize(prose)[mention.start : mention.end]
                ids = "".join(f"[{i}]" for i in sorted(owners))
                found.append(
                    (
                        _line(block, written),
                        KIND,
                        f"states {written}, a number from {ids}, a source flagged suspicious (it addresses "
                        f"AI agents), without citing it; cite {ids} where the number is stated, so the "
                        "reader sees where it comes from, or leave the number out.",
                    )
                )
                break  # one violation per sentence is enough to send it back
    return found


def _numbers_by_source(
    doc: TaskDoc, flagged: set[str]
) -> tuple[dict[Decimal, set[str]], dict[Decimal, set[str]]]:
    """Each number stated in a fact → the suspicious sources citing it, and the other sources."""
    suspicious: dict[Decimal, set[str]] = defaultdict(set)
    others: dict[Decimal, set[str]] = defaultdict(set)
    for fact in doc.facts:
        values = {m.value for m in _quantities(f"{fact.statement}\n{fact.quote}")}
        for source_id in fact.sources:
            target = suspicious if source_id in flagged else others
            for value in values:
                target[value].add(source_id)
    return suspicious, others


def _quantities(text: str) -> list[Mention]:
    """The numbers of `text`, without years."""
    return [m for m in mentions(text) if not _is_year(m)]


def _is_year(mention: Mention) -> bool:
    value = mention.value
    return (
        value == value.to_integral_value()
        and YEARS[0] <= value <= YEARS[1]
        and mention.end - mention.start == 4
    )


def _line(block: Block, written: str) -> int:
    """The report line where `written` first appears in the block (else the block's first line)."""
    at = normalize(block.text).find(written)
    return block.line + (normalize(block.text).count("\n", 0, at) if at >= 0 else 0)
