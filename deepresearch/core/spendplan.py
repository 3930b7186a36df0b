"""The ceiling, planned: what research may spend and what is kept for the report.

At the start of a run its agent-call ceiling is split in two. The report's share is the calls that
must follow research for a report to be written and checked:

- the synthesizer's call and one repair of its draft (always);
- the verifier's check of the report's cited sentences (unless `verify_support: never`);
- the analyst's call (unless `analysis: never`, or `auto` on a question that does not need one);
- the chart planner's call (unless `max_figures: 0`).

Research (planner, supervisor, executors, the round's verifier and reflector, a new round the
reflector asks for) gets what is left. Every call names the stage it belongs to (`Stage`), and the
budget refuses a call when starting it would leave fewer calls than the stages after it need:
research keeps the whole share, the analysis keeps the figures' and the report's calls, the support
check keeps the repair's. The synthesizer keeps nothing back: the report comes first.

Time is split the same way: the report keeps the share of `max_minutes` its calls are of
`max_agent_calls` (a quarter without a call ceiling); research stops starting calls when only that
is left. A ceiling below `smallest_ceiling` (the report's share plus a plan, one brief and one
executor call) cannot run and is a configuration error.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from deepresearch.core.errors import ConfigError


class Stage(StrEnum):
    """What an agent call is for, as the budget sees it."""

    RESEARCH = "research"
    ANALYSIS = "analysis"
    FIGURES = "figures"
    SYNTHESIS = "synthesizer"
    SUPPORT = "support check"
    REPAIR = "repair"


# The report's stages in the order they run; each keeps the calls of those after it.
REPORT_ORDER = (Stage.ANALYSIS, Stage.FIGURES, Stage.SYNTHESIS, Stage.SUPPORT, Stage.REPAIR)
# The least research that can give a report something to say: a plan, one brief, one executor call.
RESEARCH_MINIMUM = 3
# Without a call ceiling, the report keeps this fraction of the time ceiling.
REPORT_TIME_FRACTION = 0.25


@dataclass(frozen=True)
class ReportShare:
    """The calls kept for the report: synthesizer and repair always, the rest when enabled."""

    analysis: bool = False
    figures: bool = False
    support: bool = False

    def stages(self) -> list[Stage]:
        """The report's stages this run has, in the order they run (one call each)."""
        enabled = {Stage.ANALYSIS: self.analysis, Stage.FIGURES: self.figures, Stage.SUPPORT: self.support}
        return [stage for stage in REPORT_ORDER if enabled.get(stage, True)]

    @property
    def calls(self) -> int:
        """The agent calls kept for the report."""
        return len(self.stages())

    def keep(self, stage: Stage) -> int:
        """Calls that must remain after a call of `stage` starts: what the stages after it need."""
        if stage is Stage.RESEARCH:
            return self.calls
        if stage is Stage.SYNTHESIS:
            return 0  # a report first: its retries may take the support check's and the repair's calls
        position = REPORT_ORDER.index(stage)
        return sum(1 for later in self.stages() if REPORT_ORDER.index(later) > position)

    def describe(self) -> str:
        """'synthesizer, its repair, analysis, figures, support check': the synthesizer first."""
        names = {Stage.REPAIR: "its repair"}
        ordered = sorted(self.stages(), key=lambda s: (s is not Stage.SYNTHESIS, s is not Stage.REPAIR))
        return ", ".join(names.get(stage, str(stage)) for stage in ordered)


NO_SHARE = None  # a budget outside a run (a tool command, a test) keeps nothing back


def smallest_ceiling(share: ReportShare) -> int:
    """The smallest `max_agent_calls` a run with this report share can work with."""
    return share.calls + RESEARCH_MINIMUM


def check_ceiling(agent_calls: int | None, share: ReportShare, origin: str) -> None:
    """ConfigError when `agent_calls` cannot hold the report's share and the least research."""
    smallest = smallest_ceiling(share)
    if agent_calls is None or agent_calls >= smallest:
        return
    optional = [s for s, on in (("analysis: never", share.analysis), ("max_figures: 0", share.figures)) if on]
    fewer = f", or set {' and '.join(optional)} to keep fewer for the report" if optional else ""
    raise ConfigError(
        "max_agent_calls",
        origin,
        f"{agent_calls} is too small for a run: {share.calls} calls are kept for the report "
        f"({share.describe()}) and research needs at least {RESEARCH_MINIMUM} (a plan, a brief, an "
        f"executor call); the smallest workable ceiling is {smallest}",
        hint=f"set max_agent_calls to {smallest} or more (0 for no limit){fewer}",
    )


def report_minutes(agent_calls: int | None, minutes: float | None, share: ReportShare | None) -> float:
    """The minutes kept for the report under a time ceiling (0 without one)."""
    if minutes is None or share is None:
        return 0.0
    if agent_calls:
        return minutes * min(share.calls / agent_calls, 1.0)
    return minutes * REPORT_TIME_FRACTION


@dataclass(frozen=True)
class Split:
    """The ceilings split between research and the report, for the start line and `status`."""

    report_calls: int
    report_stages: list[str]
    research_calls: int | None  # None: no call ceiling
    report_minutes: float | None  # None: no time ceiling


def split(agent_calls: int | None, minutes: float | None, share: ReportShare) -> Split:
    """How `agent_calls` and `minutes` divide between research and the report."""
    research = agent_calls - share.calls if agent_calls is not None else None
    kept = round(report_minutes(agent_calls, minutes, share), 1) if minutes is not None else None
    return Split(share.calls, [str(s) for s in share.stages()], research, kept)
