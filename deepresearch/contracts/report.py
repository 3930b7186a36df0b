"""The writers' markdown outputs: the synthesizer's report and the analyst's analysis."""

from __future__ import annotations

import re
from pathlib import Path

ANALYSIS_SECTIONS = ("Perspectives", "Counter-evidence", "Assumptions")
_CITATION = re.compile(r"\[S\d+\]")


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8", errors="replace").strip() if path.is_file() else None


def parse_report(path: Path) -> tuple[str | None, list[str]]:
    """The draft report, or None and the problems (must be markdown with a title and citations)."""
    text = _read(path)
    if text is None:
        return None, [f"the output file {path.name} was not written"]
    problems = []
    if not text.startswith("# "):
        problems.append("the report must start with '# ' and its title")
    if not _CITATION.search(text):
        problems.append("the report cites no source; cite facts' sources as [S01]")
    return (None, problems) if problems else (text + "\n", [])


def parse_analysis(path: Path) -> tuple[str | None, list[str]]:
    """The analysis text, or None and the problems (a title, the three sections, citations)."""
    text = _read(path)
    if text is None:
        return None, [f"the output file {path.name} was not written"]
    problems = []
    if not text.startswith("# "):
        problems.append("the analysis must start with '# ' and a title")
    headings = [h.strip().lower() for h in re.findall(r"^##\s+(.+)$", text, re.MULTILINE)]
    for section in ANALYSIS_SECTIONS:
        if not any(h.startswith(section.lower()) for h in headings):
            problems.append(f"the section '## {section}' is missing")
    if not _CITATION.search(text):
        problems.append("the analysis cites no source; cite each claim's source as [S01]")
    return (None, problems) if problems else (text + "\n", [])
