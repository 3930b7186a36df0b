"""Top-K saturation per executor task, in code: has a task found enough, or does it need another call?

An executor call runs the Top-K batches itself and logs them (`batches:`); code checks that log
(pipeline/batchcheck.py), measures each batch's novelty (pipeline/novelty.py) and then decides by
these rules alone:

- never more than `max_batches` batches; never fewer than `min_batches` unless the calls run out;
- the task is saturated when its last `saturation_threshold` trusted batches brought nothing new,
  every dimension of the task is covered by a verified fact, at least `min_tier1_sources`
  independent sources of authority ≥ 0.9 back its verified facts, and — once it has searched at
  all — it has searched in every planned language (`missing_languages`);
- otherwise it gets another call — at most `max_calls_per_task` calls (`batch_calls: in_call`) —
  whose prompt names exactly what is missing. With `batch_calls: per_batch` (the old rule, kept for
  comparison) every batch is a call of its own and only `max_batches` bounds them.

Queries use `k_initial` results per query, `k_expand` after a batch that brought nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from deepresearch.core.config import Config
from deepresearch.core.effort import Saturation
from deepresearch.core.languages import describe
from deepresearch.pipeline.conflicts import conflict_of, deciding_authority, settling_fact
from deepresearch.pipeline.novelty import covered_dimensions, tier1_sources
from deepresearch.pipeline.taskledger import TaskProgress
from deepresearch.state.model import Conflict, PlannedLanguage, Task, TaskDoc

IN_CALL = "in_call"
PER_BATCH = "per_batch"


@dataclass(frozen=True)
class Verdict:
    """Code's decision after a call: another call or not, why, and what a next call must find."""

    more: bool
    reason: str
    missing: list[str] = field(default_factory=list)


def next_k(progress: TaskProgress, sat: Saturation) -> int:
    """Documents per query for the next batch."""
    return sat.k_initial if progress.last_new else sat.k_expand


def missing_languages(planned: Sequence[PlannedLanguage], searched: Mapping[str, int]) -> list[str]:
    """The planned languages the task made no query in, one sentence each. `searched` counts the
    task's queries per detected language; a task that made no query at all is left to the other
    rules (it may work from the person's documents)."""
    if not sum(searched.values()):
        return []
    return [
        f"no query yet in {describe(p.code)}" + (f", planned because: {p.reason}" if p.reason else "")
        for p in planned
        if not searched.get(p.code)
    ]


def missing(
    progress: TaskProgress,
    doc: TaskDoc,
    task: Task,
    sat: Saturation,
    searched: Mapping[str, int] | None = None,
) -> list[str]:
    """What keeps the task from being saturated (a C-task: settled), one sentence each (empty: it
    is); `searched`: the task's queries per language (None: not checked)."""
    conflict = conflict_of(doc, task)
    if conflict is not None:
        return unsettled(doc, task, conflict)
    languages = missing_languages(doc.front.languages, searched) if searched is not None else []
    return [
        *too_few_batches(progress, sat),
        *still_finding(progress, sat),
        *uncovered_dimensions(doc, task),
        *too_few_tier1(doc, task, sat),
        *languages,
    ]


def too_few_batches(progress: TaskProgress, sat: Saturation) -> list[str]:
    """Fewer than `min_batches` batches run."""
    if progress.batches >= sat.min_batches:
        return []
    return [f"only {progress.batches} of the at least {sat.min_batches} batches were run"]


def still_finding(progress: TaskProgress, sat: Saturation) -> list[str]:
    """The last trusted batches still brought something new."""
    if progress.streak >= sat.saturation_threshold:
        return []
    return [
        f"the last {sat.saturation_threshold} trusted batches must bring nothing new before the task "
        f"counts as saturated; {progress.streak} in a row did"
    ]


def uncovered_dimensions(doc: TaskDoc, task: Task) -> list[str]:
    """A dimension of the task that no verified fact serves."""
    names = {d.id: d.name for d in doc.dimensions}
    uncovered = [d for d in task.dimensions if d not in covered_dimensions(doc)]
    if not uncovered:
        return []
    listed = ", ".join(f"{d} ({names.get(d, '?')})" for d in uncovered)
    return [f"no verified fact yet for dimension {listed}"]


def too_few_tier1(doc: TaskDoc, task: Task, sat: Saturation) -> list[str]:
    """Fewer independent tier-1 sources back the task's verified facts than it needs."""
    tier1 = tier1_sources(doc, task.id)
    if tier1 >= sat.min_tier1_sources:
        return []
    return [
        f"{tier1} of the {sat.min_tier1_sources} independent sources of authority ≥ 0.9 the task needs "
        "back its verified facts"
    ]


def unsettled(doc: TaskDoc, task: Task, conflict: Conflict) -> list[str]:
    """A C-task's conflict that none of its verified facts decides yet (the C-task's only rule)."""
    if settling_fact(doc, task, conflict) is not None:
        return []
    needed = deciding_authority(doc, conflict)
    return [f"no verified fact from a source of authority ≥ {needed:.2f} decides {conflict.id} yet"]


def decide(
    progress: TaskProgress,
    doc: TaskDoc,
    task: Task,
    sat: Saturation,
    config: Config,
    untrusted: list[str],
    searched: Mapping[str, int] | None = None,
) -> Verdict:
    """After a call: does the task need another one? `untrusted` lists the batch-log problems,
    `searched` the task's queries per language."""
    conflict = conflict_of(doc, task)
    if conflict is not None:
        return _settle(progress, doc, task, conflict, sat, config)
    if progress.batches >= sat.max_batches:
        return Verdict(False, f"max_batches ({sat.max_batches}) reached")
    gaps = [*untrusted, *missing(progress, doc, task, sat, searched)]
    if not gaps:
        return Verdict(
            False,
            f"saturated after {progress.batches} batches in {progress.calls} call"
            f"{'s' * (progress.calls != 1)} ({progress.streak} in a row brought nothing new; dimensions "
            f"covered; {_count(tier1_sources(doc, task.id), 'tier-1 source')})",
        )
    return _more(progress, config, sat, gaps)


def _settle(
    progress: TaskProgress, doc: TaskDoc, task: Task, conflict: Conflict, sat: Saturation, config: Config
) -> Verdict:
    """A C-task ends on the verified fact that settles its conflict (its batch log does not matter:
    the fact's quote was verified by code), else gets another call while it may."""
    settled = settling_fact(doc, task, conflict)
    if settled is None:
        return _more(progress, config, sat, unsettled(doc, task, conflict))
    fact, source = settled
    return Verdict(
        False,
        f"{conflict.id} settled by {fact.id} [{source.id}] (authority {source.authority or 0:.2f}) "
        f"after {_count(progress.batches, 'batch')} in {_count(progress.calls, 'call')}",
    )


def _more(progress: TaskProgress, config: Config, sat: Saturation, gaps: list[str]) -> Verdict:
    """Another call for `gaps`, unless the task's calls or batches are used up."""
    if progress.batches >= sat.max_batches:
        return Verdict(
            False, f"max_batches ({sat.max_batches}) reached; still missing: {'; '.join(gaps)}", gaps
        )
    if config.batch_calls == IN_CALL and progress.calls >= config.max_calls_per_task:
        return Verdict(
            False,
            f"max_calls_per_task ({config.max_calls_per_task}) used; still missing: {'; '.join(gaps)}",
            gaps,
        )
    return Verdict(True, "; ".join(gaps), gaps)


def _count(n: int, noun: str) -> str:
    plural = "es" if noun.endswith(("ch", "sh", "s", "x")) else "s"
    return f"{n} {noun}{plural * (n != 1)}"
