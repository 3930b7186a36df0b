"""Phase: plan. The planner turns the request into dimensions, an outline and the first tasks."""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.contracts.plan import ClarifyOutput, PlanOutput
from deepresearch.core.errors import AgentError
from deepresearch.core.events import Notice, PhaseFinished, PhaseStarted
from deepresearch.core.languages import describe, parse_choice
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.languages import question_language, settle
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import CLARIFY, PLANNER
from deepresearch.pipeline.step import output_file, run_step
from deepresearch.state.model import RunStatus, TaskStatus


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


def plan(ctx: RunContext, answers: list[Answer] | None = None, feedback: str = "") -> PlanOutput:
    """Run the planner and install its plan in task.md (status researching, round 1)."""
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
    ctx.sink(
        PhaseFinished("plan", 0, f"{len(step.value.tasks)} tasks, {len(step.value.dimensions)} dimensions")
    )
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
    """Write the plan into the document (the person's language choice applied) and save it."""
    doc = ctx.doc
    doc.front.languages = settle(result.languages, doc.request, parse_choice(ctx.config.languages))
    if not doc.front.languages:
        ctx.sink(Notice("the languages setting leaves no language to search in: none is checked", "warning"))
    doc.front.complexity = result.complexity
    doc.dimensions = result.dimensions
    doc.outline = result.outline
    for task in result.tasks:
        task.status = TaskStatus.PENDING
        task.round = 1
    doc.tasks = result.tasks
    doc.front.status = RunStatus.RESEARCHING
    doc.front.round = 1
    ctx.save("plan")
