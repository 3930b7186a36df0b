"""The search budget: one counter per workspace, shared by concurrent processes under a file lock."""

from __future__ import annotations

import json
from pathlib import Path

from deepresearch.core.errors import BudgetExhaustedError, StateError
from deepresearch.core.files import atomic_write, file_lock
from deepresearch.core.workspace import Workspace


def counter_path(workspace: Workspace) -> Path:
    """.deepresearch/searches.json: {"used": N}."""
    return workspace.private / "searches.json"


def _lock_path(workspace: Workspace) -> Path:
    # A separate lock file: the counter itself is replaced atomically, which would orphan a lock on it.
    return workspace.private / "searches.lock"


def _read(workspace: Workspace) -> int:
    path = counter_path(workspace)
    if not path.is_file():
        return 0
    try:
        used = json.loads(path.read_text(encoding="utf-8"))["used"]
    except (ValueError, KeyError, TypeError) as exc:
        raise StateError(
            f"unreadable search counter: {exc}",
            path=str(path),
            hint="delete the file to restart the count from 0 (the search log keeps the history)",
        ) from exc
    if not isinstance(used, int) or used < 0:
        raise StateError(f"search counter holds {used!r}, expected a count", path=str(path))
    return used


def searches_used(workspace: Workspace) -> int:
    """How many paid searches (cache misses) this workspace has spent so far."""
    with file_lock(_lock_path(workspace)):
        return _read(workspace)


def budget_message(used: int, limit: int) -> BudgetExhaustedError:
    """The error an agent sees at the budget: what happened and that it should stop searching."""
    return BudgetExhaustedError(
        f"search budget spent: {used} of {limit} searches used (max_searches). No search was made.",
        hint="stop searching and work with what you have: read and archive the sources already found "
        "(a query already searched still answers from the cache for free)",
    )


def reserve_search(workspace: Workspace, limit: int | None) -> int:
    """Count one search before making it; raises BudgetExhaustedError when `limit` is reached."""
    with file_lock(_lock_path(workspace)):
        used = _read(workspace)
        if limit is not None and used >= limit:
            raise budget_message(used, limit)
        atomic_write(counter_path(workspace), json.dumps({"used": used + 1}))
        return used + 1


def refund_search(workspace: Workspace) -> int:
    """Give back a reserved search that no provider answered (nothing was obtained for it)."""
    with file_lock(_lock_path(workspace)):
        used = max(_read(workspace) - 1, 0)
        atomic_write(counter_path(workspace), json.dumps({"used": used}))
        return used
