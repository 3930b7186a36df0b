"""A report's markdown as line-addressed blocks: the units every check and the renderer work on.

One parser configuration (CommonMark + pipe tables + strikethrough, raw HTML off) is shared by the
checks and the HTML renderer, so what the check sees is what the reader sees. Code blocks are left
out and code spans are blanked, so a citation or URL shown as code is never counted. The sections
written by code (References, Verification) are left out as well, and so is the notice code puts at
the top of a report that did not pass (a line starting with NOTICE_PREFIX, and the blank line before it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

BlockKind = Literal["paragraph", "list_item", "table_header", "table_row", "heading", "definition"]

# Headings of sections that code writes (or that the synthesizer must not write): any of these is
# dropped before checking and replaced when finalizing. Compared case-insensitively, colon stripped.
GENERATED_HEADINGS = frozenset(
    {"references", "bibliography", "verification", "参考文献", "参考资料", "引用来源", "验证"}
)

_BACKTICKS = re.compile(r"`+")
NOTICE_PREFIX = "> **deepresearch:"  # how the notice at the top of a report that did not pass starts


@dataclass(frozen=True)
class Block:
    """One unit of the report: a paragraph, a list item's paragraph, a table row, a heading..."""

    kind: BlockKind
    line: int  # 1-based line of the block's first line in the report
    text: str  # inline source with code spans blanked; text line i is report line `line + i`
    scope: int  # index of the top-level block (paragraph, list, table, quote) it belongs to
    quoted: bool = False  # inside a blockquote
    level: int = 0  # heading level (headings only)


def new_parser() -> MarkdownIt:
    """The report's markdown dialect: CommonMark with pipe tables and strikethrough, no raw HTML."""
    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def blank_code_spans(text: str) -> str:
    """`text` with every code span's characters (backticks included) replaced by spaces.

    Follows CommonMark: a run of N backticks opens a span closed by the next run of exactly N.
    Newlines are kept so offsets and line numbers still match the source.
    """
    chars = list(text)
    pos = 0
    while match := _BACKTICKS.search(text, pos):
        closing = next(
            (m for m in _BACKTICKS.finditer(text, match.end()) if len(m.group()) == len(match.group())),
            None,
        )
        if closing is None:
            pos = match.end()
            continue
        for i in range(match.start(), closing.end()):
            if chars[i] != "\n":
                chars[i] = " "
        pos = closing.end()
    return "".join(chars)


def heading_title(text: str) -> str:
    """A heading's text normalised for comparison: no emphasis marks, no trailing colon, lower-case."""
    return text.strip().strip("*_ ").rstrip(":：").strip().lower()


def generated_ranges(report_text: str) -> list[tuple[int, int]]:
    """0-based half-open line ranges of the generated sections (References, Verification...).

    A section runs from its heading to the next heading of the same or a higher level.
    """
    tokens = new_parser().parse(report_text)
    headings = [
        (int(tok.tag[1]), tok.map[0], heading_title(tokens[i + 1].content))
        for i, tok in enumerate(tokens)
        if tok.type == "heading_open" and tok.map is not None
    ]
    lines = report_text.splitlines()
    total = len(lines)
    ranges = _notice_ranges(lines)
    for index, (level, start, title) in enumerate(headings):
        if title not in GENERATED_HEADINGS or any(s <= start < e for s, e in ranges):
            continue
        end = next((s for lvl, s, _ in headings[index + 1 :] if lvl <= level), total)
        ranges.append((start, end))
    return ranges


def _notice_ranges(lines: list[str]) -> list[tuple[int, int]]:
    """The notice lines code put at the report's top, each with the blank line before it."""
    found = []
    for n, line in enumerate(lines):
        if line.startswith(NOTICE_PREFIX):
            found.append((n - 1 if n and not lines[n - 1].strip() else n, n + 1))
    return found


def strip_generated_sections(report_text: str) -> str:
    """The report without its References and Verification sections, trailing blank lines removed."""
    lines = report_text.splitlines()
    drop = {n for start, end in generated_ranges(report_text) for n in range(start, end)}
    kept = [line for n, line in enumerate(lines) if n not in drop]
    return "\n".join(kept).rstrip() + "\n" if any(line.strip() for line in kept) else ""


def body_blocks(report_text: str) -> list[Block]:
    """Every block of the report outside code blocks and generated sections, in document order."""
    env: dict[str, object] = {}
    tokens = new_parser().parse(report_text, env)
    walker = _Walker(generated_ranges(report_text))
    for index, tok in enumerate(tokens):
        walker.visit(tok, tokens[index - 1] if index else None)
    walker.blocks.extend(_definition_blocks(report_text, env, walker.skip, walker.scope))
    return sorted(walker.blocks, key=lambda b: b.line)


class _Walker:
    """Turns markdown-it's flat token stream into blocks, tracking containers as it goes."""

    def __init__(self, skip: list[tuple[int, int]]) -> None:
        self.skip = skip
        self.blocks: list[Block] = []
        self.scope = -1
        self.open: list[str] = []  # stack of open container token types
        self.row: list[str] = []
        self.row_line = 0

    def visit(self, tok: Token, previous: Token | None) -> None:
        if tok.level == 0 and tok.nesting >= 0:
            self.scope += 1
        if tok.nesting == -1 and self.open:
            self.open.pop()
        if tok.type == "tr_open":
            self.row, self.row_line = [], (tok.map[0] if tok.map else 0)
        elif tok.type == "tr_close":
            kind: BlockKind = "table_header" if "thead_open" in self.open else "table_row"
            self._add(kind, self.row_line, " | ".join(self.row))
        elif tok.type == "inline" and tok.map is not None:
            text = blank_code_spans(tok.content)
            if "tr_open" in self.open:
                self.row.append(text.replace("\n", " "))
            elif previous is not None and previous.type == "heading_open":
                self._add("heading", tok.map[0], text, level=int(previous.tag[1]))
            else:
                self._add("list_item" if "list_item_open" in self.open else "paragraph", tok.map[0], text)
        if tok.nesting == 1:
            self.open.append(tok.type)

    def _add(self, kind: BlockKind, line: int, text: str, level: int = 0) -> None:
        if not _skipped(line, self.skip):
            quoted = "blockquote_open" in self.open
            self.blocks.append(Block(kind, line + 1, text, self.scope, quoted, level))


def _skipped(line: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start <= line < end for start, end in ranges)


def _definition_blocks(
    report_text: str, env: dict[str, object], skip: list[tuple[int, int]], scope: int
) -> list[Block]:
    """Link reference definitions (`[x]: https://...`): markdown-it consumes them, but their URLs
    are still URLs in the body, so they become blocks of their own."""
    lines = report_text.splitlines()
    references = env.get("references")
    blocks: list[Block] = []
    if not isinstance(references, dict):
        return blocks
    for ref in references.values():
        span = ref.get("map") if isinstance(ref, dict) else None
        if not span or _skipped(span[0], skip):
            continue
        scope += 1
        blocks.append(Block("definition", span[0] + 1, "\n".join(lines[span[0] : span[1]]), scope))
    return blocks
