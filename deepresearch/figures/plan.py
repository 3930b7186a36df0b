"""The planning loop the orchestrator runs: validate and ground each proposed figure.

Usage (pure logic; the orchestrator does the agent calls and the rendering)::

    plan = plan_figures(parse_charts(text), doc)
    if plan.needs_repair:                    # one repair prompt with plan.repair_message()
        plan = plan_figures(parse_charts(repaired_text), doc, repaired=True)
    outcome = render_figures(root, plan.accepted, timeout=60)

Before the repair every figure is checked, so the repair prompt lists all problems. After it
(`repaired=True`) a figure that still has problems is a failure; after `max_chart_failures`
consecutive failures the remaining figures are skipped and `skip_reason` says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from deepresearch.figures.point_grounding import ground_figure
from deepresearch.figures.spec import FigureSpec, ParsedCharts
from deepresearch.state.model import TaskDoc

MAX_CHART_FAILURES = 2


@dataclass(frozen=True)
class AcceptedFigure:
    """A figure whose spec is valid and every number traced to its facts."""

    index: int  # position in charts_result.md (1-based); the figure number is given at rendering
    spec: FigureSpec
    facts: tuple[str, ...]
    sources: tuple[str, ...]


@dataclass(frozen=True)
class RejectedFigure:
    index: int
    title: str
    problems: tuple[str, ...]


@dataclass
class FailureCounter:
    """Counts consecutive chart failures; once `limit` is reached the rest are skipped."""

    limit: int = MAX_CHART_FAILURES
    run: list[str] = field(default_factory=list)  # labels of the current run of failures
    reason: str = ""

    @property
    def exhausted(self) -> bool:
        return bool(self.reason)

    def failed(self, label: str) -> None:
        """Record a failure; sets `reason` when this makes `limit` in a row."""
        self.run.append(label)
        if len(self.run) >= self.limit and not self.reason:
            self.reason = (
                f"{len(self.run)} charts failed in a row ({', '.join(self.run)}): remaining charts skipped"
            )

    def succeeded(self) -> None:
        self.run.clear()


@dataclass
class FigurePlan:
    accepted: list[AcceptedFigure] = field(default_factory=list)
    rejected: list[RejectedFigure] = field(default_factory=list)
    file_problems: list[str] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)  # indexes never checked (after skip_reason)
    skip_reason: str = ""
    repaired: bool = False  # this plan checked the repaired file: no second repair

    @property
    def problems(self) -> list[str]:
        """Every problem, file-level first, each naming its figure and point."""
        return self.file_problems + [p for r in self.rejected for p in r.problems]

    @property
    def needs_repair(self) -> bool:
        """Problems were found and the one repair has not been used yet."""
        return bool(self.problems) and not self.repaired

    def repair_message(self) -> str:
        """The problems as a Markdown list for the repair prompt."""
        return "\n".join(f"- {p}" for p in self.problems)


def plan_figures(
    parsed: ParsedCharts,
    doc: TaskDoc,
    *,
    repaired: bool = False,
    max_chart_failures: int = MAX_CHART_FAILURES,
) -> FigurePlan:
    """Validate and ground each figure; after the repair, skip the rest after repeated failures."""
    plan = FigurePlan(file_problems=list(parsed.problems), repaired=repaired)
    counter = FailureCounter(max_chart_failures)
    for result in parsed.figures:
        if repaired and counter.exhausted:
            plan.skipped.append(result.index)
            continue
        problems = list(result.problems)
        grounding = None
        if result.spec is not None:
            grounding = ground_figure(result.spec, result.index, doc)
            problems.extend(grounding.problems)
        if problems or grounding is None or result.spec is None:
            plan.rejected.append(RejectedFigure(result.index, result.title, tuple(problems)))
            counter.failed(f"figure {result.index}")
            continue
        counter.succeeded()
        accepted = AcceptedFigure(result.index, result.spec, tuple(grounding.facts), tuple(grounding.sources))
        plan.accepted.append(accepted)
    plan.skip_reason = counter.reason if repaired and plan.skipped else ""
    return plan
