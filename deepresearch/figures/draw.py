"""Drawing one figure spec (as JSON) with matplotlib's object API; imported by the worker only."""

from __future__ import annotations

import textwrap
import unicodedata
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from deepresearch.figures.fonts import has_cjk

# One style for every figure: Okabe-Ito colours (readable with colour-blindness), light y grid.
STYLE: dict[str, Any] = {
    "figsize": (7.2, 4.2),
    "dpi": 150,
    "font_size": 10,
    "title_size": 12,
    "colors": ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"],
    "grid_color": "#dddddd",
    "text_color": "#222222",
    "header_color": "#e8eef5",
}

Spec = dict[str, Any]


def _labels(spec: Spec) -> list[str]:
    """Category labels across all series, in first-appearance order."""
    seen: dict[str, None] = {}
    for series in spec["series"]:
        seen.update(dict.fromkeys(p["label"] for p in series["points"]))
    return list(seen)


def _axis_title(spec: Spec) -> str:
    label, unit = spec["y_label"], spec["unit"]
    return f"{label} ({unit})" if label and unit else label or unit


def _finish_axes(ax: Axes, spec: Spec, categories: list[str] | None = None) -> None:
    ax.set_xlabel(spec["x_label"])
    ax.set_ylabel(_axis_title(spec))
    ax.grid(axis="y", color=STYLE["grid_color"], linewidth=0.7)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    if categories is not None:
        ax.set_xticks(range(len(categories)), categories)
        if len(categories) > 6 or max((len(c) for c in categories), default=0) > 10:
            ax.tick_params(axis="x", labelrotation=30)
            for tick in ax.get_xticklabels():
                tick.set_horizontalalignment("right")
    if any(s["name"] for s in spec["series"]):
        ax.legend(frameon=False)


def _bars(ax: Axes, spec: Spec) -> None:
    categories = _labels(spec)
    count = len(spec["series"])
    width = 0.8 / count
    for i, series in enumerate(spec["series"]):
        at = {p["label"]: p for p in series["points"]}
        xs = [j - 0.4 + width * (i + 0.5) for j, c in enumerate(categories) if c in at]
        points = [at[c] for c in categories if c in at]
        color = STYLE["colors"][i % len(STYLE["colors"])]
        bars = ax.bar(
            xs, [p["value"] for p in points], width * 0.92, label=series["name"] or None, color=color
        )
        if len(categories) * count <= 24:
            ax.bar_label(bars, labels=[p["value_text"] for p in points], padding=2, fontsize=8)
    ax.axhline(0, color=STYLE["text_color"], linewidth=0.8)
    _finish_axes(ax, spec, categories)


def _line(ax: Axes, spec: Spec) -> None:
    points = [p for s in spec["series"] for p in s["points"]]
    numeric = all(p["x"] is not None for p in points)
    categories = None if numeric else _labels(spec)
    for i, series in enumerate(spec["series"]):
        ordered = sorted(series["points"], key=lambda p: p["x"]) if numeric else series["points"]
        xs = [p["x"] if numeric else categories.index(p["label"]) for p in ordered]  # type: ignore[union-attr]
        color = STYLE["colors"][i % len(STYLE["colors"])]
        ax.plot(
            xs,
            [p["value"] for p in ordered],
            marker="o",
            linewidth=2,
            color=color,
            label=series["name"] or None,
        )
    if numeric and all(float(p["x"]).is_integer() for p in points):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _finish_axes(ax, spec, categories)


def _scatter(ax: Axes, spec: Spec) -> None:
    points = spec["series"][0]["points"]
    ax.scatter([p["x"] for p in points], [p["value"] for p in points], s=36, color=STYLE["colors"][0])
    if len(points) <= 20:
        for p in points:
            ax.annotate(
                p["label"], (p["x"], p["value"]), xytext=(4, 4), textcoords="offset points", fontsize=8
            )
    ax.grid(axis="x", color=STYLE["grid_color"], linewidth=0.7)
    _finish_axes(ax, spec)


