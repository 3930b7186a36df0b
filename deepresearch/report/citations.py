"""Citations in a report: `[S01]`, adjacent groups `[S01][S03]`, and the tolerated `[S01, S03]`.

A *citation group* is a run of bracketed citations separated only by spaces: it supports the claim
it follows. `[S01, S03]` and full-width brackets `【S01】` are accepted everywhere (checks,
References, HTML links) but marked non-canonical, so a repair prompt can ask for `[S01][S03]`;
they are not a violation, because they are just as unambiguous.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepresearch.report.blocks import Block, body_blocks

# One bracket: an opening bracket, one or more source IDs separated by , ; ， 、 and a closing bracket.
BRACKET_RE = re.compile(r"[\[【]\s*(S\d+(?:\s*[,;，、；]\s*S\d+)*)\s*[\]】]")
_ID_RE = re.compile(r"S\d+")
_GAP_RE = re.compile(r"[ \t]*")


@dataclass(frozen=True)
class CitationGroup:
    """Adjacent citations that together support one claim."""

    ids: tuple[str, ...]  # source IDs in order of appearance, duplicates removed
    line: int  # 1-based report line where the group starts
    start: int  # offset of the group in its block's text
    end: int
    canonical: bool  # written as `[S01]` or `[S01][S03]`


def bracket_ids(bracket: str) -> list[str]:
    """The source IDs inside one matched bracket, in order."""
    return _ID_RE.findall(bracket)


def find_groups(text: str, first_line: int = 1) -> list[CitationGroup]:
    """The citation groups in `text`, whose first line is report line `first_line`."""
    groups: list[CitationGroup] = []
    pending: list[re.Match[str]] = []
    for match in BRACKET_RE.finditer(text):
        if pending and not _GAP_RE.fullmatch(text, pending[-1].end(), match.start()):
            groups.append(_group(text, pending, first_line))
            pending = []
        pending.append(match)
    if pending:
        groups.append(_group(text, pending, first_line))
    return groups


def _group(text: str, matches: list[re.Match[str]], first_line: int) -> CitationGroup:
    ids: list[str] = []
    for match in matches:
        ids.extend(i for i in bracket_ids(match.group(1)) if i not in ids)
    canonical = all(re.fullmatch(r"\[S\d+\]", m.group()) for m in matches)
    start, end = matches[0].start(), matches[-1].end()
    line = first_line + text.count("\n", 0, start)
    return CitationGroup(tuple(ids), line, start, end, canonical)


def block_groups(block: Block) -> list[CitationGroup]:
    """The citation groups of one block."""
    return find_groups(block.text, block.line)


def find_citations(report_text: str) -> list[CitationGroup]:
    """Every citation group in the report body (code and generated sections ignored), in order."""
    return [group for block in body_blocks(report_text) for group in block_groups(block)]


def cited_in_order(report_text: str) -> list[str]:
    """Source IDs in order of first citation in the report body."""
    seen: dict[str, None] = {}
    for group in find_citations(report_text):
        for source_id in group.ids:
            seen.setdefault(source_id, None)
    return list(seen)


def strip_citations(text: str) -> str:
    """`text` with every citation bracket removed (to judge what prose is left)."""
    return BRACKET_RE.sub("", text)
