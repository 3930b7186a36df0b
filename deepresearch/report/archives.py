"""Where a source's archived copy lives and whether it is still the file that was recorded."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePosixPath

from deepresearch.core.files import file_sha256
from deepresearch.state.model import Source


class ArchiveState(StrEnum):
    OK = "ok"
    NO_ARCHIVE = "no-archive"  # task.md records no archive path
    OUTSIDE = "outside"  # the recorded path leaves the workspace
    MISSING = "missing"  # the file is not there
    NO_HASH = "no-hash"  # the file is there but task.md records no SHA-256 to compare with
    ALTERED = "altered"  # the file's SHA-256 differs from the recorded one
    # A workspace archived before the one hash rule (a PDF's text in the .md, its SHA-256 recorded of
    # the original .pdf beside it): the original is there, unaltered; the text is not covered.
    ORIGINAL_HASH = "original-hash"


@dataclass(frozen=True)
class ArchiveStatus:
    state: ArchiveState
    path: Path | None  # absolute path of the archive file, when the record names a safe one
    actual_sha256: str = ""


def archive_path(source: Source, workspace_root: Path) -> Path | None:
    """The absolute path of the source's archive, or None when unrecorded or outside the workspace."""
    recorded = source.archive.strip()
    if not recorded:
        return None
    relative = PurePosixPath(recorded.replace("\\", "/"))
    if relative.is_absolute() or ".." in relative.parts:
        return None
    path = workspace_root / Path(*relative.parts)
    # A symlink may still point outside the workspace: judge the resolved path.
    return path if path.resolve().is_relative_to(workspace_root.resolve()) else None


def normalize_sha256(recorded: str) -> str:
    """A recorded hash compared case-insensitively, an optional `sha256:` prefix removed."""
    value = recorded.strip().lower()
    return value.removeprefix("sha256:").strip()


def archive_status(source: Source, workspace_root: Path) -> ArchiveStatus:
    """Check the source's archive file exists inside the workspace and matches its recorded hash."""
    if not source.archive.strip():
        return ArchiveStatus(ArchiveState.NO_ARCHIVE, None)
    path = archive_path(source, workspace_root)
    if path is None:
        return ArchiveStatus(ArchiveState.OUTSIDE, None)
    if not path.is_file():
        return ArchiveStatus(ArchiveState.MISSING, path)
    actual = file_sha256(path)
    recorded = normalize_sha256(source.sha256)
    if not recorded:
        return ArchiveStatus(ArchiveState.NO_HASH, path, actual)
    if actual != recorded:
        original = _original_beside(path, recorded)
        return ArchiveStatus(ArchiveState.ORIGINAL_HASH if original else ArchiveState.ALTERED, path, actual)
    return ArchiveStatus(ArchiveState.OK, path, actual)


def _original_beside(path: Path, recorded: str) -> Path | None:
    """The original file beside an extracted text (`S17-host.pdf` for `S17-host.md`) whose SHA-256
    is the recorded one: the hash rule before the archived text was hashed."""
    for original in sorted(path.parent.glob(f"{path.stem}.*")):
        if original != path and original.is_file() and file_sha256(original) == recorded:
            return original
    return None


def original_hash_notes(sources: list[Source], workspace_root: Path) -> list[str]:
    """One note per source whose recorded SHA-256 is of its original file, not of its archived text
    (a workspace from before the one hash rule): what the check accepts, and how to bring it up to date."""
    notes = []
    for source in sources:
        status = archive_status(source, workspace_root)
        if status.state is ArchiveState.ORIGINAL_HASH and status.path is not None:
            original = _original_beside(status.path, normalize_sha256(source.sha256))
            notes.append(
                f"[{source.id}]: task.md records the SHA-256 of its original file "
                f"{original.name if original else '?'}, which is unaltered, not of its archived text "
                f"{source.archive} (the rule before one hash per archive file), so that text is not covered "
                f"by a hash; re-archive it to record one: deepresearch archive {source.url}"
            )
    return notes
