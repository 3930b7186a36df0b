"""A follow-up question in a workspace that has answered one: the knowledge base (dimensions,
facts, sources, conflicts, archives, the local index) stays and grows; the new question becomes the
current request.

Starting one (under the workspace lock, before anything else of the run):
- the earlier question's report is kept under reports/ with the task.md it was verified against
  (report/kept.py), and its Questions row names it;
- its usage ledger and search counter move to `.deepresearch/questions/<ID>/`, so the new question's
  budget starts from nothing and its economy is measured apart (pipeline/economy.py), and its
  agents' prompts, briefs, logs and output files to `logs/<ID>/`;
- tasks it left pending are skipped (they belonged to its question);
- a Questions row is added with the IDs known at this point, and the run goes back to planning.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

from deepresearch.core.clock import iso_seconds
from deepresearch.core.workspace import Workspace
from deepresearch.report.kept import keep_report
from deepresearch.state.model import Question, RunStatus, TaskDoc, TaskStatus, id_number, next_id
from deepresearch.state.questions import REPORT, current_question, is_follow_up, known_marks, questions_of


def spent_dir(workspace: Workspace, question_id: str) -> Path:
    """Where an earlier question's usage ledger and search counter are kept."""
    return workspace.spent_by_questions / question_id


def first_line(text: str) -> str:
    """The first line of a request, as the front matter and the Questions table show it."""
    stripped = text.strip()
    return stripped.splitlines()[0][:300] if stripped else ""


def begin_follow_up(
    workspace: Workspace, doc: TaskDoc, request: str, now: datetime, ledgers: Sequence[Path]
) -> TaskDoc:
    """Make `request` the current question of `doc` (a finished run); see the module docstring.
    `ledgers` are the budget's files that count what the earlier question spent."""
    questions = questions_of(doc)
    earlier = questions[-1]
    earlier.report = keep_report(workspace.root, id_number(earlier.id), earlier.question) or earlier.report
    _set_aside(ledgers, spent_dir(workspace, earlier.id))
    _set_aside(_agent_logs(workspace), workspace.logs / earlier.id)
    for task in doc.tasks:
        if task.status in (TaskStatus.PENDING, TaskStatus.RUNNING):
            task.status = TaskStatus.SKIPPED
    asked = Question(
        next_id([q.id for q in questions], "Q"),
        first_line(request),
        iso_seconds(now),
        doc.front.round + 1,
        known_marks(doc),
        REPORT,
    )
    doc.questions = [*questions, asked]
    doc.request = request.strip()
    doc.front.question = asked.question
    doc.front.status = RunStatus.PLANNING
    doc.front.termination_reason = ""
    doc.front.complexity = ""
    doc.outline = []  # the follow-up's report gets its own outline from the planner
    workspace.ensure()  # the log folders just set aside, afresh
    return doc


def _agent_logs(workspace: Workspace) -> list[Path]:
    """What the earlier question's agents left under logs/: prompts, briefs, each call's log and its
    folder with its output file (the run-wide logs, events and searches, stay: they are the workspace's history)."""
    logs = workspace.logs
    if not logs.is_dir():
        return []
    calls = [p for p in logs.iterdir() if p.is_file() and (p.suffix == ".log" or "_result" in p.name)]
    return [
        workspace.prompts,
        workspace.briefs,
        workspace.calls,  # each call's own folder, with its output file
        *sorted(p for p in calls if p != workspace.orchestrator_log),
    ]


def _set_aside(paths: Sequence[Path], folder: Path) -> None:
    for path in paths:
        if path.exists() and not (folder / path.name).exists():  # a repeat finds them moved already
            folder.mkdir(parents=True, exist_ok=True)
            path.replace(folder / path.name)


def renew_before(doc: TaskDoc, freshness_days: float, now: datetime) -> datetime | None:
    """The freshness cutoff of a follow-up: a known source archived before it is stale (None for a
    first question, whose sources are all new). Stale means archived more than `freshness_days`
    ago and before the question was asked: what this question archived is never stale."""
    if not is_follow_up(doc):
        return None
    try:
        asked = datetime.fromisoformat(current_question(doc).asked)
    except ValueError:
        asked = now
    asked = asked if asked.tzinfo else asked.replace(tzinfo=now.tzinfo)
    return min(asked, now - timedelta(days=freshness_days))
