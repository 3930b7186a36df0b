"""The declarative chart spec an agent writes, parsed into dataclasses with precise problems.

The chart-planning agent writes `logs/charts_result.md`: Markdown holding a ```yaml fenced block
(or YAML front matter) with one key, `figures:`, a list of figures::

    figures:
      - type: line                # bar | grouped_bar | line | scatter | pie | table
        title: Global EV sales
        x_label: Year
        y_label: Sales
        unit: million vehicles
        caption: Sales rose every year.
        points:                   # one series; or `series: [{name: ..., points: [...]}]`
          - {x: 2022, value: 10.5, fact: Fact-004}

A point has `label` (or `x`), `value` (or `y`) and `fact` (one fact ID, or a list of them). Nothing
in the file is ever executed: it is data, validated here and grounded in `point_grounding.py`.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from deepresearch.figures.charts_file import extract_figures_yaml

MAX_FIGURES = 5
MAX_SERIES = 8
MAX_POINTS = 60
_FACT_ID = re.compile(r"^Fact-\d+$")
_NUMERIC_TEXT = re.compile(r"^-?\d+(\.\d+)?$")
_FIGURE_KEYS = {"type", "title", "x_label", "y_label", "unit", "caption", "points", "series"}
_POINT_KEYS = {"label", "x", "value", "y", "fact"}


class ChartType(StrEnum):
    BAR = "bar"
    GROUPED_BAR = "grouped_bar"
    LINE = "line"
    SCATTER = "scatter"
    PIE = "pie"
    TABLE = "table"


@dataclass(frozen=True)
class Point:
    """One data point: `value` is the number drawn; `value_text` is how the spec wrote it."""

    label: str  # category, table row, or the x value as text (line); may be "" for scatter
    value: float
    value_text: str
    facts: tuple[str, ...]
    x: float | None = None  # numeric x (line with a numeric axis, scatter)
    x_text: str = ""


@dataclass(frozen=True)
class Series:
    name: str  # "" for the single series of a bar, pie, scatter or line chart
    points: tuple[Point, ...]


@dataclass(frozen=True)
class FigureSpec:
    type: ChartType
    title: str
    series: tuple[Series, ...]
    x_label: str = ""
    y_label: str = ""
    unit: str = ""
    caption: str = ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (what the render worker reads)."""
        return asdict(self)

    def fact_ids(self) -> list[str]:
        """Every fact cited by a point, in first-appearance order."""
        seen: dict[str, None] = {}
        for s in self.series:
            for p in s.points:
                seen.update(dict.fromkeys(p.facts))
        return list(seen)


@dataclass
class SpecResult:
    """One figure of the file: its spec when valid, else the problems found."""

    index: int  # 1-based position in the file
    title: str
    spec: FigureSpec | None
    problems: list[str] = field(default_factory=list)


@dataclass
class ParsedCharts:
    figures: list[SpecResult]
    problems: list[str]  # problems with the file as a whole (no YAML block, too many figures)


def parse_charts(text: str, max_figures: int = MAX_FIGURES) -> ParsedCharts:
    """Parse the text of `logs/charts_result.md` into figure specs and problems."""
    raw, problems = extract_figures_yaml(text)
    if raw is None:
        return ParsedCharts([], problems)
    if len(raw) > max_figures:
        problems.append(f"{len(raw)} figures given, at most {max_figures} allowed: keep the most useful")
        raw = raw[:max_figures]
    results = []
    for i, item in enumerate(raw, start=1):
        title = str(item.get("title", "")) if isinstance(item, dict) else ""
        errors: list[str] = []
        spec = _figure(item, f"figure {i}", errors)
        results.append(SpecResult(i, title, spec if not errors else None, errors))
    return ParsedCharts(results, problems)


def _text(item: dict[str, Any], key: str, where: str, errors: list[str], required: bool = False) -> str:
    value = item.get(key)
    if value is None or value == "":
        if required:
            errors.append(f"{where}: {key} is required")
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        errors.append(f"{where}: {key} must be text, got {value!r}")
        return ""
    return str(value).strip()


def _figure(item: Any, where: str, errors: list[str]) -> FigureSpec | None:
    if not isinstance(item, dict):
        errors.append(f"{where}: must be a mapping with type, title and points, got {item!r}")
        return None
    unknown = sorted(set(map(str, item)) - _FIGURE_KEYS)
    if unknown:
        errors.append(
            f"{where}: unknown field {', '.join(unknown)} (known: {', '.join(sorted(_FIGURE_KEYS))})"
        )
    kind = item.get("type")
    if kind not in set(ChartType):
        errors.append(f"{where}: type must be one of {', '.join(ChartType)}, got {kind!r}")
        return None
    chart = ChartType(kind)
    title = _text(item, "title", where, errors, required=True)
    series = _all_series(item, chart, where, errors)
    texts = {key: _text(item, key, where, errors) for key in ("x_label", "y_label", "unit", "caption")}
    if chart is ChartType.PIE and texts["unit"] == "%" and series:
        total = sum(p.value for p in series[0].points)
        if total > 100.5:
            errors.append(f"{where}: pie shares add up to {total:g}%, more than 100%")
    return FigureSpec(chart, title, tuple(series), **texts)


