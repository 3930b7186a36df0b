"""Render a `TaskDoc` as canonical task.md text, and write files atomically.

One canonical form: sections in contract order, every table with its header even when empty, cells
escaped (see `cells.escape_cell`). `parse_task_md(render_task_md(doc)) == doc` for any valid doc whose
cell text is stripped and uses `\\n` line breaks, and rendering is idempotent.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

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


def atomic_write(path: Path, text: str) -> None:
    """Replace `path` with `text` so a reader sees the old or the new file, never a partial one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    # os.open with 0o666 honours the umask (mkstemp would make the file private).
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            with contextlib.suppress(FileNotFoundError):  # keep the mode a person gave the file
                os.chmod(handle.fileno(), stat.S_IMODE(path.stat().st_mode))
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """Flush the directory entry of a rename to disk (POSIX only: Windows cannot open folders)."""
    if os.name == "nt":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
