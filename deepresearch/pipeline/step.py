"""One agent step, for every role: call, parse the output file, check it, repair with the exact problems.

This is the only repair path. An output the role's contract cannot read goes back once with the
parser's problems (a YAML one read only leniently — fenced, JSON, text around it — is accepted and
recorded as an `OutputLenient` event); a readable output that the role's code check finds violations in goes back once
with those violations (as `file:line: kind: message`). A repair that comes back unusable never
costs the first readable output: it is written back and kept, with its violations. Neither is a
repair the budget refuses (its stage's calls are needed by what follows): the outcome says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from deepresearch.agents.base import AgentResult
from deepresearch.agents.runner import AgentCall
from deepresearch.contracts.yamlfile import read_output
from deepresearch.core.budget import CallTicket
from deepresearch.core.errors import BudgetExhaustedError
from deepresearch.core.events import Notice, OutputLenient, OutputRepair
from deepresearch.core.spendplan import Stage
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.roles import Parser, RoleSpec, StepScope
from deepresearch.report.check import Violation, format_violation

T = TypeVar("T")


@dataclass
class StepOutcome(Generic[T]):
    """The parsed value, or None with the reason (agent failure or unusable output); the check's
    violations that remain after its repair."""

    value: T | None
    problems: list[str] = field(default_factory=list)
    agent: AgentResult | None = None
    violations: list[Violation] = field(default_factory=list)
    refused: str = ""  # why a repair the output needed was not made (the budget), if it was not

    @property
    def failure(self) -> str:
        if self.agent is not None and not self.agent.ok:
            return self.agent.message or "the agent call failed"
        said = "; ".join(self.problems) or "unknown problem"
        return f"{said} (no repair: {self.refused})" if self.refused else said


@dataclass
class _Call:
    """The fixed parts of one step's agent calls."""

    ctx: RunContext
    spec: RoleSpec[object]
    scope: StepScope
    prompt: str
    output: Path
    prompt_name: str
    stage: Stage
    ticket: CallTicket | None = None  # reserved by the caller for the first call
    refused: str = ""

    @property
    def repair_stage(self) -> Stage:
        return self.spec.repair_stage or self.stage

    def run(self, text: str, suffix: str = "", stage: Stage | None = None) -> AgentResult:
        label = self.spec.label_for(self.scope)
        name = f"{self.prompt_name}.{suffix}" if suffix else self.prompt_name
        ticket, self.ticket = self.ticket, None
        call = AgentCall(
            self.spec.role, label, self.scope.task_id, text, self.output, name, stage or self.stage, ticket
        )
        return self.ctx.runner.call(call)

    def note_lenient(self) -> None:
        """Record an output read although not written as asked (counted per run from the events)."""
        if not self.spec.yaml_output:
            return
        forms = read_output(self.output).lenient
        if forms:
            label = self.spec.label_for(self.scope)
            self.ctx.sink(OutputLenient(self.spec.role, label, [form.value for form in forms]))

    def repair(self, problems: list[str], suffix: str) -> AgentResult | None:
        """The repair call's result; None when the budget refuses it (`refused` says why)."""
        label = self.spec.label_for(self.scope)
        self.refused = self.ctx.budget.refusal(self.repair_stage) or ""
        if not self.refused:
            self.ctx.sink(OutputRepair(self.spec.role, label, problems))
            output = self.ctx.workspace.relative(self.output)
            text = render_prompt("repair", original=self.prompt, problems=problems, output_file=output)
            try:
                return self.run(text, suffix, self.repair_stage)
            except BudgetExhaustedError as exc:
                self.refused = exc.message
        self.ctx.sink(Notice(f"{label}: {len(problems)} problems not sent back: {self.refused}", "warning"))
        return None


def _set_aside(output_file: Path) -> None:
    """Keep an earlier output (previous round or attempt) for audit, out of the agent's way."""
    if not output_file.exists():
        return
    n = 1
    while (kept := output_file.with_name(f"{output_file.stem}.{n}{output_file.suffix}")).exists():
        n += 1
    output_file.rename(kept)


NO_SCOPE = StepScope()


def output_file(ctx: RunContext, spec: RoleSpec[T], scope: StepScope = NO_SCOPE) -> Path:
    """logs/calls/<label>/<label>_result.md: the one file the call's agent writes."""
    return ctx.workspace.result_file(spec.label_for(scope))


def run_step(
    ctx: RunContext,
    spec: RoleSpec[T],
    prompt: str,
    scope: StepScope = NO_SCOPE,
    prompt_name: str = "",
    stage: Stage | None = None,
    ticket: CallTicket | None = None,
) -> StepOutcome[T]:
    """Run the role's agent on `prompt`, parse and check its output file, repairing as the spec says.

    `stage` overrides the spec's for the budget; `ticket` is a call the caller already reserved."""
    name = prompt_name or spec.label_for(scope)
    call = _Call(ctx, spec, scope, prompt, output_file(ctx, spec, scope), name, stage or spec.stage, ticket)  # type: ignore[arg-type]
    try:
        return _run(call, spec)
    finally:
        ctx.budget.release(ticket)  # when it was never used (the step failed before its call)


def _run(call: _Call, spec: RoleSpec[T]) -> StepOutcome[T]:
    output = call.output
    _set_aside(output)
    parse: Parser[T] = spec.parser(call.ctx, call.scope)
    result = call.run(call.prompt)
    if not result.ok:
        return StepOutcome(None, [], result)
    value, problems = parse(output)
    for _ in range(spec.repairs.output):
        if value is not None:
            break
        repaired = call.repair(problems, "repair")
        if repaired is None:
            return StepOutcome(None, problems, result, refused=call.refused)
        result = repaired
        if not result.ok:
            return StepOutcome(None, problems, result)
        value, problems = parse(output)
    if value is None:
        return StepOutcome(None, problems, result)
    call.note_lenient()
    if spec.check is None:
        return StepOutcome(value, [], result)
    return _checked(call, spec, parse, value, result)


def _checked(
    call: _Call, spec: RoleSpec[T], parse: Parser[T], value: T, result: AgentResult
) -> StepOutcome[T]:
    """Run the role's check; send its violations back (at most `repairs.checks` times)."""
    assert spec.check is not None
    check = spec.check(call.ctx, call.scope)
    found = check(value)
    for _ in range(spec.repairs.checks):
        if not found.violations:
            break
        first_text = found.shown if found.shown is not None else call.output.read_text(encoding="utf-8")
        call.output.write_text(first_text, encoding="utf-8")  # the file the line numbers refer to
        where = found.name or call.ctx.workspace.relative(call.output)
        problems = [format_violation(v, where) for v in found.violations]
        answered = call.repair(problems, "verify-repair")
        repaired = parse(call.output)[0] if answered is not None and answered.ok else None
        if repaired is None:  # an unusable (or refused) repair: keep the checked first version
            call.output.write_text(first_text, encoding="utf-8")
            break
        value, found = repaired, check(repaired)
    return StepOutcome(value, [], result, list(found.violations), call.refused)
