"""Which executor task (and which of its Top-K batches) a search or an archive was made for.

The orchestrator puts the task in each executor's environment (`DEEPRESEARCH_TASK`); the agent
passes the batch it is working on (`--batch N`, or `DEEPRESEARCH_BATCH`). `deepresearch search`
and `deepresearch archive` write both into their records (the search log's lines, the source
registry's entries), so code can check an executor's batch log against what was really done.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TASK_ENV = "DEEPRESEARCH_TASK"
BATCH_ENV = "DEEPRESEARCH_BATCH"
CALL_ENV = "DEEPRESEARCH_CALL"  # the agent call's name (E1, E1.batch2 with batch_calls: per_batch)


@dataclass(frozen=True)
class Attribution:
    """A task ID and batch number; empty when a person runs the command by hand."""

    task: str = ""
    batch: int | None = None

    def __bool__(self) -> bool:
        return bool(self.task) or self.batch is not None

    def fields(self) -> dict[str, Any]:
        """The record fields: {"task": ..., "batch": ...} (nothing when unattributed)."""
        return {"task": self.task, "batch": self.batch} if self else {}

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Attribution:
        """The attribution a record carries (a search-log line, a registry entry)."""
        batch = record.get("batch")
        return cls(str(record.get("task") or ""), batch if isinstance(batch, int) else None)


BY_HAND = Attribution()  # a command a person ran: attributed to no task
