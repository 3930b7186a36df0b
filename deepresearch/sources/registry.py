"""The workspace's source registry: the one allocator of global source IDs (docs/architecture.md:
Layers, sources).

`.deepresearch/sources.jsonl` is append-only JSON lines, written only while holding an exclusive
`flock` on a sidecar lock file, because several `deepresearch archive` processes (one per parallel
executor) run at once. A line is either a record (`SourceRecord.to_dict()`) or an alias
`{"alias": url, "id": "S07"}` saying that another URL led to the same content, a copy line
`{"copy": "S03", "of": "S09"}` saying that S03's main text repeats S09's, published earlier
(copies.py; a new source's own `copy_of` is in its record; a newer archive of a stale source names
the one it renews, and from then on answers for its URL), or a use
`{"use": url, "id": "S07", "task": "E1", "batch": 2, "time": ...}` saying that an executor task asked
for a source already archived (records carry `task` and `batch` themselves). The orchestrator
merges the registry into task.md between phases; the registry only reads task.md (to skip IDs
already used there), never writes it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.core.attribution import Attribution
from deepresearch.core.clock import iso_seconds, utc_now
from deepresearch.core.files import append_jsonl, file_lock, read_jsonl
from deepresearch.core.urls import normalize_url
from deepresearch.core.workspace import Workspace
from deepresearch.sources.copies import CopyProbe, SketchFile, sketch
from deepresearch.sources.record import ARCHIVED, SourceRecord
from deepresearch.state.model import format_source_id, id_number

_SOURCE_ROW = re.compile(r"^\s*\|\s*S(\d+)\s*\|")


@dataclass(frozen=True)
class SourceUse:
    """An executor task's archive of a source (new, or already archived), in one of its batches."""

    source_id: str
    url: str
    task: str
    batch: int | None
    ok: bool = True  # False: the fetch failed (no source ID)
    time: str = ""  # ISO 8601: when it was archived or asked for


@dataclass
class _Index:
    """What the registry file says, indexed for dedup."""

    records: list[SourceRecord] = field(default_factory=list)
    by_url: dict[str, SourceRecord] = field(default_factory=dict)  # normalised URL → archived record
    by_content: dict[str, SourceRecord] = field(default_factory=dict)
    by_id: dict[str, SourceRecord] = field(default_factory=dict)
    max_id: int = 0
    uses: list[SourceUse] = field(default_factory=list)


def _url_key(url: str) -> str:
    return normalize_url(url) if url else ""


def task_md_source_ids(task_md: Path) -> list[int]:
    """The numbers of the S-IDs in task.md's Sources table (a light read-only scan; [] if absent)."""
    try:
        text = task_md.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return []
    numbers: list[int] = []
    in_sources = False
    for line in text.splitlines():
        if line.startswith("## "):
            in_sources = line[3:].strip().lower() == "sources"
            continue
        match = _SOURCE_ROW.match(line) if in_sources else None
        if match:
            numbers.append(int(match.group(1)))
    return numbers


