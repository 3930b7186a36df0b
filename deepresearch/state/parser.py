"""Parse task.md text into a `TaskDoc` (docs/architecture.md: task.md): forgiving about form, strict
about meaning.

Layout: YAML front matter between `---` lines, then the sections, each opened by a line
`## <Heading>` with one of the contract's headings (any order, case-insensitive). Only those headings
split sections, so `## Background` inside the request is part of the request; a line that would read
as a contract heading inside Request or Scratchpad is written with a leading backslash (`\\## Facts`).
Table sections hold one markdown table (markdown-it-py's GFM table rule finds its rows) and nothing
else; notes belong in `## Scratchpad`. Every problem raises `StateError` naming the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import mdTrim
from markdown_it.rules_block import StateBlock
from markdown_it.rules_block.table import table as gfm_table

from deepresearch.core.errors import StateError
from deepresearch.state.cells import CellError, unescape_cell
from deepresearch.state.header import parse_front_matter
from deepresearch.state.model import TaskDoc
from deepresearch.state.schema import (
    ALLOWED_HEADINGS,
    OPTIONAL_SECTIONS,
    SECTION_ORDER,
    TABLE_BY_KEY,
    LineMap,
    TableSpec,
    any_heading,
    heading_key,
)
from deepresearch.state.validate import raise_problems, validate_doc

_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def _table_rows(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """markdown-it's GFM table rule, emitting one `table_rows` token (map: the table's lines)
    instead of a token per cell, which made a 5,000-row table slow. It starts where the GFM rule
    starts (header and delimiter rows checked by that rule) and ends where it ends."""
    if not gfm_table(state, start, end, True):
        return False
    if silent:
        return True
    terminators = state.md.block.ruler.getRules("blockquote")
    line = start + 2
    while line < end and state.sCount[line] >= state.blkIndent:
        if any(rule(state, line, end, True) for rule in terminators):
            break
        text = state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]
        if not mdTrim(text) or state.is_code_block(line):
            break
        line += 1
    token = state.push("table_rows", "table", 0)
    token.map = [start, line]
    state.line = line
    return True


# Block structure only: tables and paragraphs (anything that is not a table reads as a paragraph).
_MD = MarkdownIt("zero").disable("inline")
_MD.block.ruler.before("paragraph", "table_rows", _table_rows, {"alt": ["paragraph"]})


@dataclass
class Parsed:
    """A parsed document and where each part of it was written."""

    doc: TaskDoc
    lines: LineMap


@dataclass
class _Section:
    key: str
    heading_line: int  # 1-based
    body: list[str]  # the lines after the heading, up to the next section


def parse_task_md(text: str, path: str = "task.md") -> TaskDoc:
    """Parse and validate task.md text; raise `StateError` naming the line of the first problem(s)."""
    parsed = parse_with_lines(text, path)
    raise_problems(validate_doc(parsed.doc, parsed.lines))
    return parsed.doc


def parse_with_lines(text: str, path: str = "task.md") -> Parsed:
    """Parse task.md text (form and field values only, no cross-reference checks) with its line map."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    body_start = _front_matter_end(lines, path)
    front, front_lines = parse_front_matter("\n".join(lines[1 : body_start - 1]), path, first_line=2)
    line_map = LineMap(path=path, front=front_lines, last_line=max(len(lines) - (lines[-1] == ""), 1))
    sections = _split_sections(lines, body_start, path)
    values: dict[str, Any] = {}
    for key, heading in SECTION_ORDER:
        section = sections.get(key)
        if section is None and key in OPTIONAL_SECTIONS:
            values[key] = [] if key in TABLE_BY_KEY else ""  # written before the section existed
            continue
        if section is None:
            raise StateError(
                f"missing section '## {heading}'; task.md needs all of: {ALLOWED_HEADINGS}",
                path,
                line_map.last_line,
            )
        line_map.sections[key] = section.heading_line
        spec = TABLE_BY_KEY.get(key)
        if spec is None:
            values[key] = _verbatim_text(section.body)
        else:
            values[key], line_map.rows[key] = _parse_table(spec, section, path)
    return Parsed(TaskDoc(front=front, **values), line_map)


def _front_matter_end(lines: list[str], path: str) -> int:
    """The index of the first line after the closing `---` of the front matter."""
    if lines[0].rstrip() != "---":
        raise StateError("expected YAML front matter: task.md must start with a line '---'", path, 1)
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return index + 1
    raise StateError("front matter is not closed: expected a line '---' after the YAML header", path, 1)


def _split_sections(lines: list[str], start: int, path: str) -> dict[str, _Section]:
    sections: dict[str, _Section] = {}
    current: _Section | None = None
    for index in range(start, len(lines)):
        line = lines[index]
        found = heading_key(line)
        if found is not None and found[0] == 0:
            key = found[1]
            if key in sections:
                first = sections[key].heading_line
                raise StateError(
                    f"section '{line.strip()}' appears twice (first on line {first})", path, index + 1
                )
            current = sections[key] = _Section(key, index + 1, [])
        elif current is not None:
            current.body.append(line)
        elif line.strip():
            title = any_heading(line)
            what = f"unknown section heading '## {title}'" if title else "text before the first section"
            raise StateError(f"{what}; allowed headings: {ALLOWED_HEADINGS}", path, index + 1)
    return sections


