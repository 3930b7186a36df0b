"""A figure spec as a Markdown pipe table (for a `table` figure in the report, or as a data appendix)."""

from __future__ import annotations

from deepresearch.figures.spec import FigureSpec


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").strip()


def table_markdown(spec: FigureSpec) -> str:
    """Rows are the point labels (first-appearance order), one column per series; `—` when absent."""
    rows: dict[str, None] = {}
    for series in spec.series:
        rows.update(dict.fromkeys(p.label or p.x_text for p in series.points))
    value_title = f"{spec.y_label} ({spec.unit})" if spec.y_label and spec.unit else spec.y_label or spec.unit
    named = any(s.name for s in spec.series)
    columns = [s.name for s in spec.series] if named else [value_title or "Value"]
    header = [spec.x_label, *columns]
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "|" + " --- |" * len(header)]
    for row in rows:
        values = [
            next((p.value_text for p in s.points if (p.label or p.x_text) == row), "—") for s in spec.series
        ]
        lines.append("| " + " | ".join(_cell(c) for c in (row, *values)) + " |")
    return "\n".join(lines)
