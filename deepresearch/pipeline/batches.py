"""One executor call's output, batch by batch: split by its batch log, checked against the search log
and the source registry, merged into task.md one batch at a time, measured, and recorded.

Each batch is merged and saved before the next is looked at, and its ledger line is written after
that save, so a crash at any point loses at most the batch being merged (which is merged again on
resume: merging is idempotent). Runs on the orchestrator's thread only.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime

from deepresearch.contracts.execute import BatchEntry, ExecutorOutput
from deepresearch.core.attribution import Attribution
from deepresearch.core.effort import Saturation
from deepresearch.core.events import BatchMeasured, FactsMerged, Notice
from deepresearch.pipeline.batchcheck import BatchCheck, Records, check_batches
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.evidence import Evidence, collect, merge_evidence
from deepresearch.pipeline.novelty import known, measure
from deepresearch.pipeline.roles import EXECUTOR, StepScope
from deepresearch.pipeline.saturation import IN_CALL
from deepresearch.pipeline.taskledger import LOST, TaskLedger, TaskProgress
from deepresearch.search.searchlog import read_search_log
from deepresearch.sources.registry import SourceRegistry
from deepresearch.state.model import Fact, Source

NO_LOG = "the output has no batch log (`batches:`), so nothing shows which searches its findings rest on"


@dataclass(frozen=True)
class CallInfo:
    """Which call of which task an output belongs to, and when the call started."""

    task_id: str
    call: int
    first_batch: int
    started: datetime


@dataclass
class Part:
    """The share of a call's output that one batch holds."""

    number: int
    entry: BatchEntry | None
    facts: list[Fact] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    contradictions: list[str] = field(default_factory=list)


def split(output: ExecutorOutput, first: int, in_call: bool) -> list[Part]:
    """The output's batches, numbered from `first` in order. Without a batch log (or under the
    per-batch rule) the whole output is one batch. Facts no batch lists, and top-level
    contradictions, go to the last batch."""
    entries = output.batches if in_call else []
    parts = [Part(first + n, entry) for n, entry in enumerate(entries)] or [Part(first, None)]
    by_label = {f.id: f for f in output.facts}
    by_source = {s.id: s for s in output.sources}
    placed: set[str] = set()
    for part in parts:
        if part.entry is not None:
            part.facts = [by_label[label] for label in part.entry.facts if label in by_label]
            part.contradictions = list(part.entry.contradictions)
            placed.update(part.entry.facts)
    last = parts[-1]
    last.facts += [f for f in output.facts if f.id not in placed]
    last.contradictions += output.contradictions
    cited: set[str] = set()
    for part in parts:
        wanted = [sid for f in part.facts for sid in f.sources]
        wanted += part.entry.sources if part.entry is not None else []
        part.sources = [by_source[sid] for sid in dict.fromkeys(wanted) if sid in by_source]
        cited.update(s.id for s in part.sources)
    last.sources += [s for s in output.sources if s.id not in cited]
    return parts


def _checks(
    ctx: RunContext, info: CallInfo, parts: list[Part], sat: Saturation, in_call: bool
) -> list[BatchCheck]:
    if not in_call:  # the old rule: one call is one batch, nothing to check it against
        return [BatchCheck(part.number, True) for part in parts]
    if parts[0].entry is None:
        return [BatchCheck(parts[0].number, False, [NO_LOG])]
    registry = SourceRegistry(ctx.workspace)
    archived = {record.id for record in registry.archived()}
    uses = registry.uses(info.task_id)
    records = Records.since(info.task_id, info.started, read_search_log(ctx.workspace), uses, archived)
    entries = [part.entry for part in parts if part.entry is not None]
    checks = check_batches(entries, info.first_batch, records, (sat.k_initial, sat.k_expand))
    for check in checks:  # sources another task archived: this task's use of them, recorded
        for source_id in check.borrowed:
            record = registry.get(source_id)
            if record is not None:
                registry.record_use(record, record.url, Attribution(info.task_id, check.number))
    return checks


