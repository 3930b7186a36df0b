"""The figure checks of report.md as violations (kind `figure`), each at the line it concerns.

The rules are the figure engine's (`figures.check_figures`): every figure referred to exists, every
drawn figure is in the report, its caption cites every source its data comes from, and its image
file exists. Each problem is placed at its figure's caption (caption problems), its image line, or
the first line that refers to it; line 1 when the figure appears nowhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from deepresearch.figures import RenderedFigure, check_figures, figure_references
from deepresearch.report.check import Violation

_NUMBER = re.compile(r"^(?:Figure|图) ?(\d+)")


def figure_violations(
    report_text: str, figures: Sequence[RenderedFigure], workspace_root: Path | None
) -> list[Violation]:
    """Every figure problem of the report, as violations sorted by line."""
    lines = report_text.splitlines()
    by_number = {f.number: f for f in figures}
    found = []
    for problem in check_figures(report_text, figures, workspace_root):
        match = _NUMBER.match(problem)
        number = int(match.group(1)) if match else 0
        found.append(Violation(_line(lines, number, by_number.get(number), problem), "figure", problem))
    return sorted(found)


def _line(lines: list[str], number: int, figure: RenderedFigure | None, problem: str) -> int:
    if figure is not None:
        image_re = re.compile(rf"\]\((?:\./)?{re.escape(figure.png)}\)")
        image = next((i for i, line in enumerate(lines) if image_re.search(line)), None)
        if image is not None:
            if "caption" not in problem:
                return image + 1
            caption = next((i for i in range(image + 1, len(lines)) if lines[i].strip()), image)
            return caption + 1
    refers = (i for i, line in enumerate(lines) if number in figure_references(line))
    return next(refers, 0) + 1
