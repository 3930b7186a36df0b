"""Parsing logs/charts_result.md: formats, validation messages, limits, Markdown tables."""

from __future__ import annotations

from deepresearch.figures import ChartType, parse_charts, table_markdown
from tests.figures.helpers import charts_file, sales_line, share_pie


def test_fenced_yaml_block_is_parsed_into_specs() -> None:
    parsed = parse_charts(charts_file(sales_line(), share_pie()))
    assert parsed.problems == []
    line, pie = (r.spec for r in parsed.figures)
    assert line is not None and pie is not None
    assert line.type is ChartType.LINE and line.unit == "million"
    first = line.series[0].points[0]
    assert (first.label, first.x, first.value, first.value_text, first.facts) == (
        "2021",
        2021.0,
        6.6,
        "6.6",
        ("Fact-001",),
    )
    assert [p.label for p in pie.series[0].points] == ["China", "Europe", "United States"]
    assert line.fact_ids() == ["Fact-001", "Fact-002", "Fact-003"]


def test_front_matter_form_and_aliases_y_and_fact_lists() -> None:
    text = """---
figures:
  - type: scatter
    title: Price against range
    points:
      - {label: Model A, x: 139, y: 14, fact: [Fact-006]}
---
Body text.
"""
    parsed = parse_charts(text)
    assert parsed.problems == [] and parsed.figures[0].problems == []
    point = parsed.figures[0].spec.series[0].points[0]  # type: ignore[union-attr]
    assert (point.x, point.value, point.facts) == (139.0, 14.0, ("Fact-006",))


def test_empty_figure_list_is_valid() -> None:
    parsed = parse_charts("```yaml\nfigures: []\n```\n")
    assert parsed.figures == [] and parsed.problems == []


def test_invalid_spec_gets_precise_problems() -> None:
    bad_point = {"label": "2023", "value": "about 40", "fact": "Fact-008"}
    figure_one = sales_line()
    figure_two = {"type": "bar", "title": "Shares", "points": [
        {"label": "2021", "value": 38.5, "fact": "Fact-008"},
        {"label": "2022", "value": 39, "fact": "F12"},
        bad_point,
        {"label": "2024", "value": True, "fact": "Fact-008"},
        {"value": 1, "fact": "Fact-008"},
    ]}  # fmt: skip
    figure_three = {"type": "donut", "title": "x", "points": []}
    unnamed = {"points": [{"label": "2023", "value": 14, "fact": "Fact-003"}]}
    figure_four = {
        "type": "grouped_bar",
        "title": "",
        "colour": "red",
        "series": [{"name": "EU", "points": []}, unnamed],
    }
    parsed = parse_charts(charts_file(figure_one, figure_two, figure_three, figure_four))
    assert parsed.figures[0].problems == []
    assert parsed.figures[1].spec is None
    assert parsed.figures[1].problems == [
        "figure 2, point 2: fact must be a fact ID like Fact-012, got 'F12'",
        'figure 2, point 3: value must be a number, got "about 40"',
        "figure 2, point 4: value must be a number, got True",
        "figure 2, point 5: label (or x) is required",
    ]
    assert parsed.figures[2].problems == [
        "figure 3: type must be one of bar, grouped_bar, line, scatter, pie, table, got 'donut'"
    ]
    problems = parsed.figures[3].problems
    assert problems[0].startswith("figure 4: unknown field colour (known: ")
    assert "figure 4: title is required" in problems
    assert 'figure 4, series "EU": needs 1 to 60 points, got 0' in problems
    assert "figure 4, series 2: name is required" in problems


def test_series_rules() -> None:
    line = {"type": "line", "title": "t", "series": [
        {"name": "EU", "points": [{"x": 2023, "value": 1, "fact": "Fact-001"}]},
        {"name": "EU", "points": [{"x": 2022, "value": 1, "fact": "Fact-001"},
                                  {"x": 2022, "value": 2, "fact": "Fact-001"}]},
    ]}  # fmt: skip
    pie = {"type": "pie", "title": "t", "points": [{"label": "a", "value": 0, "fact": "Fact-001"}] * 2}
    both = {"type": "bar", "title": "t", "points": [], "series": []}
    parsed = parse_charts(charts_file(line, pie, both))
    assert parsed.figures[0].problems == [
        'figure 1, series "EU": needs 2 to 60 points, got 1',
        'figure 1, series "EU": point "2022" appears twice',
        'figure 1: series name "EU" is used twice',
    ]
    assert "figure 2, point 1: a pie slice must be greater than 0, got 0" in parsed.figures[1].problems
    assert parsed.figures[2].problems == [
        "figure 3: give exactly one of points (one series) or series (named series)"
    ]


def test_too_many_figures_and_missing_block() -> None:
    parsed = parse_charts(charts_file(*[share_pie()] * 6), max_figures=5)
    assert parsed.problems == ["6 figures given, at most 5 allowed: keep the most useful"]
    assert len(parsed.figures) == 5
    missing = parse_charts("I think a bar chart would be nice.")
    assert missing.figures == []
    assert missing.problems[0].startswith("no `figures:` list found")


def test_yaml_error_names_the_file_line() -> None:
    text = "# Charts\n\n```yaml\nfigures:\n  - type: bar\n    title: [unclosed\n```\n"
    problems = parse_charts(text).problems
    assert len(problems) == 1 and problems[0].startswith("YAML error at line 7")


def test_table_markdown() -> None:
    spec = {"type": "table", "title": "Sales", "x_label": "Market", "series": [
        {"name": "2022", "points": [{"label": "China", "value": 688.7, "fact": "Fact-009"}]},
        {"name": "2023", "points": [{"label": "China", "value": 949.5, "fact": "Fact-005"},
                                    {"label": "EU|EEA", "value": 25, "fact": "Fact-004"}]},
    ]}  # fmt: skip
    result = parse_charts(charts_file(spec)).figures[0]
    assert result.spec is not None, result.problems
    assert table_markdown(result.spec) == (
        "| Market | 2022 | 2023 |\n| --- | --- | --- |\n| China | 688.7 | 949.5 |\n| EU\\|EEA | — | 25 |"
    )
