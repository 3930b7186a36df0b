"""Helpers for the figure tests: numeric facts, a TaskDoc, and charts_result.md writers."""

from __future__ import annotations

from typing import Any

import yaml

from deepresearch.state.model import Fact, FrontMatter, Source, TaskDoc

FACTS = {
    "Fact-001": ("Global electric-car sales reached 6.6 million in 2021.", ["S01"]),
    "Fact-002": ("In 2022, 10.5 million electric cars were sold worldwide.", ["S02"]),
    "Fact-003": ("Sales climbed to 14 million in 2023, about 18% of all new cars.", ["S01", "S03"]),
    "Fact-004": ("China accounted for 60% of 2023 sales, Europe 25% and the United States 10%.", ["S03"]),
    "Fact-005": ("2023年中国新能源汽车销量达到949.5万辆，同比增长37.9%。", ["S04"]),
    "Fact-006": ("Battery pack prices fell 14% in 2023, to $139 per kWh.", ["S05"]),
    "Fact-007": ("The renewable share of EU electricity reached 40.2% in 2023.", []),
    "Fact-008": ("The renewable share of EU electricity reached 40.2% in 2023, up from 38.5%.", ["S02"]),
    "Fact-009": ("2022年销量为688.7万辆。", ["S04"]),
}


def make_doc() -> TaskDoc:
    """A task.md model with the facts above and five sources."""
    facts = [Fact(fid, text, sources) for fid, (text, sources) in FACTS.items()]
    sources = [Source(f"S0{i}", f"Source {i}", f"https://example.org/{i}") for i in range(1, 6)]
    return TaskDoc(FrontMatter(id="run", question="EV market"), facts=facts, sources=sources)


def charts_file(*figures: dict[str, Any]) -> str:
    """The text of a logs/charts_result.md holding these figures in a ```yaml block."""
    body = yaml.safe_dump({"figures": list(figures)}, allow_unicode=True, sort_keys=False)
    return f"# Charts\n\nProposed figures.\n\n```yaml\n{body}```\n"


def sales_line() -> dict[str, Any]:
    """A valid line chart grounded in Fact-001..003."""
    return {
        "type": "line",
        "title": "Global electric-car sales",
        "x_label": "Year",
        "y_label": "Sales",
        "unit": "million",
        "caption": "Sales more than doubled in two years.",
        "points": [
            {"x": 2021, "value": 6.6, "fact": "Fact-001"},
            {"x": 2022, "value": 10.5, "fact": "Fact-002"},
            {"x": 2023, "value": 14, "fact": "Fact-003"},
        ],
    }


def share_pie() -> dict[str, Any]:
    """A valid pie chart grounded in Fact-004."""
    points = [("China", 60), ("Europe", 25), ("United States", 10)]
    return {
        "type": "pie",
        "title": "Share of 2023 electric-car sales",
        "unit": "%",
        "points": [{"label": label, "value": value, "fact": "Fact-004"} for label, value in points],
    }
