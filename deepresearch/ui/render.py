"""The run view as rich renderables: header, DAG, agents at work, counters, final summary."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from deepresearch.pipeline.progress import RunProgress
from deepresearch.pipeline.status import RunView
from deepresearch.state.model import RunStatus
from deepresearch.state.questions import current_question, question_rounds
from deepresearch.ui.plain import by_role
from deepresearch.ui.tables import duration, progress_dag_table
from deepresearch.ui.text import ceilings_line, economy_line, rules_line

_FINAL = (RunStatus.COMPLETED, RunStatus.FAILED)


def scores(view: RunView) -> list[tuple[int, float]]:
    """(round, score) so far: task.md's Quality table, else the events."""
    if view.doc is not None and view.doc.quality:
        first = current_question(view.doc).round  # a follow-up's own rounds
        return [(q.round, q.score) for q in view.doc.quality if q.round >= first]
    return list(view.progress.scores)


def score_history(view: RunView) -> str:
    """6.5 → 8 (or - before the first reflection)."""
    return " → ".join(f"{score:g}" for _round, score in scores(view)) or "-"


def state_line(view: RunView) -> str:
    """Whether the run is going on, finished, waiting for approval or stopped (and resumable)."""
    doc, progress = view.doc, view.progress
    status = doc.front.status if doc is not None else None
    if view.owner_pid is not None:
        return f"running (PID {view.owner_pid})"
    if status in _FINAL:
        return "finished"
    if status is RunStatus.PLANNING and doc is not None and doc.tasks:
        return "plan awaiting approval: run `deepresearch` in a terminal to review it (or add --yes)"
    if status is None and not progress.question:
        return "no run here"
    return "stopped, resumable: run `deepresearch` in this folder to continue"


def header(view: RunView) -> Text:
    """Question, phase, round, state, elapsed time and the score history."""
    doc, progress = view.doc, view.progress
    question = doc.front.question if doc is not None else progress.question
    status = doc.front.status.value if doc is not None else "-"
    round_no = doc.front.round if doc is not None else progress.round
    text = Text()
    text.append("deepresearch ", style="bold")
    text.append(question or "(no question yet)", style="bold cyan")
    text.append(f"\nphase {progress.phase or '-'} · round {round_no} · status {status} · {state_line(view)}")
    if progress.started is not None:
        until = progress.last_event if view.owner_pid is None else None
        text.append(f" · {duration(view.elapsed(progress.started, until))}")
    text.append(f"\nquality: {score_history(view)}")
    return text


def agents_table(view: RunView) -> Table:
    """The agents running now: label, role, CLI, elapsed time, last line of their log."""
    table = Table(title="Agents at work", title_justify="left")
    for name in ("Agent", "Role", "CLI", "Elapsed", "Last log line"):
        table.add_column(name, no_wrap=name != "Last log line", overflow="ellipsis")
    for run in sorted(view.progress.running.values(), key=lambda r: r.started):
        log = view.last_log_line(run.label)
        attempt = f" (try {run.attempt})" if run.attempt > 1 else ""
        cli = f"{run.agent}/{run.model}" if run.model else run.agent
        table.add_row(run.label + attempt, run.role, cli, duration(view.elapsed(run.started)), log)
    return table


def calls_used(progress: RunProgress) -> str:
    """Agent calls so far, of the run's ceiling when it has one: "7 of 20"."""
    ceiling = progress.ceilings.get("agent_calls")
    return f"{progress.agent_calls} of {ceiling}" if isinstance(ceiling, int) else str(progress.agent_calls)


def counters(view: RunView) -> Text:
    """Sources archived, facts (verified), agent calls (of the ceiling), tokens and cost so far."""
    p = view.progress
    facts = len(view.doc.facts) if view.doc is not None else 0
    return Text(
        f"sources archived: {view.sources_archived} · facts: {facts} ({view.facts_verified} verified) · "
        f"agent calls: {calls_used(p)} · tokens: {p.input_tokens} in / {p.output_tokens} out · "
        f"cost: ${p.cost_usd:.4f}"
    )


def batches_text(progress: RunProgress) -> Text:
    """Each executor task's batches: trusted or not, what code measured as new, and the decision."""
    text = Text()
    text.append("Batches (novelty measured by code)", style="bold")
    if progress.rules:
        text.append("\n" + rules_line(progress.rules), style="dim")
    for task_id, task in sorted(progress.batches.items()):
        for b in sorted(task.batches, key=lambda b: b.batch):
            said = (
                ""
                if b.claimed_new is None
                else f" (executor said: {'new' if b.claimed_new else 'nothing new'})"
            )
            what = "new: " + "; ".join(b.reasons) if b.new else "nothing new"
            text.append(f"\n  {task_id} call {b.call} batch {b.batch}: {what}{said}")
            if not b.trusted:
                text.append(" — not trusted: " + "; ".join(b.problems), style="yellow")
        if task.decision:
            verb = "another call:" if task.more else "done:"
            text.append(
                f"\n  {task_id} after {task.calls} call{'s' * (task.calls != 1)}, {verb} {task.decision}"
            )
    return text


