"""One job's measures, read from its workspace: what the exports and the batch report show.

Sources, in order of trust: knowledge.json's `measures` object (written by the run's verification,
when it has one) for the quality counts; task.md for status, rounds, scores, facts, sources and the
copies among them (`copy_of`); the usage ledger for calls, tokens and cost; logs/events.jsonl for
wall time and the verification result.
A measure nothing records is None (null in JSON, empty in CSV), never a guess.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from deepresearch.core.budget import ledger_usage
from deepresearch.core.errors import StateError
from deepresearch.core.eventlog import read_events
from deepresearch.core.workspace import Workspace
from deepresearch.state.model import TaskDoc, Verified
from deepresearch.state.store import StateStore

# The keys of knowledge.json's "measures" object, in export order.
KNOWLEDGE_KEYS = (
    "facts_total",
    "facts_verified",
    "claims_checked",
    "claims_supported",
    "numbers_total",
    "numbers_grounded",
    "sources",
    "independent_sources",
    "copies_folded",
)


@dataclass
class JobMeasures:
    """Everything measured about one job; None where nothing records it."""

    status: str = ""  # task.md status (completed, researching, ...) or "" without task.md
    termination_reason: str = ""
    rounds: int = 0
    score: float | None = None  # the last round's quality score
    scores: list[float] = field(default_factory=list)  # per round, in order
    facts_total: int | None = None
    facts_verified: int | None = None
    claims_checked: int | None = None
    claims_supported: int | None = None
    numbers_total: int | None = None
    numbers_grounded: int | None = None
    sources: int | None = None
    independent_sources: int | None = None
    copies_folded: int | None = None
    agent_calls: int = 0
    output_repairs: int = 0  # outputs sent back because their contract could not read them
    outputs_lenient: int = 0  # outputs read although not written as asked (fenced, JSON, text around)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    minutes: float | None = None
    sessions: int = 0  # run sessions (one per start or resume)
    verification: str = "not verified"  # passed | failed: N problems | not verified
    report: bool = False  # report.md exists

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def measure(workspace: Workspace) -> JobMeasures:
    """Read every measure of one job's workspace (missing files leave their measures unset)."""
    found = JobMeasures(report=workspace.report_md.is_file())
    doc = _doc(workspace)
    if doc is not None:
        _from_doc(found, doc)
    _from_knowledge(found, workspace)
    usage = ledger_usage(workspace.usage_ledger)
    found.agent_calls, found.cost_usd = usage.calls, round(usage.cost_usd, 6)
    found.input_tokens, found.output_tokens = usage.input_tokens, usage.output_tokens
    _from_events(found, read_events(workspace))
    return found


def _doc(workspace: Workspace) -> TaskDoc | None:
    try:
        return StateStore(workspace).load()
    except (StateError, OSError):
        return None


def _from_doc(found: JobMeasures, doc: TaskDoc) -> None:
    found.status = doc.front.status.value
    found.termination_reason = doc.front.termination_reason
    found.rounds = max([doc.front.round, *(q.round for q in doc.quality)], default=0)
    found.scores = [q.score for q in sorted(doc.quality, key=lambda q: q.round)]
    found.score = found.scores[-1] if found.scores else None
    found.facts_total = len(doc.facts)
    found.facts_verified = sum(f.verified is Verified.YES for f in doc.facts)
    found.sources = len(doc.sources)
    found.independent_sources = len(doc.independent([s.id for s in doc.sources]))
    found.copies_folded = sum(1 for s in doc.sources if s.copy_of)


def _from_knowledge(found: JobMeasures, workspace: Workspace) -> None:
    """knowledge.json's measures win over what task.md alone can tell (they count copies once)."""
    try:
        data = json.loads(workspace.knowledge_json.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return
    measures = data.get("measures") if isinstance(data, dict) else None
    if not isinstance(measures, dict):
        return
    for key in KNOWLEDGE_KEYS:
        value = measures.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            setattr(found, key, value)


def _from_events(found: JobMeasures, events: list[dict[str, Any]]) -> None:
    """Wall time summed over sessions (a resumed run is not charged for the time it was stopped);
    the outputs repaired and those read leniently."""
    seconds, start, last = 0.0, None, None
    for event in events:
        found.output_repairs += event.get("event") == "output_repair"
        found.outputs_lenient += event.get("event") == "output_lenient"
        ts = event.get("ts")
        if not isinstance(ts, (int, float)):
            continue
        if event.get("event") == "run_started":
            found.sessions += 1
            if start is not None and last is not None:
                seconds += last - start
            start = ts
        if event.get("event") == "run_finished":
            violations = event.get("violations")
            found.verification = (
                "not verified"
                if not isinstance(violations, int)
                else "passed"
                if violations == 0
                else f"failed: {violations} problems"
            )
        last = ts
    if start is not None and last is not None:
        seconds += last - start
    found.minutes = round(seconds / 60, 3) if found.sessions else None
