"""The task ledger (.deepresearch/batches.jsonl) and how one call's output splits into batches."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from deepresearch.contracts.execute import BatchEntry, ExecutorOutput
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.batches import split
from deepresearch.pipeline.taskledger import LOST, TaskLedger
from deepresearch.state.model import Fact, Source

T0 = datetime(2026, 11, 2, 10, 0, 0, tzinfo=UTC)


def test_progress_is_folded_from_the_ledger_across_sessions(tmp_path: Path) -> None:
    ledger = TaskLedger(Workspace(tmp_path))
    ledger.call_started("E1", 1, 1, T0)
    for batch, trusted, new in ((1, True, True), (2, True, False), (3, False, False)):
        ledger.batch_merged("E1", 1, batch, trusted, new, [])
    ledger.call_ended("E1", 1, "done")
    ledger.call_started("E2", 1, 1, T0)
    ledger.call_started("E1", 2, 4, T0)
    ledger.batch_merged("E1", 2, 4, True, False, [])
    progress = ledger.progress("E1")
    # batch 3 was untrusted: the streak of nothing-new batches starts again after it
    assert (progress.calls, progress.numbered, progress.batches, progress.streak) == (2, 2, 4, 1)
    assert progress.open_call is not None and (progress.open_call.call, progress.open_call.first_batch) == (
        2,
        4,
    )
    assert not progress.last_new and len(progress.history) == 4
    assert ledger.progress("E2").open_call is not None and ledger.progress("E3").calls == 0


def test_a_lost_call_is_not_counted_and_a_cut_line_is_skipped(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    ledger = TaskLedger(workspace)
    ledger.call_started("E1", 1, 1, T0)
    ledger.call_ended("E1", 1, LOST)
    with open(workspace.batch_ledger, "a") as handle:
        handle.write('{"kind": "batch", "task": "E1", "ba')  # a kill in the middle of a line
    ledger.call_started("E1", 2, 1, T0)
    progress = ledger.progress("E1")
    assert (progress.calls, progress.numbered, progress.batches) == (1, 2, 0)
    assert progress.open_call is not None and progress.open_call.call == 2


def _fact(label: str, sources: list[str]) -> Fact:
    return Fact(label, f"statement {label}", sources, quote="q", task="E1")


def test_an_output_splits_into_its_batches() -> None:
    sources = [Source(sid, sid, f"https://x.example/{sid}") for sid in ("S01", "S02", "S03", "S04")]
    output = ExecutorOutput(
        sources=sources,
        facts=[_fact("F1", ["S01"]), _fact("F2", ["S02"]), _fact("F3", ["S01", "S03"])],
        contradictions=["Fact-001 is wrong"],
        batches=[
            BatchEntry(3, facts=["F1"], sources=["S01"]),
            BatchEntry(4, facts=["F2"], sources=["S02", "S03"]),
        ],
    )
    first, second = split(output, 3, in_call=True)
    assert (first.number, [f.id for f in first.facts], [s.id for s in first.sources]) == (3, ["F1"], ["S01"])
    # F3 is in no batch: it goes to the last, with the sources it cites; S04 cited by none goes there too
    assert [f.id for f in second.facts] == ["F2", "F3"]
    assert [s.id for s in second.sources] == ["S02", "S01", "S03", "S04"]
    assert second.contradictions == ["Fact-001 is wrong"] and first.contradictions == []
    (whole,) = split(output, 7, in_call=False)  # the old rule: one call is one batch
    assert whole.number == 7 and len(whole.facts) == 3 and whole.entry is None
