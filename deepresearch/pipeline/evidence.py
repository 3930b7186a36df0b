"""Evidence for merged findings: archive what executors cited, map to registry IDs, verify quotes.

Source IDs have one allocator, the workspace's source registry (shared with the `deepresearch
archive` processes that executors run). Sources that could not be archived still need a global ID;
they get one above both the registry's and task.md's highest while the registry lock is held, and
the merge and the save of task.md happen under that same lock, so no concurrent archive can hand
out the same number.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from deepresearch.contracts.execute import ExecutorOutput
from deepresearch.core.events import Notice
from deepresearch.pipeline.context import RunContext
from deepresearch.pipeline.fact_grounding import ground_fact, registered
from deepresearch.sources.api import archive_missing, mark_abstract_only, record_to_source
from deepresearch.sources.injection import SUSPICIOUS
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry
from deepresearch.sources.weight import authority
from deepresearch.state.merge import MergeOutcome, merge_task_result
from deepresearch.state.model import Fact, Source, TaskDoc, Verified, format_source_id, id_number

ARCHIVED = "archived"


@dataclass
class Evidence:
    """An executor's findings with archive records attached, ready to merge."""

    sources: list[Source]
    facts: list[Fact]
    records: dict[str, SourceRecord]  # source ID or label -> archived record
    contradictions: list[str]


def collect(ctx: RunContext, output: ExecutorOutput) -> Evidence:
    """Archive every cited source not yet archived (outside any lock: this is the slow part)."""
    registry = SourceRegistry(ctx.workspace)
    by_label: dict[str, SourceRecord] = {}
    to_fetch: list[str] = []
    for source in output.sources:
        record = registered(registry, source)
        if record is not None:
            by_label[source.id] = record
        else:
            to_fetch.append(source.url)
    if to_fetch:
        fetched = archive_missing(
            ctx.workspace,
            ctx.config,
            to_fetch,
            sink=ctx.sink,
            research_date=ctx.clock().date(),
            archive=ctx.tools.archive if ctx.tools is not None else None,
        )
        for source in output.sources:
            record = fetched.get(source.url)
            if source.id not in by_label and record is not None and record.status == ARCHIVED:
                by_label[source.id] = record
            elif source.id not in by_label and record is not None:
                ctx.sink(
                    Notice(f"could not archive {source.url}: {record.message or record.error}", "warning")
                )
    return Evidence(output.sources, output.facts, by_label, output.contradictions)


def _verify(ctx: RunContext, task_id: str, fact: Fact, records: dict[str, SourceRecord]) -> Verified:
    grounding = ground_fact(ctx.workspace, fact, [records[s] for s in fact.sources if s in records])
    if grounding.verified is Verified.PARTIAL:
        ctx.sink(
            Notice(
                f'{task_id}: "{fact.statement[:80]}" states {grounding.missing_text}, which its quote does '
                "not contain (Verified: partial)",
                "warning",
            )
        )
    return grounding.verified


def source_row(record: SourceRecord, source: Source) -> Source:
    """The Sources row of an archived source an executor cited, with what the executor read on the
    page where the URL told nothing (its type, and so its authority; its date)."""
    row = record_to_source(record)
    if row.type == "unknown" and source.type != "unknown" and SUSPICIOUS not in row.flags:
        # The URL did not tell; the executor read the page: take its type, and weigh it.
        # (Never for a page that addresses AI agents: what it says about itself is suspect.)
        row.type = source.type
        row.authority = authority(row.type, row.url)
    if not row.published and source.published:
        row.published = source.published
    return row


def _global_sources(
    ctx: RunContext, evidence: Evidence, registry: SourceRegistry
) -> tuple[list[Source], dict[str, str]]:
    """Sources with global IDs: the registry's for archived ones, fresh ones for the rest."""
    highest = max([registry.highest_id()] + [id_number(s.id) for s in ctx.doc.sources])
    renamed: dict[str, str] = {}
    sources: list[Source] = []
    for source in evidence.sources:
        record = evidence.records.get(source.id)
        if record is not None:
            row = source_row(record, source)
        else:
            highest += 1
            row = dataclasses.replace(source, id=format_source_id(highest))
        renamed[source.id] = row.id
        sources.append(row)
    return sources, renamed


def merge_evidence(ctx: RunContext, task_id: str, evidence: Evidence, phase: str) -> MergeOutcome:
    """Verify quotes, then merge into task.md and save it, all under the registry lock."""
    verified = [
        mark_abstract_only(
            dataclasses.replace(f, verified=_verify(ctx, task_id, f, evidence.records)), evidence.records
        )
        for f in evidence.facts
    ]
    registry = SourceRegistry(ctx.workspace)
    with registry.locked():
        sources, renamed = _global_sources(ctx, evidence, registry)
        facts = [dataclasses.replace(f, sources=[renamed.get(s, s) for s in f.sources]) for f in verified]
        outcome = merge_task_result(ctx.doc, task_id, sources, facts)
        sync_copies(ctx.doc, registry)
        ctx.save(phase)
    return outcome


def sync_copies(doc: TaskDoc, registry: SourceRegistry) -> None:
    """Copy the registry's `copy_of` verdicts into the Sources table: a source archived later may
    turn out to be the original of one task.md already holds."""
    records = {r.id: r for r in registry.copies()}
    for source in doc.sources:
        record = records.get(source.id)
        if record is not None and doc.source(record.copy_of) is not None:
            source.copy_of = record.copy_of
