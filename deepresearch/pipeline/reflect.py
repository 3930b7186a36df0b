"""Phase: reflect. The reflector scores the research; code records it and decides what comes next."""

from __future__ import annotations

from deepresearch.contracts.reflect import Assessment, fallback_assessment
from deepresearch.core.config import Config
from deepresearch.core.events import Notice, PhaseFinished, PhaseStarted, RoundFinished
from deepresearch.pipeline.conflicts import conflict_tasks, weigh_all
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import REFLECTOR
from deepresearch.pipeline.step import output_file, run_step
from deepresearch.pipeline.stop import Decision, decide
from deepresearch.state.model import (
    Conflict,
    Gap,
    GapStatus,
    Priority,
    QualityRow,
    RunStatus,
    Support,
    Task,
    TaskStatus,
    Verified,
    next_id,
)  # fmt: skip
from deepresearch.state.questions import current_question, question_rounds


def assess(ctx: RunContext) -> Assessment:
    """Run the reflector; an unreadable assessment (after one repair) becomes the fallback."""
    doc = ctx.doc
    output = output_file(ctx, REFLECTOR)
    prompt = render_prompt(
        REFLECTOR.template,
        role=REFLECTOR.role,
        task_id="",
        round=doc.front.round,
        output_file=ctx.workspace.relative(output),
        today=ctx.today,
        request=doc.request,
        threshold=ctx.config.quality_threshold,
        # rounds continue across follow-up questions; each question has max_rounds of its own
        max_rounds=ctx.config.max_rounds + current_question(doc).round - 1,
        breadth=ctx.config.breadth,
        fact_count=len(doc.facts),
        source_count=len(doc.sources),
        unverified=[f.id for f in doc.facts if f.verified is Verified.NO],
        unsupported=[f.id for f in doc.facts if f.support is Support.UNSUPPORTED],
        single_source=sum(len(doc.independent(f.sources)) == 1 for f in doc.facts),
        outline=doc.outline,
        suspicious=[s for s in doc.sources if s.id in doc.suspicious()],
    )
    step = run_step(ctx, REFLECTOR, prompt)
    if step.value is None:
        ctx.sink(
            Notice(f"reflector assessment unusable ({step.failure}); using score 5 and going on", "warning")
        )
        return fallback_assessment()
    step.value.score = overall_score(ctx.config, step.value)
    return step.value


def overall_score(config: Config, assessment: Assessment) -> float:
    """The weighted mean of the sub-scores the reflector gave (configurable weights), else its score."""
    weights = {
        "completeness": config.weight_completeness,
        "depth": config.weight_depth,
        "reliability": config.weight_reliability,
        "actionability": config.weight_actionability,
    }
    given = {k: v for k, v in assessment.sub_scores.items() if weights.get(k, 0) > 0}
    total = sum(weights[k] for k in given)
    if not given or total <= 0:
        return assessment.score
    return round(sum(v * weights[k] for k, v in given.items()) / total, 2)


def record_assessment(ctx: RunContext, assessment: Assessment) -> None:
    """Coverage, hallucination flags, conflicts and gaps from the assessment into the document."""
    doc = ctx.doc
    for dim in doc.dimensions:
        dim.coverage = assessment.coverage.get(dim.id, dim.coverage)
    for fact in doc.facts:
        if fact.id in assessment.hallucinations:
            fact.verified = Verified.NO
    known_sets = {frozenset(c.facts) for c in doc.conflicts}
    fact_ids = {f.id for f in doc.facts}
    for claim in assessment.conflicts:
        if frozenset(claim.facts) in known_sets or not set(claim.facts) <= fact_ids:
            continue
        conflict_id = next_id([c.id for c in doc.conflicts], "CONF-")
        doc.conflicts.append(
            Conflict(conflict_id, claim.topic, claim.facts, claim.severity, "", claim.suggested_wording)
        )
        known_sets.add(frozenset(claim.facts))
    listed = set(assessment.knowledge_gaps)
    for gap in doc.gaps:
        if gap.status is not GapStatus.CLOSED and gap.gap not in listed:
            gap.status = GapStatus.CLOSED
    open_texts = {g.gap for g in doc.gaps if g.status is not GapStatus.CLOSED}
    for text in assessment.knowledge_gaps:
        if text not in open_texts:
            doc.gaps.append(Gap(next_id([g.id for g in doc.gaps], "G"), text, doc.front.round))