class SourceRegistry:
    """Reads and appends the registry; every allocation happens under the file lock."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.path = workspace.source_registry
        self.lock_path = self.path.with_suffix(".lock")
        self.sketch_path = self.path.with_name("sketches.jsonl")

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the registry's exclusive lock (blocks until other processes release it).

        Not reentrant: while holding it, read (`archived`, `lookup`...) but do not call `register`
        or `record_failure`, which take it themselves and would wait forever.
        """
        with file_lock(self.lock_path):
            yield

    def _read(self) -> _Index:
        index = _Index()
        for data in read_jsonl(self.path):  # a line cut short by a killed process is skipped
            self._index_line(index, data)
        return index

    @staticmethod
    def _index_line(index: _Index, data: dict[str, Any]) -> None:
        if "copy" in data:
            copied = index.by_id.get(str(data.get("copy", "")))
            if copied is not None and data.get("of") in index.by_id:
                copied.copy_of = str(data["of"])
            return
        if "use" in data:
            who = Attribution.of(data)
            use = SourceUse(
                str(data.get("id", "")),
                str(data["use"]),
                who.task,
                who.batch,
                True,
                str(data.get("time", "")),
            )
            index.uses.append(use)
            return
        if "alias" in data:
            target = index.by_id.get(str(data.get("id", "")))
            if target is not None:
                index.by_url.setdefault(_url_key(str(data["alias"])), target)
            return
        record = SourceRecord.from_dict(data)
        index.records.append(record)
        if record.task:
            use = SourceUse(record.id, record.url, record.task, record.batch, record.ok, record.fetched)
            index.uses.append(use)
        if record.status != ARCHIVED or not record.id or record.id in index.by_id:
            return
        index.by_id[record.id] = record
        index.max_id = max(index.max_id, id_number(record.id))
        for url in (record.url, record.final_url):
            if url and record.renews:  # a newer archive of a known URL: it answers for the URL now
                index.by_url[_url_key(url)] = record
            elif url:
                index.by_url.setdefault(_url_key(url), record)
        if record.content_sha256:
            index.by_content.setdefault(record.content_sha256, record)

    def _append(self, data: dict[str, Any]) -> None:
        append_jsonl(self.path, data)

    def records(self) -> list[SourceRecord]:
        """Every record line in file order: archived ones and failures."""
        return self._read().records

    def archived(self) -> list[SourceRecord]:
        """The archived sources, one per ID, in allocation order."""
        return list(self._read().by_id.values())

    def get(self, source_id: str) -> SourceRecord | None:
        """The archived record with this ID, or None."""
        return self._read().by_id.get(source_id)

    def lookup(self, url: str) -> SourceRecord | None:
        """The archived record for `url` (as asked, as final URL after redirects, or an alias)."""
        return self._read().by_url.get(_url_key(url))

    def lookup_content(self, content_sha256: str) -> SourceRecord | None:
        """The archived record whose content has this SHA-256, or None."""
        return self._read().by_content.get(content_sha256)

    def register(
        self,
        url: str,
        final_url: str,
        content_sha256: str,
        build: Callable[[str], SourceRecord],
        probe: CopyProbe | None = None,
    ) -> tuple[SourceRecord, bool]:
        """Under the lock: the existing record for this URL or content (False), or a new one (True).

        `build(source_id)` writes the archive files and returns the record; it runs under the lock
        so that no registered record ever points at files that are not there yet. With a `probe`,
        a new source whose main text nearly repeats an earlier one's is recorded as a copy.
        """
        with self.locked():
            index = self._read()
            for candidate in (url, final_url):
                existing = index.by_url.get(_url_key(candidate)) if candidate else None
                if existing is not None:
                    return existing, False
            existing = index.by_content.get(content_sha256) if content_sha256 else None
            if existing is not None:
                for alias in {url, final_url} - {"", existing.url, existing.final_url}:
                    self._append({"alias": alias, "id": existing.id})
                return existing, False
            highest = max([index.max_id, *task_md_source_ids(self.workspace.task_md)])
            record = build(format_source_id(highest + 1))
            flipped = self._judge_copy(index, record, probe) if probe is not None else None
            self._append(record.to_dict())
            if flipped is not None:  # the new source was published first: it is the original
                self._append({"copy": flipped, "of": record.id})
            return record, True

    def renew(
        self,
        stale: SourceRecord,
        is_stale: Callable[[SourceRecord], bool],
        build: Callable[[str], SourceRecord],
    ) -> tuple[SourceRecord, bool]:
        """Under the lock: a new archive of a stale source's URL, with an ID of its own (True), or the
        URL's current record when another process renewed it meanwhile (False).

        The earlier archive is kept: the facts quoted from it keep citing it. The new record names
        it (`renews`) and counts as its copy: one page archived twice is one source of support."""
        with self.locked():
            index = self._read()
            current = index.by_url.get(_url_key(stale.url)) or stale
            if not is_stale(current):
                return current, False
            highest = max([index.max_id, *task_md_source_ids(self.workspace.task_md)])
            record = dataclasses.replace(
                build(format_source_id(highest + 1)), renews=current.id, copy_of=current.id
            )
            self._append(record.to_dict())
            return record, True

    def _judge_copy(self, index: _Index, record: SourceRecord, probe: CopyProbe) -> str | None:
        """Set `record.copy_of` when its text copies an earlier source's; when the new one was
        published earlier than that text's original, return the original's ID (to become a copy)."""
        sketches = SketchFile(self.sketch_path)
        item = sketch(probe.text)
        found = sketches.index().similar(item, probe.threshold)
        sketches.append(record.id, item)
        match = next((index.by_id[sid] for sid, _ in found if sid in index.by_id), None)
        if match is None:
            return None
        original = match
        seen = {original.id}
        while original.copy_of in index.by_id and original.copy_of not in seen:
            original = index.by_id[original.copy_of]
            seen.add(original.id)
        if record.published and original.published and record.published < original.published:
            return original.id
        record.copy_of = original.id
        return None

    def uses(self, task_id: str) -> list[SourceUse]:
        """Every archive an executor task asked for, in file order (sources new or known, failures)."""
        return [use for use in self._read().uses if use.task == task_id]

    def record_use(self, record: SourceRecord, url: str, attribution: Attribution) -> None:
        """Note that an executor task asked for a source already archived (nothing when by hand)."""
        if not attribution or not record.id:
            return
        entry = {"use": url, "id": record.id, **attribution.fields(), "time": iso_seconds(utc_now())}
        with self.locked():
            self._append(entry)

    def record_failure(self, record: SourceRecord) -> None:
        """Append a failed fetch; it takes no ID, and the URL may be archived again later."""
        with self.locked():
            self._append(record.to_dict())
