"""Code checks an executor's batch log against what its commands recorded.

`deepresearch search` writes the task and batch of every query into logs/search_results.jsonl, and
`deepresearch archive` into the source registry (core.attribution). A logged batch is trusted only
when those records bear it out:

- its number continues the task's batches (the call was told which batch to start with);
- every query it lists was searched for this task in this batch (a query searched without `--batch`
  counts for any batch), during this call;
- its `k` is the one those searches used;
- every source it says it archived was archived (or found already archived) for this task in this
  batch, during this call, or is held by the source registry: a source any task archived before is
  legitimately cited (the task's use of it is then recorded); only a source nobody archived is a lie.

An untrusted batch still contributes its facts (their quotes are verified by code anyway), but it
cannot count towards saturation: "nothing new" from searches that did not happen proves nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from deepresearch.contracts.execute import BatchEntry
from deepresearch.core.attribution import Attribution
from deepresearch.sources.registry import SourceUse


@dataclass(frozen=True)
class BatchCheck:
    """The verdict on one logged batch."""

    number: int
    trusted: bool
    problems: list[str] = field(default_factory=list)
    queries_logged: int = 0
    borrowed: list[str] = field(default_factory=list)  # listed sources the registry held already


@dataclass(frozen=True)
class Records:
    """What the task's commands recorded during the call (search-log lines, archive uses)."""

    searches: list[Mapping[str, Any]]
    uses: list[SourceUse]
    archived: frozenset[str] = frozenset()  # every source ID the registry holds an archive of

    @classmethod
    def since(
        cls,
        task_id: str,
        started: datetime,
        lines: Iterable[Mapping[str, Any]],
        uses: Iterable[SourceUse],
        archived: Iterable[str] = (),
    ) -> Records:
        """The records of `task_id` made at or after `started` (to the second), and the registry's
        archived source IDs."""
        floor = started.replace(microsecond=0)
        mine = [
            line for line in lines if line.get("task") == task_id and _at_or_after(line.get("time"), floor)
        ]
        recent = [u for u in uses if u.task == task_id and _at_or_after(u.time, floor)]
        return cls(mine, recent, frozenset(archived))


def _at_or_after(stamp: object, floor: datetime) -> bool:
    try:
        when = datetime.fromisoformat(str(stamp))
    except ValueError:
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=floor.tzinfo)
    return when >= floor


def _norm(query: str) -> str:
    return " ".join(query.split()).casefold()


def _in_batch(batch: object, number: int) -> bool:
    return batch is None or batch == number


def check_batches(
    entries: Sequence[BatchEntry], first: int, records: Records, ks: Iterable[int]
) -> list[BatchCheck]:
    """One verdict per logged batch; `first` is the batch number the call was told to start with,
    `ks` the documents-per-query values the orchestrator allows (k_initial, k_expand)."""
    allowed = set(ks)
    return [_check(entry, first + n, records, allowed) for n, entry in enumerate(entries)]


def _check(entry: BatchEntry, expected: int, records: Records, allowed: set[int]) -> BatchCheck:
    problems: list[str] = []
    if entry.number != expected:
        problems.append(
            f"batch {entry.number} should be numbered {expected} (batches continue from the last one)"
        )
    searched: dict[str, set[object]] = {}
    for line in records.searches:
        if _in_batch(Attribution.of(line).batch, entry.number):
            searched.setdefault(_norm(str(line.get("query", ""))), set()).add(line.get("k"))
    claimed = list(dict.fromkeys(_norm(q) for q in entry.queries))
    missing = [q for q in claimed if q not in searched]
    if missing:
        shown = ", ".join(repr(q) for q in missing[:3]) + (" ..." if len(missing) > 3 else "")
        problems.append(
            f"batch {entry.number} claims {len(claimed)} queries; the search log shows "
            f"{len(claimed) - len(missing)} of them for this task and batch (not searched: {shown})"
        )
    used_k = {k for q in claimed if q in searched for k in searched[q] if isinstance(k, int)}
    if entry.k is not None and used_k and used_k != {entry.k}:
        problems.append(f"batch {entry.number} claims k={entry.k}; its searches used k={sorted(used_k)}")
    if allowed and used_k - allowed:
        problems.append(
            f"batch {entry.number} searched with k={sorted(used_k - allowed)}; asked: {sorted(allowed)}"
        )
    archived = {u.source_id for u in records.uses if u.ok and _in_batch(u.batch, entry.number)}
    borrowed = [s for s in entry.sources if s not in archived and s in records.archived]
    unarchived = [s for s in entry.sources if s not in archived and s not in records.archived]
    if unarchived:
        problems.append(
            f"batch {entry.number} lists {', '.join(unarchived)} as archived; the source registry has no "
            "archive of them"
        )
    return BatchCheck(entry.number, not problems, problems, len(claimed) - len(missing), borrowed)
