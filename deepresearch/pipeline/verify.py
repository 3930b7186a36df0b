"""Phase: support. The verifier role judges whether evidence supports claims; code records it.

- After each round's execution: one call for every fact not judged yet whose quote code found in
  the archive (statement, quote, source title) → task.md's Facts `Support` and `Support reason`.
  The verdict has consequences: an `unsupported` fact leaves the closed world (the synthesizer is
  not offered it, the report check does not count it as evidence, figures refuse it, saturation
  ignores it); a `partial` fact is offered with its reason.
- On each report draft (inside the synthesizer's check, so the one repair carries both): one call for
  the cited sentences without a verdict (each with the statements and quotes of the facts of the
  sources it cites, a partial fact with the verifier's reason, no unsupported fact) →
  `.deepresearch/support.json`; an unsupported sentence is an `unsupported_claim` violation of the
  draft.

`verify_support: never` switches it off. A call the budget cannot afford is not started, and a
verifier that fails costs nothing but the verdicts: claims stay "not checked", with the reason kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from deepresearch.core.errors import AgentError, BudgetExhaustedError, NoAgentError
from deepresearch.core.events import Notice, PhaseFinished, PhaseStarted
from deepresearch.core.spendplan import Stage
from deepresearch.evidence.support import SupportStore, Verdict
from deepresearch.figures import RenderedFigure, insert_figures
from deepresearch.pipeline.checks import CheckResult, check_draft
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import VERIFIER, VERIFIER_REPORT, RoleSpec, StepScope
from deepresearch.pipeline.step import output_file, run_step
from deepresearch.report.blocks import body_blocks, strip_generated_sections
from deepresearch.report.claims import Claim, cited_claims
from deepresearch.sources.quotes import tokens
from deepresearch.state.model import Fact, Support, TaskDoc, Verified

MAX_FACTS_PER_CLAIM = 6  # the cited facts shown for one sentence, most related first


@dataclass(frozen=True)
class Item:
    """One thing to judge: its ID, the claim, where it comes from, and the evidence shown."""

    id: str
    claim: str
    source: str
    evidence: tuple[str, ...]


def _judge(
    ctx: RunContext,
    spec: RoleSpec[dict[str, Verdict]],
    kind: str,
    items: list[Item],
    name: str,
    stage: Stage = Stage.RESEARCH,
) -> tuple[dict[str, Verdict] | None, str]:
    """(verdicts by item ID, "") or (None, why they could not be had). Never raises for a failure."""
    prompt = render_prompt(
        spec.template, role=spec.role, task_id="", round=ctx.doc.front.round,
        output_file=ctx.workspace.relative(output_file(ctx, spec)), today=ctx.today, kind=kind, items=items,
    )  # fmt: skip
    try:
        step = run_step(ctx, spec, prompt, StepScope(task_ids=tuple(i.id for i in items)), name, stage)
    except (AgentError, NoAgentError, BudgetExhaustedError) as exc:
        return None, str(exc)
    return (step.value, "") if step.value is not None else (None, step.failure)


def _fact_item(doc: TaskDoc, fact: Fact) -> Item:
    titles = [f"{s.title} ({s.id})" for s in map(doc.source, fact.sources) if s is not None]
    return Item(fact.id, fact.statement, "; ".join(titles) or ", ".join(fact.sources), (fact.quote,))


def verify_facts(ctx: RunContext) -> None:
    """Judge the facts not judged yet (one call) and record their support in task.md."""
    doc, round_no = ctx.doc, ctx.doc.front.round
    todo = [
        f
        for f in doc.facts
        if f.support is Support.UNCHECKED and f.verified in (Verified.YES, Verified.PARTIAL)
    ]
    if ctx.config.verify_support == "never" or not todo:
        return
    # The reflector's call follows this one (research), and the report's share after it.
    spent = ctx.budget.refusal(Stage.RESEARCH, extra=1)
    if spent:
        ctx.sink(Notice(f"support of {len(todo)} facts not checked: {spent}", "warning"))
        return
    ctx.sink(PhaseStarted("support", round_no))
    items = [_fact_item(doc, f) for f in todo]
    verdicts, why = _judge(ctx, VERIFIER, "facts", items, f"verifier-r{round_no}")
    if verdicts is None:
        ctx.sink(Notice(f"support of {len(todo)} facts not checked: the verifier failed: {why}", "warning"))
        ctx.sink(PhaseFinished("support", round_no, "not checked"))
        return
    ctx.refresh()  # a person may have edited task.md while the verifier ran
    for fact in ctx.doc.facts:
        if fact.id in verdicts and fact.support is Support.UNCHECKED:
            fact.support = verdicts[fact.id].support
            fact.support_reason = verdicts[fact.id].reason
    ctx.save(f"support-r{round_no}")
    counts = {s: sum(v.support is s for v in verdicts.values()) for s in Support}
    detail = ", ".join(
        f"{counts[s]} {s.value}" for s in (Support.SUPPORTED, Support.PARTIAL, Support.UNSUPPORTED)
    )
    ctx.sink(PhaseFinished("support", round_no, detail))


def _related(claim: Claim, facts: Sequence[Fact]) -> list[Fact]:
    """The facts most related to the claim's words first (at most MAX_FACTS_PER_CLAIM)."""
    words = set(tokens(claim.text))
    ranked = sorted(facts, key=lambda f: -len(words & set(tokens(f"{f.statement} {f.quote}"))))
    return ranked[:MAX_FACTS_PER_CLAIM]


