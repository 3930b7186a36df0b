"""What a question cost, and what it reused: the economy of a follow-up, measured by code.

Spent on the current question: its agent calls (the usage ledger), its paid searches (the search
counter) and the sources it archived (registry IDs above the ones known when it was asked). Reused:
sources of earlier questions that its report or its new facts cite, and facts of earlier questions
whose sources its report cites. Earlier questions' spending is read from what they left in
`.deepresearch/questions/<ID>/` (pipeline/followup.py) and from the registry.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.core.budget import ledger_usage
from deepresearch.core.workspace import Workspace
from deepresearch.report.blocks import strip_generated_sections
from deepresearch.report.citations import cited_in_order
from deepresearch.sources.registry import SourceRegistry
from deepresearch.state.model import TaskDoc
from deepresearch.state.questions import current_question, from_earlier, is_follow_up

SEARCH_COUNTER = "searches.json"  # core.budget.Budget.search_counter's name


@dataclass(frozen=True)
class Spend:
    """Agent calls, paid searches and new archives."""

    agent_calls: int = 0
    searches: int = 0
    archives: int = 0


@dataclass(frozen=True)
class Economy:
    """The current question's spending against what it reused from earlier questions."""

    question: str
    follow_up: bool
    spent: Spend = field(default_factory=Spend)
    earlier: Spend = field(default_factory=Spend)  # what the earlier questions spent, all together
    reused_sources: int = 0
    reused_facts: int = 0
    new_sources: int = 0  # sources this question added to task.md
    new_facts: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (for the run_finished event)."""
        return asdict(self)


def _searches(path: Path) -> int:
    try:
        used = json.loads(path.read_text(encoding="utf-8")).get("used", 0)
    except (OSError, ValueError, AttributeError):
        return 0
    return used if isinstance(used, int) and used >= 0 else 0


def _cited(workspace: Workspace) -> set[str]:
    try:
        text = workspace.report_md.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    return set(cited_in_order(strip_generated_sections(text)))


def measure_economy(workspace: Workspace, doc: TaskDoc) -> Economy:
    """The economy of the current question (read-only: safe beside a running run)."""
    kept = sorted(workspace.spent_by_questions.glob("*/")) if workspace.spent_by_questions.is_dir() else []
    archived = [r.id for r in SourceRegistry(workspace).archived()]
    earlier_archives = sum(from_earlier(doc, i) for i in archived)
    earlier = Spend(
        sum(ledger_usage(folder / workspace.usage_ledger.name).calls for folder in kept),
        sum(_searches(folder / SEARCH_COUNTER) for folder in kept),
        earlier_archives,
    )
    spent = Spend(
        ledger_usage(workspace.usage_ledger).calls,
        _searches(workspace.private / SEARCH_COUNTER),
        len(archived) - earlier_archives,
    )
    new_facts = [f for f in doc.facts if not from_earlier(doc, f.id)]
    cited = _cited(workspace) if current_question(doc).report else set()
    used = cited | {s for f in new_facts for s in f.sources}
    return Economy(
        current_question(doc).id,
        is_follow_up(doc),
        spent,
        earlier,
        reused_sources=sum(1 for s in doc.sources if s.id in used and from_earlier(doc, s.id)),
        reused_facts=sum(1 for f in doc.facts if from_earlier(doc, f.id) and cited & set(f.sources)),
        new_sources=sum(1 for s in doc.sources if not from_earlier(doc, s.id)),
        new_facts=len(new_facts),
    )