def absorb(
    ctx: RunContext,
    info: CallInfo,
    output: ExecutorOutput,
    evidence: Evidence,
    progress: TaskProgress,
    sat: Saturation,
) -> list[str]:
    """Merge the call's batches (`evidence`: the output with its archives, from `collect`) into
    task.md in order, measure and record each; the batch-log problems that kept a batch untrusted."""
    in_call = ctx.config.batch_calls == IN_CALL
    parts = split(output, info.first_batch, in_call)
    checks = _checks(ctx, info, parts, sat, in_call)
    ledger = TaskLedger(ctx.workspace)
    problems: list[str] = []
    merged_before = progress.batches
    for part, check in zip(parts, checks, strict=True):
        if part.number <= merged_before:
            continue  # merged (and recorded) by a session that died before it could end the call
        problems += check.problems
        before = known(ctx.doc)
        share = dataclasses.replace(
            evidence, sources=part.sources, facts=part.facts, contradictions=part.contradictions
        )
        merged = merge_evidence(ctx, info.task_id, share, f"{info.task_id}-batch{part.number}")
        for problem in merged.rejected:
            ctx.sink(Notice(f"{info.task_id}: {problem}", "warning"))
        novelty = measure(ctx.doc, before, merged.new_fact_ids, part.contradictions)
        progress.apply_batch(part.number, check.trusted, novelty.anything)
        ledger.batch_merged(
            info.task_id, info.call, part.number, check.trusted, novelty.anything, novelty.reasons()
        )
        _report(
            ctx, info, part, check, novelty.reasons(), len(merged.new_fact_ids), len(merged.new_source_ids)
        )
    return problems


def _report(
    ctx: RunContext,
    info: CallInfo,
    part: Part,
    check: BatchCheck,
    reasons: list[str],
    facts: int,
    sources: int,
) -> None:
    entry = part.entry
    ctx.sink(
        BatchMeasured(
            info.task_id, info.call, part.number, check.trusted, bool(reasons), reasons,
            entry.new if entry is not None else None, entry.reason if entry is not None else "",
            check.problems, check.queries_logged, facts, sources,
        )
    )  # fmt: skip
    doc = ctx.doc
    ctx.sink(FactsMerged(info.task_id, facts, sources, len(doc.facts), len(doc.sources)))


def harvest(
    ctx: RunContext, info: CallInfo, progress: TaskProgress, sat: Saturation
) -> tuple[int, list[str]]:
    """Merge the batches a call that did not finish (crashed, timed out, killed) had already written
    to its output file — executors rewrite it after every batch; (batches kept, batch-log problems)."""
    path = ctx.workspace.result_file(EXECUTOR.label_for(StepScope(task_id=info.task_id)))
    # A file older than the call is an earlier call's, already merged (the call died before starting).
    if not path.is_file() or path.stat().st_mtime < info.started.timestamp() - 1:
        return 0, []
    output, _problems = EXECUTOR.parser(ctx, StepScope(task_id=info.task_id))(path)
    if output is None:
        return 0, []
    before = progress.batches
    problems = absorb(ctx, info, output, collect(ctx, output), progress, sat)
    return progress.batches - before, problems


def recover(ctx: RunContext, task_id: str, progress: TaskProgress, sat: Saturation) -> int:
    """After a crash: merge what the task's interrupted call had finished (see `harvest`) and end
    that call in the ledger; the number of batches kept."""
    call = progress.open_call
    if call is None:
        return 0
    kept, _problems = harvest(
        ctx, CallInfo(task_id, call.call, call.first_batch, call.started), progress, sat
    )
    ledger = TaskLedger(ctx.workspace)
    if not kept:
        ledger.call_ended(task_id, call.call, LOST)
        progress.calls -= 1  # it found nothing that survived: it does not count against the task
        return 0
    ledger.call_ended(task_id, call.call, "recovered")
    return kept
