"""Finding the `figures:` YAML in `logs/charts_result.md`: front matter or a ```yaml fenced block."""

from __future__ import annotations

import re
from typing import Any

import yaml

_FENCE = re.compile(
    r"^(```|~~~)[ \t]*(yaml|yml)[ \t]*$(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL | re.IGNORECASE
)
_FRONT = re.compile(r"\A---[ \t]*\n(.*?)^---[ \t]*$", re.MULTILINE | re.DOTALL)


def _blocks(text: str) -> list[tuple[str, int]]:
    """Candidate YAML blocks with the file line their first line is on (front matter first)."""
    found = []
    front = _FRONT.match(text)
    if front:
        found.append((front.group(1), 2))
    for match in _FENCE.finditer(text):
        found.append((match.group(3)[1:], text.count("\n", 0, match.end(2)) + 2))
    return found


def _load(block: str, first_line: int) -> tuple[Any, str | None]:
    try:
        return yaml.safe_load(block), None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {first_line + mark.line}" if mark is not None else "the YAML block"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return None, f"YAML error at {where}: {problem}"


def extract_figures_yaml(text: str) -> tuple[list[Any] | None, list[str]]:
    """The raw `figures:` list, or None and the problems saying why it could not be read."""
    errors: list[str] = []
    for block, first_line in _blocks(text):
        data, error = _load(block, first_line)
        if error:
            errors.append(error)
            continue
        if not isinstance(data, dict) or "figures" not in data:
            continue
        figures = data["figures"]
        if figures is None:
            return [], []
        if not isinstance(figures, list):
            return None, [f"figures must be a list, got {type(figures).__name__}"]
        return figures, []
    if not errors:
        errors.append("no `figures:` list found: write it in a ```yaml fenced block (or YAML front matter)")
    return None, errors