def _verbatim_text(body: list[str]) -> str:
    """Request / Scratchpad text: kept as written, minus blank lines around it and heading escapes."""
    start, end = 0, len(body)
    while start < end and not body[start].strip():
        start += 1
    while end > start and not body[end - 1].strip():
        end -= 1
    out = []
    for line in body[start:end]:
        found = heading_key(line)
        out.append(line.replace("\\", "", 1) if found is not None else line)
    return "\n".join(out)


def _parse_table(spec: TableSpec, section: _Section, path: str) -> tuple[list[Any], list[int]]:
    """The rows of a table section (an empty section is an empty table), with their lines."""
    offset = section.heading_line + 1  # file line of body[0]
    tables: list[tuple[int, int]] = []
    for token in _MD.parse("\n".join(section.body)):
        if token.map is None:
            continue
        start, end = token.map
        if token.type == "paragraph_open":
            _outside_table(spec, section.body[start], offset + start, bool(tables), path)
        elif token.type == "table_rows" and tables:
            raise StateError(
                f"{spec.heading}: a second table; the section holds one table ({spec.header_text})",
                path,
                offset + start,
            )
        elif token.type == "table_rows":
            tables.append((start, end))
    if not tables:
        return [], []
    start, end = tables[0]
    positions = _header_positions(spec, _cells(section.body[start]), path, offset + start)
    rows: list[Any] = []
    row_lines: list[int] = []
    for index, row in enumerate(range(start + 2, end)):
        rows.append(_parse_row(spec, _cells(section.body[row]), positions, index, path, offset + row))
        row_lines.append(offset + row)
    return rows, row_lines


def _outside_table(spec: TableSpec, line_text: str, line: int, after_table: bool, path: str) -> None:
    """Raise the error for text in a table section that is not part of its table."""
    title = any_heading(line_text)
    if title is not None:
        raise StateError(
            f"unknown section heading '## {title}'; allowed headings: {ALLOWED_HEADINGS}", path, line
        )
    if line_text.lstrip().startswith("|"):
        problem = (
            "a table row after a blank line; the rows of a table follow each other without blank lines"
            if after_table
            else f"not a table: expected the header row | {spec.header_text} |, then a delimiter row"
            f" | {' | '.join('---' for _ in spec.columns)} |"
        )
        raise StateError(f"{spec.heading}: {problem}", path, line)
    shown = line_text.strip()
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    raise StateError(
        f"{spec.heading}: expected only a table with columns {spec.header_text}, found text '{shown}'"
        " (notes belong in ## Scratchpad)",
        path,
        line,
    )


def _cells(line_text: str) -> list[str]:
    """A row's raw cells, split as the GFM table rule splits them: at each pipe not preceded by a
    backslash, outer pipes optional, and the backslash of each `\\|` dropped."""
    cells = [cell.replace("\\|", "|") for cell in _UNESCAPED_PIPE.split(mdTrim(line_text))]
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return cells


def _header_positions(spec: TableSpec, header: list[str], path: str, line: int) -> list[int]:
    """For each spec column, its position in this table's header (columns may come in any order)."""
    names = [" ".join(cell.split()).casefold() for cell in header]
    expected = f"expected columns {spec.header_text}"
    known = {column.header.casefold() for column in spec.columns}
    for position, name in enumerate(names):
        if name not in known:
            raise StateError(
                f"{spec.heading} table: unknown column '{header[position].strip()}'; {expected}", path, line
            )
        if names.index(name) != position:
            raise StateError(
                f"{spec.heading} table: column '{header[position].strip()}' appears twice", path, line
            )
    missing = [
        column.header
        for column in spec.columns
        if column.header.casefold() not in names and not column.optional
    ]
    if missing:
        raise StateError(
            f"{spec.heading} table: missing column(s) {', '.join(missing)}; {expected}", path, line
        )
    # -1: an optional column this table was written without.
    return [names.index(c.header.casefold()) if c.header.casefold() in names else -1 for c in spec.columns]


def _parse_row(
    spec: TableSpec, cells: list[str], positions: list[int], index: int, path: str, line: int
) -> Any:
    label_position = next(
        p for p, c in zip(positions, spec.columns, strict=True) if c.field == spec.label_field
    )
    label_text = unescape_cell(cells[label_position]) if label_position < len(cells) else ""
    label = spec.row_label(label_text, index)
    present = sum(position >= 0 for position in positions)
    if len(cells) != present:
        raise StateError(
            f"{label}: {len(cells)} cells, expected {present} ({spec.header_text}); write a literal | as \\|",
            path,
            line,
        )
    values: dict[str, Any] = {}
    for position, column in zip(positions, spec.columns, strict=True):
        try:
            values[column.field] = column.codec.parse(unescape_cell(cells[position]) if position >= 0 else "")
        except CellError as exc:
            raise StateError(f"{label}: {column.header} {exc}", path, line) from None
    return spec.row_type(**values)
