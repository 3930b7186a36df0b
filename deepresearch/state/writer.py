"""Render a `TaskDoc` as canonical task.md text (written atomically by `core.files.atomic_write`).

One canonical form: sections in contract order, every table with its header even when empty, cells
escaped (see `cells.escape_cell`). `parse_task_md(render_task_md(doc)) == doc` for any valid doc whose
cell text is stripped and uses `\\n` line breaks, and rendering is idempotent.
"""

from __future__ import annotations

from deepresearch.state.cells import escape_cell
from deepresearch.state.header import render_front_matter
from deepresearch.state.model import TaskDoc
from deepresearch.state.schema import SECTION_ORDER, TABLE_BY_KEY, TableSpec, heading_key


def render_task_md(doc: TaskDoc) -> str:
    """The canonical task.md text of `doc`."""
    parts = ["---\n", render_front_matter(doc.front), "---\n"]
    for key, heading in SECTION_ORDER:
        parts.append(f"\n## {heading}\n\n")
        spec = TABLE_BY_KEY.get(key)
        if spec is None:
            text = _verbatim(getattr(doc, key))
            if text:
                parts.append(text + "\n")
        else:
            parts.append(_table(spec, getattr(doc, key)))
    return "".join(parts)


def _verbatim(text: str) -> str:
    # A line that would read as a contract heading gets one more leading backslash; the parser
    # takes one off, so `\## Facts` survives too.
    lines = text.split("\n")
    return "\n".join(
        _escape_heading(line) if heading_key(line) is not None else line for line in lines
    ).strip("\n")


def _escape_heading(line: str) -> str:
    stripped = line.lstrip(" ")
    return line[: len(line) - len(stripped)] + "\\" + stripped


def _table(spec: TableSpec, rows: list[object]) -> str:
    out = [f"| {spec.header_text} |\n", "|" + " --- |" * len(spec.columns) + "\n"]
    codecs = [(column.field, column.codec.render) for column in spec.columns]
    for row in rows:
        cells = [escape_cell(render(getattr(row, name))) for name, render in codecs]
        out.append("| " + " | ".join(cells) + " |\n")
    return "".join(out)
