"""Reading the YAML that agents write in their output files, forgivingly but never silently.

Agents are told to write YAML front matter (`---` ... `---`) followed by optional notes. Models
sometimes wrap it in a ```yaml fence or drop the closing `---`; those forms are accepted. Anything
else is a problem message that the repair prompt quotes back to the agent.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

_FENCE = re.compile(r"```(?:ya?ml)?\s*\n(.*?)\n```", re.S)


def _yaml_text(text: str) -> tuple[str, str]:
    """Split an output file into (yaml part, notes part)."""
    stripped = text.lstrip("\ufeff").strip()
    if stripped.startswith("---"):
        body = stripped[3:].lstrip("\n")
        end = re.search(r"^---\s*$", body, re.M)
        if end:
            return body[: end.start()], body[end.end() :].strip()
        return body, ""
    fence = _FENCE.search(stripped)
    if fence:
        return fence.group(1), (stripped[: fence.start()] + stripped[fence.end() :]).strip()
    return stripped, ""


def read_yaml_output(path: Path) -> tuple[dict[str, Any] | None, str, list[str]]:
    """(data, notes, problems) of an agent's output file; data is None when it cannot be used."""
    if not path.is_file():
        return None, "", [f"the output file {path.name} was not written"]
    text = path.read_text(encoding="utf-8", errors="replace")
    if not text.strip():
        return None, "", [f"the output file {path.name} is empty"]
    head, notes = _yaml_text(text)
    try:
        data = yaml.safe_load(head)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2} of the file)" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        return None, notes, [f"the YAML front matter does not parse{where}: {problem}"]
    if not isinstance(data, dict):
        return None, notes, ["the file must start with YAML front matter: a mapping between two '---' lines"]
    return data, notes, []


def text_list(value: Any) -> list[str]:
    """A list of non-empty strings from a YAML value (a string becomes a one-item list)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def id_list(value: Any) -> list[str]:
    """IDs from a YAML list or a comma-separated string: ["E1", "E2"] or "E1, E2"."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return text_list(value)
