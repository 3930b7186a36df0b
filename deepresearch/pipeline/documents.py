"""Phase step before planning: archive the person's own documents (`documents:` / `--documents`).

Each entry is a file, a folder (its supported files, recursively, hidden ones left out) or a glob;
a relative entry is relative to the workspace (entries from input.md and `--documents` arrive
absolute: relative to input.md's folder and to the current folder). The files are archived as
provided sources (type `provided`, authority `provided_authority`) and listed in task.md's Sources
table at once, so the planner, executors (`deepresearch search --local`) and the report see them.
Archiving is idempotent: a resumed run finds them in the registry and archives nothing twice.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass, field
from pathlib import Path

from deepresearch.core.errors import ConfigError
from deepresearch.core.events import Notice, PhaseFinished, PhaseStarted
from deepresearch.pipeline.context import RunContext
from deepresearch.sources.api import record_to_source
from deepresearch.sources.documents import SUPPORTED
from deepresearch.state.model import Source

_GLOB_CHARS = ("*", "?", "[")
HINT = "fix or remove the entry in `documents:` (input.md, deepresearch.yaml) or `--documents`"


@dataclass
class Expanded:
    """The files the entries name, in order, and the files of folders left out by their type."""

    files: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)


def _visible(path: Path, top: Path) -> bool:
    return not any(part.startswith(".") for part in path.relative_to(top).parts)


def expand_documents(entries: list[str], base: Path) -> Expanded:
    """The files named by `documents:` entries; ConfigError for an entry that names nothing."""
    out = Expanded()
    for entry in entries:
        path = Path(entry).expanduser()
        path = path if path.is_absolute() else base / path
        if any(ch in entry for ch in _GLOB_CHARS):
            found = [Path(p) for p in sorted(glob.glob(str(path), recursive=True)) if Path(p).is_file()]
            if not found:
                raise ConfigError("documents", "configuration", f"{entry!r} matches no file", hint=HINT)
            out.files += found
        elif path.is_dir():
            inside = sorted(p for p in path.rglob("*") if p.is_file() and _visible(p, path))
            out.files += [p for p in inside if p.suffix.lower() in SUPPORTED]
            out.skipped += [p for p in inside if p.suffix.lower() not in SUPPORTED]
        elif path.is_file():
            out.files.append(path)
        else:
            raise ConfigError("documents", "configuration", f"{entry!r}: no such file or folder", hint=HINT)
    out.files = list(dict.fromkeys(p.resolve() for p in out.files))
    return out


def provide_documents(ctx: RunContext) -> list[Source]:
    """Archive the configured documents and add them to task.md's Sources; returns the new rows."""
    if not ctx.config.documents:
        return []
    from deepresearch.sources.archive import Archiver  # Playwright loads only when needed

    expanded = expand_documents(ctx.config.documents, ctx.workspace.root)
    ctx.sink(PhaseStarted("documents", 0))
    if expanded.skipped:
        names = ", ".join(p.name for p in expanded.skipped[:5]) + (", …" if len(expanded.skipped) > 5 else "")
        ctx.sink(
            Notice(f"documents: left out {len(expanded.skipped)} files of other types ({names})", "warning")
        )
    research_date = ctx.clock().date()
    with Archiver(
        ctx.workspace, ctx.config, sink=ctx.sink, research_date=research_date, provided=True
    ) as archiver:
        # One at a time: local files are quick, and their IDs then follow the order they were named in.
        records = [archiver.archive(p.as_uri()) for p in expanded.files]
    known = {s.id for s in ctx.doc.sources}
    added = [record_to_source(r) for r in records if r.ok and r.id not in known]
    for record in records:
        if not record.ok:
            ctx.sink(Notice(f"documents: could not archive {record.url}: {record.message}", "warning"))
    ctx.doc.sources += added
    ctx.save("documents")
    archived = [r.id for r in records if r.ok]
    detail = f"{len(archived)} of {len(records)} archived" + (f" ({', '.join(archived)})" if archived else "")
    ctx.sink(PhaseFinished("documents", 0, detail))
    return added