def _pie(ax: Axes, spec: Spec) -> None:
    """Slices labelled with the numbers as written (never recomputed shares, which no source gave)."""
    points = spec["series"][0]["points"]
    percent = spec["unit"].strip() == "%"
    values = [p["value"] for p in points]
    labels = [f"{p['label']}\n{p['value_text']}{'%' if percent else ''}" for p in points]
    colors = [STYLE["colors"][i % len(STYLE["colors"])] for i in range(len(points))]
    if percent and sum(values) < 100:  # the unstated rest, drawn without a number
        values.append(100 - sum(values))
        labels.append("其他" if has_cjk(spec["title"]) else "other")
        colors.append(STYLE["grid_color"])
    ax.pie(
        values,
        labels=labels,
        colors=colors,
        startangle=90,
        counterclock=False,
        wedgeprops={"linewidth": 1, "edgecolor": "white"},
    )
    ax.set_aspect("equal")


TABLE_CHARS = 84  # characters that fit across a table figure at the table's font size
MIN_COLUMN_CHARS = 10


def display_width(text: str) -> int:
    """Columns `text` takes in a table: a wide (CJK) character counts as two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _column_chars(cells: list[list[str]]) -> list[int]:
    """Each column's width in characters: its longest text, the widest cut down until all fit."""
    widths = [max(4, *(display_width(row[c]) for row in cells)) for c in range(len(cells[0]))]
    while sum(widths) > TABLE_CHARS and max(widths) > MIN_COLUMN_CHARS:
        widths[widths.index(max(widths))] -= 1
    return widths


def _wrap(text: str, width: int) -> str:
    """`text` in lines of at most `width` display columns (CJK text has no spaces to break at)."""
    chars = max(1, width * len(text) // max(1, display_width(text)))
    return "\n".join(textwrap.wrap(text, chars, break_long_words=True)) or text


def table_cells(spec: Spec) -> tuple[list[list[str]], list[float]]:
    """The table's rows (header first) with text wrapped to fit, and each column's share of the width."""
    rows = _labels(spec)
    named = any(s["name"] for s in spec["series"])
    columns = [s["name"] for s in spec["series"]] if named else [_axis_title(spec) or "Value"]
    cells = [[spec["x_label"], *columns]]
    for row in rows:
        values = [{p["label"]: p["value_text"] for p in s["points"]}.get(row, "—") for s in spec["series"]]
        cells.append([row, *values])
    widths = _column_chars(cells)
    wrapped = [[_wrap(text, width) for text, width in zip(row, widths, strict=True)] for row in cells]
    return wrapped, [w / sum(widths) for w in widths]


def _table(ax: Axes, spec: Spec) -> None:
    cells, shares = table_cells(spec)
    ax.axis("off")
    # Columns sized to their text and long labels wrapped: every label stays inside the figure.
    table = ax.table(cellText=cells[1:], colLabels=cells[0], colWidths=shares, loc="center", cellLoc="center")
    table.auto_set_font_size(False)
    table.set_fontsize(STYLE["font_size"])
    lines = [max(cell.count("\n") + 1 for cell in row) for row in cells]
    unit = 1.0 / sum(lines)  # the table fills the axes' height, each row as tall as its lines
    for (line, _col), cell in table.get_celld().items():
        cell.set_height(unit * lines[line])
        cell.set_edgecolor(STYLE["grid_color"])
        if line == 0:
            cell.set_facecolor(STYLE["header_color"])
            cell.get_text().set_fontweight("bold")


DRAW = {"bar": _bars, "grouped_bar": _bars, "line": _line, "scatter": _scatter, "pie": _pie, "table": _table}


def draw(spec: Spec) -> Figure:
    """A matplotlib Figure for the spec (fonts must be set in rcParams beforehand)."""
    width, height = STYLE["figsize"]
    if spec["type"] == "table":  # a table is as tall as its rows' lines
        cells, _ = table_cells(spec)
        lines = sum(max(cell.count("\n") + 1 for cell in row) for row in cells)
        height = min(16.0, 0.9 + 0.3 * lines)
    figure = Figure(figsize=(width, height), dpi=STYLE["dpi"], layout="constrained")
    ax = figure.add_subplot()
    DRAW[spec["type"]](ax, spec)
    title = "\n".join(textwrap.wrap(spec["title"], 70)) if spec["title"] else ""
    ax.set_title(title, fontsize=STYLE["title_size"], color=STYLE["text_color"], pad=10)
    return figure
