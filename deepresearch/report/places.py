"""What a reference entry adds for specialist sources: who wrote it and where, whether it is the
person's own or only an abstract, and where its facts' quotes were found (page, time, chapter).

Read from the archive code wrote: its header (authors, venue, DOI) and its position markers; a
verified quote of a fact citing the source is located again, exactly as it was verified.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import quote, urlsplit

from deepresearch.report.archives import archive_path
from deepresearch.sources.positions import Position, PositionKind
from deepresearch.sources.quote_place import quote_position
from deepresearch.sources.specialist_store import read_header
from deepresearch.state.model import Fact, Source, Verified

HEADER_BYTES = 4096  # the header is the archive's first lines
PROVIDED = "provided"


def _read(source: Source, workspace_root: Path) -> tuple[Path, str] | None:
    path = archive_path(source, workspace_root)
    if path is None or not path.is_file():
        return None
    try:
        return path, path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def quote_places(facts: Sequence[Fact], source: Source, workspace_root: Path) -> list[Position]:
    """Where the verified quotes of the facts citing `source` start in its archive, in order."""
    found = _read(source, workspace_root)
    if found is None:
        return []
    _, text = found
    quotes = [f.quote for f in facts if source.id in f.sources and f.verified is Verified.YES]
    places = {p for p in (quote_position(q, text) for q in quotes if q.strip()) if p is not None}
    return sorted(places, key=lambda p: (p.kind.value, p.number))


def _is_youtube(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return host == "youtu.be" or host.endswith("youtube.com")


def place_link(source: Source, position: Position, archive: Path, workspace_root: Path) -> str:
    """Where a position can be opened: the archived PDF at its page, the video at its second; or ""."""
    if position.kind is PositionKind.PAGE and archive.with_suffix(".pdf").is_file():
        relative = archive.with_suffix(".pdf").relative_to(workspace_root).as_posix()
        return f"{quote(relative, safe='/-_.~')}#page={position.number}"
    if position.kind is PositionKind.TIME and _is_youtube(source.url):
        return f"{source.url}{'&' if '?' in source.url else '?'}t={position.number}s"
    return ""


def entry_details(
    facts: Sequence[Fact], source: Source, workspace_root: Path, esc: Callable[[str], str]
) -> list[str]:
    """Extra parts of a reference entry (markdown, escaped with `esc`): authors, venue, DOI,
    `provided document`, and `quoted at` with a link per position where there is one."""
    parts: list[str] = []
    found = _read(source, workspace_root)
    header = read_header(found[1][:HEADER_BYTES]) if found else {}
    for key in ("authors", "channel", "venue"):
        if header.get(key):
            parts.append(esc(header[key]))
    if header.get("doi"):
        parts.append(f"doi:{esc(header['doi'])}")
    if source.type == PROVIDED:
        parts.append("provided document")
    places = quote_places(facts, source, workspace_root) if found else []
    if found and places:
        shown = []
        for place in places:
            link = place_link(source, place, found[0], workspace_root)
            label = esc(place.describe())
            shown.append(f"[{label}](<{link}>)" if link else label)
        parts.append("quoted at " + ", ".join(shown))
    return parts
