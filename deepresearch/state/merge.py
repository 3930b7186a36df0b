"""Merge one executor's result into the document: global IDs, source dedup, fact dedup.

Input sources carry either a global ID already allocated elsewhere (`S<n>`, e.g. by the archive
registry) or a local label (anything else: `A`, `src1`); input facts cite those IDs or labels, or
sources already in task.md by ID. Sources are deduplicated by normalised URL and by SHA-256 against
what exists (the existing entry wins and only gains the fields it lacked), except a newer archive of
a known page, which keeps its own ID. New IDs continue from the
highest in use; nothing that exists is ever renumbered.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from deepresearch.core.errors import StateError
from deepresearch.core.urls import normalize_url
from deepresearch.state.model import Fact, Source, TaskDoc, format_fact_id, format_source_id, id_number

GLOBAL_SOURCE_ID = re.compile(r"S[0-9]+")
_Entry = TypeVar("_Entry", Source, Fact)
_FILLABLE = ("title", "published", "accessed", "archive", "sha256")


@dataclass
class MergeOutcome:
    """What a merge did: IDs it added, how labels were mapped, and what it refused (with why)."""

    new_fact_ids: list[str] = field(default_factory=list)
    new_source_ids: list[str] = field(default_factory=list)
    label_map: dict[str, str] = field(default_factory=dict)  # input label or ID -> global source ID
    rejected: list[str] = field(default_factory=list)


def merge_task_result(doc: TaskDoc, task_id: str, sources: list[Source], facts: list[Fact]) -> MergeOutcome:
    """Add `task_id`'s sources and facts to `doc` (in place) with global IDs; see the module doc."""
    if not any(task.id == task_id for task in doc.tasks):
        raise StateError(f"cannot merge the results of {task_id}: task.md has no such task")
    merger = _Merger(doc)
    for source in sources:
        merger.add_source(source)
    for fact in facts:
        merger.add_fact(fact, task_id)
    return merger.outcome


class _Merger:
    """Indexes of the document built once, kept current as entries are added."""

    def __init__(self, doc: TaskDoc) -> None:
        self.doc = doc
        self.outcome = MergeOutcome()
        self.by_id = {source.id: source for source in doc.sources}
        self.by_url = {normalize_url(source.url): source for source in doc.sources if source.url}
        self.by_sha = {source.sha256: source for source in doc.sources if source.sha256}
        self.max_source = max((id_number(source.id) for source in doc.sources), default=0)
        self.max_fact = max((id_number(fact.id) for fact in doc.facts), default=0)
        self.fact_keys = {_fact_key(fact.statement, fact.sources) for fact in doc.facts}
        self.refused: set[str] = set()  # labels whose source was refused: their facts are too

    def add_source(self, new: Source) -> None:
        new = _clean(new)
        label = new.id
        if not new.url:
            self.outcome.rejected.append(f"source {label or '(no label)'} has no URL; not merged")
            return
        match = self._match(new, label)
        if label in self.refused:
            return
        if label in self.outcome.label_map:
            known = self.by_id[self.outcome.label_map[label]]
            if match is known:
                self._fill(known, new)
            else:
                self._refuse(label, f"label {label} names two different sources ({known.url} and {new.url})")
            return
        if GLOBAL_SOURCE_ID.fullmatch(label) and label in self.by_id and match is not self.by_id[label]:
            self._refuse(label, f"{label} is {self.by_id[label].url} in task.md but {new.url} in the result")
            return
        if match is not None:
            self._fill(match, new)
            self.outcome.label_map[label] = match.id
            return
        if GLOBAL_SOURCE_ID.fullmatch(label):
            self.max_source = max(self.max_source, id_number(label))
            self._append(dataclasses.replace(new, id=label), label)
        else:
            self.max_source += 1
            self._append(dataclasses.replace(new, id=format_source_id(self.max_source)), label)

    def _match(self, new: Source, label: str) -> Source | None:
        """The source task.md already holds for `new`: the one its global ID names when the URLs
        agree, else the one with its URL (the newest archive of it) or its hash. A newer archive
        of a known page (a stale source archived again, `copy_of` the archive it renews) has none:
        it gets a row of its own, and the facts quoted from the old archive keep citing that one."""
        known = self.by_id.get(label) if GLOBAL_SOURCE_ID.fullmatch(label) else None
        if known is not None and normalize_url(known.url) == normalize_url(new.url):
            return known
        by_url = self.by_url.get(normalize_url(new.url))
        if known is None and by_url is not None and new.copy_of == by_url.id and new.sha256 != by_url.sha256:
            return None
        return by_url or (self.by_sha.get(new.sha256) if new.sha256 else None)

    def _refuse(self, label: str, why: str) -> None:
        self.outcome.rejected.append(f"source {label}: {why}; facts citing it were not merged")
        self.outcome.label_map.pop(label, None)
        self.refused.add(label)

    def _append(self, source: Source, label: str) -> None:
        self.doc.sources.append(source)
        self.by_id[source.id] = source
        self.by_url[normalize_url(source.url)] = source
        if source.sha256:
            self.by_sha[source.sha256] = source
        self.outcome.label_map[label] = source.id
        self.outcome.new_source_ids.append(source.id)

    def _fill(self, existing: Source, new: Source) -> None:
        """The existing entry wins; it only gains the fields it lacked."""
        for name in _FILLABLE:
            if not getattr(existing, name) and getattr(new, name):
                setattr(existing, name, getattr(new, name))
        if existing.type in ("", "unknown") and new.type not in ("", "unknown"):
            existing.type = new.type
        if existing.authority is None:
            existing.authority = new.authority
        existing.flags = list(dict.fromkeys([*existing.flags, *new.flags]))  # code's flags only add up
        if existing.sha256:
            self.by_sha.setdefault(existing.sha256, existing)

    def add_fact(self, fact: Fact, task_id: str) -> None:
        fact = _clean(fact)
        refs: list[str] = []
        unknown: list[str] = []
        for ref in (ref.strip() for ref in fact.sources if ref.strip()):
            target = (
                ""
                if ref in self.refused
                else self.outcome.label_map.get(ref, ref if ref in self.by_id else "")
            )
            if not target:
                unknown.append(ref)
            elif target not in refs:
                refs.append(target)
        shown = fact.statement if len(fact.statement) <= 60 else fact.statement[:57] + "..."
        if unknown:
            self.outcome.rejected.append(
                f"fact '{shown}' cites {', '.join(unknown)}, which the result does not list as sources;"
                " not merged"
            )
            return
        if not refs or not fact.statement:
            self.outcome.rejected.append(f"fact '{shown}' has no statement or cites no source; not merged")
            return
        key = _fact_key(fact.statement, refs)
        if key in self.fact_keys:
            return  # the same finding from the same sources is already recorded
        self.fact_keys.add(key)
        self.max_fact += 1
        new_id = format_fact_id(self.max_fact)
        self.doc.facts.append(dataclasses.replace(fact, id=new_id, sources=refs, task=task_id))
        self.outcome.new_fact_ids.append(new_id)


def _fact_key(statement: str, sources: list[str]) -> tuple[str, frozenset[str]]:
    return " ".join(statement.split()).casefold(), frozenset(sources)


def _clean(entry: _Entry) -> _Entry:
    """A copy with text fields in the form task.md stores them: stripped, `\\n` line breaks."""
    changes: dict[str, Any] = {}
    for item in dataclasses.fields(entry):
        value = getattr(entry, item.name)
        if isinstance(value, str) and not isinstance(value, Enum):
            changes[item.name] = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    return dataclasses.replace(entry, **changes)
