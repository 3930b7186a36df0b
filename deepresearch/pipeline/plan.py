"""Phase: plan. The planner turns the request into dimensions, an outline and the first tasks."""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.contracts.plan import ClarifyOutput, PlanOutput
from deepresearch.core.errors import AgentError
from deepresearch.core.events import Notice, PhaseFinished, PhaseStarted
from deepresearch.core.languages import describe, parse_choice
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.known import known_base, known_plan
from deepresearch.pipeline.languages import question_language, settle
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import CLARIFY, PLANNER
from deepresearch.pipeline.step import output_file, run_step
from deepresearch.state.model import RunStatus, Task, TaskDoc, TaskStatus
from deepresearch.state.questions import current_question, is_follow_up


@dataclass(frozen=True)
class Answer:
    question: str
    answer: str


def constraints(ctx: RunContext) -> list[str]:
    """Run settings the planner must respect (time scope, geography, sources, exclusions)."""
    c = ctx.config
    pairs = [
        ("Time scope", c.time_scope),
        ("Geography", c.geography),
        ("Source requirements", c.source_requirements),
        ("Exclusions", c.exclusions),
        ("Report language", c.language),
    ]
    provided = "; ".join(f"{s.id} {s.title}" for s in ctx.doc.sources if s.type == "provided")
    pairs.append(("Documents the person provided (archived; searchable with `search --local`)", provided))
    return [f"{name}: {value}" for name, value in pairs if value]


def clarify(ctx: RunContext) -> ClarifyOutput:
    """Ask the planner (clarify mode) for up to five clarifying questions; none on failure."""
    output = output_file(ctx, CLARIFY)
    prompt = render_prompt(
        CLARIFY.template, role=CLARIFY.role, task_id="", round=0, output_file=ctx.workspace.relative(output),
        today=ctx.today, request=ctx.doc.request,
    )  # fmt: skip
    step = run_step(ctx, CLARIFY, prompt)
    return step.value or ClarifyOutput([])


def question_tasks(doc: TaskDoc) -> list[Task]:
    """The tasks of the current question (all of them for a first question)."""
    first = current_question(doc).round
    return [t for t in doc.tasks if t.round >= first]


def plan(ctx: RunContext, answers: list[Answer] | None = None, feedback: str = "") -> PlanOutput:
    """Run the planner and install its plan in task.md (status researching, round 1 or the follow-up's
    first round; synthesizing when a follow-up needs no new research)."""
    ctx.sink(PhaseStarted("plan", 0))
    output = output_file(ctx, PLANNER)
    prompt = render_prompt(
        PLANNER.template,
        role=PLANNER.role,
        task_id="",
        round=0,
        output_file=ctx.workspace.relative(output),
        today=ctx.today,
        request=ctx.doc.request,
        answers=answers or [],
        feedback=feedback,
        constraints=constraints(ctx),
        max_tasks=ctx.config.max_tasks,
        language=ctx.config.language or "",
        known=known_base(ctx.doc, ctx.config.freshness_days, ctx.clock()),
        question_language=describe(code) if (code := question_language(ctx.doc.request)) else "",
        languages_setting=language_setting(ctx),
    )
    step = run_step(ctx, PLANNER, prompt)
    if step.value is None:
        raise AgentError(
            f"the planner did not produce a usable plan: {step.failure}",
            hint=f"see {ctx.workspace.relative(ctx.workspace.log_file('planner'))} and "
            f"{ctx.workspace.relative(output)}; run again to retry",
        )
    install_plan(ctx, step.value)
    detail = f"{len(step.value.tasks)} tasks, {len(step.value.dimensions)} dimensions"
    if is_follow_up(ctx.doc):
        tasks, dims = len(step.value.tasks), len(step.value.dimensions)
        detail = f"{tasks} new task{'s' * (tasks != 1)}, {dims} new dimension{'s' * (dims != 1)}"
    ctx.sink(PhaseFinished("plan", 0, detail))
    return step.value


def language_setting(ctx: RunContext) -> str:
    """What the person said about the languages to search (`languages:`), for the planner."""
    choice = parse_choice(ctx.config.languages)
    parts = []
    if choice.exact:
        parts.append(f"search in exactly these: {', '.join(map(describe, choice.exact))}")
    if choice.add:
        parts.append(f"search also in {', '.join(map(describe, choice.add))}")
    if choice.remove:
        parts.append(f"do not search in {', '.join(map(describe, choice.remove))}")
    return "; ".join(parts)


def install_plan(ctx: RunContext, result: PlanOutput) -> None:
    """Write the plan into the document (the person's language choice applied) and save it. A
    follow-up's plan adds to the knowledge base (replacing only what an earlier plan for the same
    question added); with no new task the follow-up goes straight to the report."""
    doc = ctx.doc
    doc.front.languages = settle(result.languages, doc.request, parse_choice(ctx.config.languages))
    if not doc.front.languages:
        ctx.sink(Notice("the languages setting leaves no language to search in: none is checked", "warning"))
    first = current_question(doc).round
    known = known_plan(doc)
    keep_dims = set(known.dimensions) if known is not None else set()
    doc.front.complexity = result.complexity
    doc.dimensions = [d for d in doc.dimensions if d.id in keep_dims] + result.dimensions
    doc.outline = result.outline
    for task in result.tasks:
        task.status = TaskStatus.PENDING
        task.round = first
    doc.tasks = [t for t in doc.tasks if t.round < first] + result.tasks
    if result.tasks:
        doc.front.status = RunStatus.RESEARCHING
        doc.front.round = first
    else:
        doc.front.status = RunStatus.SYNTHESIZING
        doc.front.termination_reason = "everything the follow-up needs is known: no new research"
        ctx.sink(Notice("the plan needs no new research: the report is written from what is known"))
    ctx.save("plan")