def fact_evidence(fact: Fact) -> str:
    """A fact as the report's verifier sees it: a partial one with what its verdict says it lacks."""
    line = f'{fact.id} [{", ".join(fact.sources)}]: {fact.statement} — quote: "{fact.quote}"'
    if fact.support is Support.PARTIAL:
        line += f" — verifier: partial ({fact.support_reason or 'no reason given'})"
    return line


def _claim_items(doc: TaskDoc, claims: list[Claim]) -> list[tuple[Item, Claim]]:
    by_source: dict[str, list[Fact]] = {}
    for fact in doc.facts:
        for source_id in dict.fromkeys(fact.sources):
            by_source.setdefault(source_id, []).append(fact)
    items: list[tuple[Item, Claim]] = []
    for claim in claims:
        facts = [
            f
            for f in {f.id: f for s in claim.sources for f in by_source.get(s, [])}.values()
            if f.support is not Support.UNSUPPORTED  # out of the closed world: not evidence
        ]
        if not facts:
            continue  # nothing to judge it against (the check reports it)
        shown = tuple(fact_evidence(f) for f in _related(claim, facts))
        items.append((Item(f"C{len(items) + 1}", claim.text, "", shown), claim))
    return items


def judge_report(ctx: RunContext, draft: str, stage: Stage, name: str) -> None:
    """Judge the draft's cited sentences that have no verdict yet (one call, counted as `stage`:
    the support check of the first draft, the repair's for a repaired one); store the verdicts, or
    why there are none."""
    store = SupportStore(ctx.workspace.root)
    if ctx.config.verify_support == "never":
        store.save({}, note="verify_support is never")
        return
    known = store.load().verdicts
    fresh = {
        c.key: c for c in cited_claims(body_blocks(strip_generated_sections(draft))) if c.key not in known
    }
    items = _claim_items(ctx.doc, list(fresh.values()))
    if not items:
        return
    spent = ctx.budget.refusal(stage)
    if spent:
        store.save({}, note=f"skipped to keep the report within budget: {spent}")
        ctx.sink(Notice(f"support of {len(items)} report sentences not checked: {spent}", "warning"))
        return
    ctx.sink(PhaseStarted("support", ctx.doc.front.round))
    verdicts, why = _judge(ctx, VERIFIER_REPORT, "report", [item for item, _ in items], name, stage)
    if verdicts is None:
        store.save({}, note=f"the verifier failed: {why}")
        ctx.sink(Notice(f"support of {len(items)} report sentences not checked: {why}", "warning"))
        ctx.sink(PhaseFinished("support", ctx.doc.front.round, "not checked"))
        return
    store.save({claim.key: verdicts[item.id] for item, claim in items})
    unsupported = sum(v.support is Support.UNSUPPORTED for v in verdicts.values())
    ctx.sink(
        PhaseFinished("support", ctx.doc.front.round, f"{len(verdicts)} sentences, {unsupported} unsupported")
    )


def draft_check(ctx: RunContext, figures: Sequence[RenderedFigure]) -> Callable[[str], CheckResult]:
    """The synthesizer's check: the verifier judges the draft's new cited sentences, then the code
    checks run (their `unsupported_claim` violations come from the verdicts just stored)."""
    drafts = 0

    def check(text: str) -> CheckResult:
        nonlocal drafts
        drafts += 1
        # The first draft's check keeps the synthesizer's repair; a repaired draft's keeps nothing.
        name = "verifier-report" if drafts == 1 else f"verifier-report.{drafts}"
        stage = Stage.SUPPORT if drafts == 1 else Stage.REPAIR
        judge_report(ctx, insert_figures(text, figures), stage, name)
        return check_draft(text, ctx.doc, ctx.workspace.root, figures)

    return check
