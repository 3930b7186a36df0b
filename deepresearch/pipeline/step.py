"""One agent step: call the role, parse its output file, and repair once with the exact problems."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from deepresearch.agents.base import AgentResult
from deepresearch.agents.runner import AgentCall
from deepresearch.core.events import OutputRepair
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.prompts import render_prompt

T = TypeVar("T")
Parser = Callable[[Path], tuple[T | None, list[str]]]


@dataclass
class StepOutcome(Generic[T]):
    """The parsed value, or None with the reason (agent failure or unusable output)."""

    value: T | None
    problems: list[str] = field(default_factory=list)
    agent: AgentResult | None = None

    @property
    def failure(self) -> str:
        if self.agent is not None and not self.agent.ok:
            return self.agent.message or "the agent call failed"
        return "; ".join(self.problems) or "unknown problem"


def _set_aside(output_file: Path) -> None:
    """Keep an earlier output (previous round or attempt) for audit, out of the agent's way."""
    if not output_file.exists():
        return
    n = 1
    while (kept := output_file.with_name(f"{output_file.stem}.{n}{output_file.suffix}")).exists():
        n += 1
    output_file.rename(kept)


def run_step(
    ctx: RunContext,
    role: str,
    label: str,
    task_id: str,
    prompt_text: str,
    output_file: Path,
    parse: Parser[T],
    prompt_name: str = "",
) -> StepOutcome[T]:
    """Run the agent, parse its file; on problems re-prompt once quoting them, then give up."""
    _set_aside(output_file)
    result = ctx.runner.call(AgentCall(role, label, task_id, prompt_text, output_file, prompt_name))
    if not result.ok:
        return StepOutcome(None, [], result)
    value, problems = parse(output_file)
    if value is not None:
        return StepOutcome(value, [], result)
    ctx.sink(OutputRepair(role, label, problems))
    repair = render_prompt(
        "repair", original=prompt_text, problems=problems, output_file=ctx.workspace.relative(output_file)
    )
    result = ctx.runner.call(
        AgentCall(role, label, task_id, repair, output_file, prompt_name=f"{prompt_name or label}.repair")
    )
    if not result.ok:
        return StepOutcome(None, problems, result)
    value, problems = parse(output_file)
    return StepOutcome(value, problems, result)