def outcome(view: RunView) -> str:
    """completed, failed, planning...: how the last session left the run."""
    finished = view.progress.finished or {}
    return str(finished.get("status") or (view.doc.front.status.value if view.doc is not None else "unknown"))


def summary_lines(view: RunView) -> list[str]:
    """The final summary: outcome and reason, report, rounds and scores, usage and cost."""
    finished = view.progress.finished or {}
    doc = view.doc
    status = outcome(view)
    reason = str(finished.get("reason") or (doc.front.termination_reason if doc is not None else ""))
    report = finished.get("report") or view.report_path
    violations = finished.get("violations")
    verified = ""
    if isinstance(violations, int):
        verified = (
            " (verified: every check passed)" if violations == 0 else f" ({violations} verification problems)"
        )
    rounds = max(question_rounds(doc, doc.front.round), 0) if doc is not None else finished.get("rounds", 0)
    p = view.progress
    lines = [
        f"research {status}" + (f": {reason}" if reason else ""),
        f"  report: {report or _no_report(view, reason)}{verified}",
        f"  rounds: {rounds}; scores: {score_history(view)}",
        f"  agent calls: {calls_used(p)}{by_role(p.calls_by_role)}; tokens: {p.input_tokens} in / "
        f"{p.output_tokens} out; cost: ${p.cost_usd:.4f}",
    ]
    if p.ceilings:
        lines.append(f"  ceilings: {ceilings_line(p.ceilings)}")
    economy = finished.get("economy") or (view.economy.to_dict() if view.economy is not None else {})
    if economy:
        lines.append(f"  {economy_line(economy)}")
    return lines


def _no_report(view: RunView, reason: str) -> str:
    """What to run to get a report, for a run that stopped before writing one."""
    if outcome(view) == "planning":
        return "- (the plan waits for approval)"
    first = "raise the ceiling that stopped it, then " if "budget spent" in reason else ""
    return f"none yet: {first}run `deepresearch -o {view.workspace.root}` to continue and write it"


_MEASURES = (
    ("facts verified", "facts_verified", "facts_total"),
    ("claims supported", "claims_supported", "claims_checked"),
    ("numbers grounded", "numbers_grounded", "numbers_total"),
)


def questions_text(view: RunView) -> Text:
    """The questions asked in the workspace (each with its date and report) and the latest
    report's measures, for `deepresearch status`."""
    doc = view.doc
    text = Text()
    if doc is None or not doc.questions:
        return text
    text.append("Questions asked here", style="bold")
    for q in doc.questions:
        report = q.report or "-"
        if q is doc.questions[-1] and not view.report_path:
            report += " (not written yet)"
        text.append(f"\n  {q.id} {q.asked[:10] or '-'} {q.question} → {report}")
    m = view.measures
    if m:
        parts = [f"{name} {m.get(part, 0)} of {m.get(whole, 0)}" for name, part, whole in _MEASURES]
        parts.append(f"independent sources {m.get('independent_sources', 0)} of {m.get('sources', 0)}")
        text.append(f"\nlatest report ({doc.questions[-1].report}): " + " · ".join(parts))
    return text


def one_line(text: str, width: int = 160) -> str:
    """The first line of `text`, cut to `width` characters."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= width else first[: width - 1] + "…"


def is_final(view: RunView) -> bool:
    """Whether the run has finished (completed or failed), or its last session ended."""
    status = view.doc.front.status if view.doc is not None else None
    return view.owner_pid is None and (status in _FINAL or view.progress.finished is not None)


def render_view(
    view: RunView, with_summary: bool | None = None, batches: bool = False, questions: bool = False
) -> RenderableType:
    """The whole view; the summary is included once the run is over (or when asked); `batches`
    adds every executor batch with the novelty code measured, `questions` the questions asked in
    the workspace and the latest report's measures (both for `deepresearch status`)."""
    parts: list[RenderableType] = [header(view)]
    if view.doc_note:
        parts.append(Text(view.doc_note, style="yellow"))
    if (view.doc is not None and view.doc.tasks) or view.progress.tasks:
        parts.append(progress_dag_table(view.doc, view.progress, view.now))
    if view.progress.running:
        parts.append(agents_table(view))
    parts.append(counters(view))
    if batches and view.progress.batches:
        parts.append(batches_text(view.progress))
    if questions and view.doc is not None and view.doc.questions:
        parts.append(questions_text(view))
    for warning in view.progress.warnings:
        parts.append(Text(f"warning: {one_line(warning)}", style="yellow", no_wrap=True, overflow="ellipsis"))
    if with_summary if with_summary is not None else is_final(view):
        parts.append(render_summary(view))
    return Group(*parts)


def render_summary(view: RunView) -> Text:
    """The final summary as rich text (bold outcome line)."""
    lines = summary_lines(view)
    text = Text()
    text.append(lines[0], style="bold green" if outcome(view) == "completed" else "bold yellow")
    for line in lines[1:]:
        text.append("\n" + line)
    return text
