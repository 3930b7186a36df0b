"""The run's final summary: the whole run (every session's calls, from the usage ledger), under the
ceilings of this session, and what its report is.

A resumed run's summary counts what the run made in all, not only this invocation, with this
session's calls beside them; a termination reason an earlier session recorded under another
ceiling says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from deepresearch.core.budget import ledger_usage
from deepresearch.core.effort import Limits
from deepresearch.core.files import read_jsonl
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.economy import Economy


@dataclass
class RunSummary:
    status: str
    reason: str
    report: str | None
    rounds: int
    scores: list[float] = field(default_factory=list)
    agent_calls: int = 0  # the whole run's, across sessions
    calls_by_role: dict[str, int] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    violations: int | None = None  # None when no report was verified in this session
    session_calls: int = 0  # this invocation's
    cause: str = ""  # why the report is not the one the run meant to write: budget | agent | ""
    cause_reason: str = ""
    economy: Economy | None = None  # a follow-up's: spent on this question, reused from earlier ones


@dataclass(frozen=True)
class WholeRun:
    """Calls (by role), tokens and cost of every session of the run."""

    calls: int
    calls_by_role: dict[str, int]
    input_tokens: int
    output_tokens: int
    cost_usd: float


def whole_run(workspace: Workspace) -> WholeRun:
    """What the usage ledger records for the run, all sessions together."""
    usage = ledger_usage(workspace.usage_ledger)
    by_role: dict[str, int] = {}
    for entry in read_jsonl(workspace.usage_ledger):
        role = str(entry.get("role") or "unknown")
        by_role[role] = by_role.get(role, 0) + 1
    return WholeRun(usage.calls, by_role, usage.input_tokens, usage.output_tokens, usage.cost_usd)


def budget_stop(reason: str) -> bool:
    """Whether a termination reason is a ceiling's."""
    return "budget spent" in reason


def current_reason(recorded: str, earlier: bool, limits: Limits) -> str:
    """The termination reason to show: one an earlier session recorded when a ceiling stopped it
    says so, with the ceiling this session ran under."""
    if not (earlier and budget_stop(recorded)):
        return recorded
    ceiling = f"{limits.agent_calls} agent calls" if limits.agent_calls is not None else "no call limit"
    return f"{recorded} — recorded by an earlier session; resumed with a ceiling of {ceiling}"
