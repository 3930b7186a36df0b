"""Position markers in archived text: PDF pages, transcript timestamps, ebook chapters.

Archivers write a marker where a page, a caption or a chapter starts, as an HTML comment on its own
(invisible when the markdown is rendered, plain to an agent reading the file):

    <!-- page 3 -->
    <!-- t=123s (2:03) -->
    <!-- chapter 2: The Second Chapter -->

Quote checking ignores markers (a quote may run across a page break); locating a verified quote
maps its first word back to the marker before it, so the report can link to `#page=3` or `&t=123s`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

MARKER = re.compile(r"<!--\s*(page|t|chapter)\b\s*=?\s*([^>]*?)\s*-->")


class PositionKind(StrEnum):
    PAGE = "page"
    TIME = "time"
    CHAPTER = "chapter"


@dataclass(frozen=True)
class Position:
    """Where in a source something is: page number, second of a video, or chapter number."""

    kind: PositionKind
    number: int
    label: str = ""  # a chapter's title

    def describe(self) -> str:
        """For people: 'p. 3', '2:03', 'ch. 2 (Title)'."""
        if self.kind is PositionKind.PAGE:
            return f"p. {self.number}"
        if self.kind is PositionKind.TIME:
            return clock(self.number)
        return f"ch. {self.number}" + (f" ({self.label})" if self.label else "")


def clock(seconds: float) -> str:
    """Seconds as m:ss or h:mm:ss."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def page_marker(number: int) -> str:
    """The marker that starts page `number` (1-based)."""
    return f"<!-- page {number} -->"


def time_marker(seconds: float) -> str:
    """The marker that starts a caption at `seconds` into a video."""
    return f"<!-- t={int(seconds)}s ({clock(seconds)}) -->"


def chapter_marker(number: int, title: str) -> str:
    """The marker that starts chapter `number` (1-based); the title is kept readable, one line."""
    clean = " ".join(title.replace("--", "–").replace(">", "›").split())[:120]
    return f"<!-- chapter {number}: {clean} -->" if clean else f"<!-- chapter {number} -->"


def strip_markers(text: str) -> str:
    """The text with every marker replaced by a space (word boundaries are kept)."""
    return MARKER.sub(" ", text)


def _parse(kind: str, body: str) -> Position | None:
    number = re.match(r"(\d+)", body)
    if number is None:
        return None
    if kind == "page":
        return Position(PositionKind.PAGE, int(number.group(1)))
    if kind == "t":
        return Position(PositionKind.TIME, int(number.group(1)))
    label = body[number.end() :].lstrip(":").strip()
    return Position(PositionKind.CHAPTER, int(number.group(1)), label)


def segments(text: str) -> list[tuple[Position | None, str]]:
    """The text cut at its markers: (the position a piece starts at, or None before any, the piece)."""
    out: list[tuple[Position | None, str]] = []
    current: Position | None = None
    start = 0
    for match in MARKER.finditer(text):
        out.append((current, text[start : match.start()]))
        current = _parse(match.group(1), match.group(2)) or current
        start = match.end()
    out.append((current, text[start:]))
    return out