def _proposals(ctx: RunContext, assessment: Assessment) -> list[tuple[str, list[str], Priority, list[str]]]:
    """Candidate tasks in order: the reflector's own, then gaps with the suggested directions, then
    (fixed mode only, to keep its breadth fixed) one task per dimension to deepen it."""
    doc = ctx.doc
    all_dims = [d.id for d in doc.dimensions]
    out = [(t.task, t.dimensions or all_dims[:1], t.priority, t.depends) for t in assessment.new_tasks]
    directions = assessment.suggested_directions
    gaps = [g for g in assessment.knowledge_gaps if not assessment.fallback]
    for n, gap in enumerate(gaps):
        hint = f" (look at: {directions[n]})" if n < len(directions) else ""
        out.append((f"Close the gap: {gap}{hint}", all_dims[:1], Priority.HIGH, []))
    if ctx.config.mode == "fixed" and doc.dimensions:
        next_round = doc.front.round + 1
        for n in range(ctx.config.breadth):
            dim = doc.dimensions[n % len(doc.dimensions)]
            part = f", part {n // len(doc.dimensions) + 1}" if n >= len(doc.dimensions) else ""
            title = f"Deepen {dim.id} {dim.name} (round {next_round}{part}): further primary sources and specifics"
            out.append((title, [dim.id], Priority.MEDIUM, []))
    return out


def plan_next_round(ctx: RunContext, assessment: Assessment) -> list[Task]:
    """New E-tasks for the next round (at most `breadth`), linked to dimensions."""
    doc = ctx.doc
    next_round = doc.front.round + 1
    existing = {t.title.strip().lower() for t in doc.tasks}
    created: list[Task] = []
    task_ids = {t.id for t in doc.tasks}
    for title, dims, priority, depends in _proposals(ctx, assessment):
        if len(created) >= ctx.config.breadth or title.strip().lower() in existing:
            continue
        task_id = next_id([t.id for t in doc.tasks], "E")
        deps = [d for d in depends if d in task_ids]
        task = Task(task_id, title, list(dims), priority, deps, TaskStatus.PENDING, next_round)
        doc.tasks.append(task)
        task_ids.add(task_id)
        existing.add(title.strip().lower())
        created.append(task)
    for gap in doc.gaps:
        if gap.status is GapStatus.OPEN and created:
            gap.status = GapStatus.ADDRESSED
    return created


def reflect(ctx: RunContext) -> Decision:
    """Assess the round, record the Quality row, and either set up the next round or stop."""
    round_no = ctx.doc.front.round
    ctx.sink(PhaseStarted("reflect", round_no))
    assessment = assess(ctx)
    ctx.refresh()  # a person may have edited task.md while the reflector read it
    doc = ctx.doc
    record_assessment(ctx, assessment)
    weigh_all(ctx)
    # Rounds and scores of this question only: a follow-up's rules start from its first round.
    first = current_question(doc).round
    previous = [q.score for q in doc.quality if first <= q.round < round_no]
    spent = ctx.budget.spent()
    decision = decide(ctx.config, question_rounds(doc, round_no), assessment, previous, spent)
    new_tasks: list[Task] = []
    if not decision.stop:
        new_tasks = plan_next_round(ctx, assessment) + conflict_tasks(ctx, round_no + 1)
        if not new_tasks:
            decision = Decision(True, "no new research tasks could be derived from the gaps")
    subs = assessment.sub_scores
    doc.quality = [q for q in doc.quality if q.round != round_no]
    doc.quality.append(
        QualityRow(round_no, assessment.score, subs.get("completeness"), subs.get("depth"),
                   subs.get("reliability"), subs.get("actionability"), len(assessment.knowledge_gaps),
                   decision.label)
    )  # fmt: skip
    if decision.stop:
        doc.front.status = RunStatus.SYNTHESIZING
        doc.front.termination_reason = decision.reason
    else:
        doc.front.round = round_no + 1
        doc.front.status = RunStatus.RESEARCHING
    ctx.save(f"reflect-r{round_no}")
    gaps = len(assessment.knowledge_gaps)
    ctx.sink(
        RoundFinished(
            round_no,
            assessment.score,
            gaps,
            decision.label,
            decision.reason,
            spent.agent_calls,
            spent.cost_usd,
            assessment.section_coverage,
        )
    )
    ctx.sink(
        PhaseFinished("reflect", round_no, f"{len(new_tasks)} new tasks" if new_tasks else decision.label)
    )
    return decision