def _all_series(item: dict[str, Any], chart: ChartType, where: str, errors: list[str]) -> list[Series]:
    has_points, has_series = "points" in item, "series" in item
    if has_points == has_series:
        errors.append(f"{where}: give exactly one of points (one series) or series (named series)")
        return []
    if has_points:
        raw_series: list[Any] = [{"name": "", "points": item["points"]}]
    else:
        raw_series = item["series"] if isinstance(item["series"], list) else []
        if not raw_series:
            errors.append(f"{where}: series must be a non-empty list of {{name, points}}")
            return []
    if chart in (ChartType.BAR, ChartType.PIE, ChartType.SCATTER) and len(raw_series) > 1:
        errors.append(f"{where}: a {chart} chart has one series; use grouped_bar or line for several")
    if len(raw_series) > MAX_SERIES:
        errors.append(f"{where}: {len(raw_series)} series, at most {MAX_SERIES}")
    series = [_series(s, chart, where, i, len(raw_series) > 1, errors) for i, s in enumerate(raw_series, 1)]
    names = [s.name for s in series]
    for name in {n for n in names if names.count(n) > 1}:
        errors.append(f'{where}: series name "{name}" is used twice')
    return series


def _series(raw: Any, chart: ChartType, where: str, n: int, named: bool, errors: list[str]) -> Series:
    if not isinstance(raw, dict) or not isinstance(raw.get("points"), list):
        errors.append(f"{where}, series {n}: must be a mapping with name and a list of points")
        return Series("", ())
    name = _text(raw, "name", f"{where}, series {n}", errors, required=named)
    here = f'{where}, series "{name}"' if named else where
    raw_points = raw["points"]
    minimum = 2 if chart in (ChartType.LINE, ChartType.PIE) else 1
    if not minimum <= len(raw_points) <= MAX_POINTS:
        errors.append(f"{here}: needs {minimum} to {MAX_POINTS} points, got {len(raw_points)}")
    points = [p for i, r in enumerate(raw_points, 1) if (p := _point(r, chart, f"{here}, point {i}", errors))]
    labels = [p.label for p in points if p.label]
    for label in {lb for lb in labels if labels.count(lb) > 1}:
        errors.append(f'{here}: point "{label}" appears twice')
    return Series(name, tuple(points))


def _number(value: Any, what: str, where: str, errors: list[str]) -> tuple[float, str] | None:
    """A number and the way it was written; numeric strings such as "40.2" are accepted."""
    if isinstance(value, bool) or value is None:
        errors.append(f"{where}: {what} must be a number, got {value!r}")
        return None
    if isinstance(value, (int, float)):
        text = str(value) if isinstance(value, int) else repr(value)
        if value != value or value in (float("inf"), float("-inf")):
            errors.append(f"{where}: {what} must be a finite number, got {text}")
            return None
        return float(value), text
    if isinstance(value, str) and _NUMERIC_TEXT.match(value.strip()):
        return float(value), value.strip()
    shown = f'"{value}"' if isinstance(value, str) else repr(value)
    errors.append(f"{where}: {what} must be a number, got {shown}")
    return None


def _facts(value: Any, where: str, errors: list[str]) -> tuple[str, ...]:
    ids = value if isinstance(value, list) else [value]
    if value is None or not ids:
        errors.append(f"{where}: fact is required (the ID of the fact that states this number)")
        return ()
    bad = [i for i in ids if not isinstance(i, str) or not _FACT_ID.match(i.strip())]
    if bad:
        errors.append(f"{where}: fact must be a fact ID like Fact-012, got {bad[0]!r}")
        return ()
    return tuple(i.strip() for i in ids)


def _point(raw: Any, chart: ChartType, where: str, errors: list[str]) -> Point | None:
    if not isinstance(raw, dict):
        errors.append(f"{where}: must be a mapping like {{label: ..., value: ..., fact: Fact-001}}")
        return None
    unknown = sorted(set(map(str, raw)) - _POINT_KEYS)
    if unknown:
        errors.append(f"{where}: unknown field {', '.join(unknown)} (known: label, x, value, y, fact)")
    count = len(errors)
    value = _number(raw.get("value", raw.get("y")), "value", where, errors)
    facts = _facts(raw.get("fact"), where, errors)
    label, x, x_text = _position(raw, chart, where, errors)
    if chart is ChartType.PIE and value is not None and value[0] <= 0:
        errors.append(f"{where}: a pie slice must be greater than 0, got {value[1]}")
    if value is None or len(errors) > count:
        return None
    return Point(label, value[0], value[1], facts, x, x_text)


def _position(
    raw: dict[str, Any], chart: ChartType, where: str, errors: list[str]
) -> tuple[str, float | None, str]:
    """The point's label and numeric x: scatter needs a numeric x, other charts a label or x."""
    label = _text(raw, "label", where, errors)
    if chart is ChartType.SCATTER:
        number = _number(raw.get("x"), "x", where, errors)
        return (label, number[0], number[1]) if number else (label, None, "")
    given = raw.get("x", raw.get("label"))
    if given is None or given == "":
        errors.append(f"{where}: label (or x) is required")
        return "", None, ""
    if isinstance(given, (int, float)) and not isinstance(given, bool) and chart is ChartType.LINE:
        number = _number(given, "x", where, errors)
        if number:
            return number[1], number[0], number[1]
    return label or _text(raw, "x", where, errors), None, ""
