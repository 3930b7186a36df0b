"""Rules that do not send research back for nothing (rule level, on task.md data):

- what counts as a new value: the table below is the rule, case by case;
- a source any task archived is legitimately cited by another task's batch;
- a conflict-resolution task ends on a verified fact that decides its conflict.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from deepresearch.contracts.execute import BatchEntry
from deepresearch.core.config import Config
from deepresearch.core.effort import PRESETS
from deepresearch.pipeline.batchcheck import Records, check_batches
from deepresearch.pipeline.novelty import known, measure
from deepresearch.pipeline.quantities import counts_for, not_a_measure, quantities
from deepresearch.pipeline.saturation import decide, missing
from deepresearch.pipeline.taskledger import TaskProgress
from deepresearch.sources.registry import SourceUse
from deepresearch.state.model import (
    Conflict,
    Dimension,
    Fact,
    FrontMatter,
    Severity,
    Source,
    Task,
    TaskDoc,
    Verified,
)

MARKET = "Market size: revenue, units sold and prices of heat pumps"
VOTE = "Parliamentary support: votes for and against the bill"


# (statement, the dimension's name and description, counts as a value?, why not)
WHAT_COUNTS = [
    ("Revenue reached $4.2 billion in 2024.", MARKET, True, ""),
    ("Sales rose 12% in 2024.", MARKET, True, ""),
    ("Installed capacity reached 4,800 MW.", MARKET, True, ""),
    ("The index reached 42 points in 2025.", "Level: index values", True, ""),
    ("Germany sold 356,000 heat pumps in 2024.", MARKET, True, ""),
    ("The report runs to 212 pages.", MARKET, False, "a page number or count"),
    ("The figure is on page 37 of the survey.", MARKET, False, "no number with a unit"),  # a reference
    ("The statistics page returned HTTP 404 Not Found.", MARKET, False, "an HTTP status"),
    ("The server answered 404 errors for every table.", MARKET, False, "an HTTP status"),
    ("The ministry's site answered with status 503 Service Unavailable.", MARKET, False, "an HTTP status"),
    ("The full market report costs $4,950 per licence.", MARKET, False, "the price of a report"),
    ("The forum thread collected 104 votes.", MARKET, False, "a count of web activity"),
    ("The video has 1.2 million views.", MARKET, False, "a count of web activity"),
    ("The dataset was downloaded 3,400 times and has 250 downloads this week.", MARKET, False,
     "a count of web activity"),
    ("该帖子获得104票支持。", "市场规模：热泵的销售额和销量", False, "a count of web activity"),
    ("The bill passed with 104 votes.", VOTE, True, ""),
    ("The report says revenue reached $4.2 billion.", MARKET, True, ""),  # a report's figure, not its price
]  # fmt: skip


def why_not(statement: str, asks: str) -> str:
    """ "" when the statement's last number counts as a value for the dimension, else why not."""
    found = quantities(statement)
    if not found:
        return "no number with a unit"
    return "" if counts_for(found[-1], asks) else not_a_measure(found[-1])


@pytest.mark.parametrize(("statement", "asks", "counts", "why"), WHAT_COUNTS)
def test_what_counts_as_a_new_value(statement: str, asks: str, counts: bool, why: str) -> None:
    assert why_not(statement, asks) == ("" if counts else why)


def test_a_batch_whose_only_new_number_is_a_vote_count_brings_nothing_new() -> None:
    d = TaskDoc(
        front=FrontMatter(id="t", question="q"),
        dimensions=[Dimension("D1", "Market size", "revenue and units sold")],
        tasks=[Task("E1", "Market", ["D1"])],
        sources=[Source("S01", "Forum", "https://forum.example/t", "forum", authority=0.3)],
        facts=[Fact("Fact-001", "Sales reached 356,000 units.", ["S01"], verified=Verified.YES, task="E1")],
    )
    before = known(d)
    d.facts.append(Fact("Fact-002", "The thread got 104 votes.", ["S01"], verified=Verified.YES, task="E1"))
    assert not measure(d, before, ["Fact-002"], []).anything
    d.facts.append(
        Fact("Fact-003", "Sales reached 412,000 units.", ["S01"], verified=Verified.YES, task="E1")
    )
    assert measure(d, before, ["Fact-003"], []).quantities == ("412,000 units (D1)",)


STARTED = datetime(2026, 11, 2, 10, 0, 0, tzinfo=UTC)


def test_a_source_any_task_archived_is_trusted_and_only_a_source_nobody_archived_is_not() -> None:
    uses = [SourceUse("S03", "https://own.example", "E2", 1, True, "2026-11-02T10:00:06Z")]
    records = Records.since("E2", STARTED, [], uses, archived={"S01", "S03"})
    honest = BatchEntry(1, [], None, ["S03", "S01"], [], False)
    (check,) = check_batches([honest], 1, records, (5, 10))
    assert check.trusted and check.borrowed == ["S01"]  # E1 archived S01: E2's use is recorded
    (lie,) = check_batches([BatchEntry(1, [], None, ["S01", "S09"], [], False)], 1, records, (5, 10))
    assert not lie.trusted and lie.problems == [
        "batch 1 lists S09 as archived; the source registry has no archive of them"
    ]


def conflict_doc(c_fact_authority: float | None) -> TaskDoc:
    """CONF-1: Fact-001 (official, 1.0) and Fact-002 (blog, 0.4) disagree; C1 settles it."""
    d = TaskDoc(
        front=FrontMatter(id="t", question="q"),
        dimensions=[Dimension("D1", "Level")],
        tasks=[Task("E1", "Index", ["D1"]), Task("C1", "Settle CONF-1: index level (Fact-001, Fact-002 disagree).", ["D1"])],
        sources=[
            Source("S01", "Bureau", "https://stats.example", "official", authority=1.0),
            Source("S02", "Blog", "https://blog.example", "blog", authority=0.4),
        ],
        facts=[
            Fact("Fact-001", "The index reached 42 points.", ["S01"], verified=Verified.YES, task="E1"),
            Fact("Fact-002", "The index reached 40 points.", ["S02"], verified=Verified.YES, task="E1"),
        ],
        conflicts=[Conflict("CONF-1", "index level", ["Fact-001", "Fact-002"], Severity.HIGH)],
    )  # fmt: skip
    if c_fact_authority is not None:
        d.sources.append(
            Source("S03", "Ministry", "https://gov.example", "official", authority=c_fact_authority)
        )
        d.facts.append(Fact("Fact-003", "The ministry puts the index at 42 points.", ["S03"],
                            verified=Verified.YES, task="C1"))  # fmt: skip
    return d


@pytest.mark.parametrize(("authority", "settled"), [(1.0, True), (0.95, True), (0.6, False), (None, False)])
def test_a_conflict_task_ends_on_a_verified_fact_that_decides_it(
    authority: float | None, settled: bool
) -> None:
    d = conflict_doc(authority)
    task = d.task("C1")
    assert task is not None
    progress = TaskProgress("C1", calls=1, numbered=1, batches=1, streak=0)  # one batch: no saturation
    verdict = decide(progress, d, task, PRESETS["standard"], Config(), ["batch 1 lists S09 as archived"])
    assert verdict.more is not settled
    if settled:
        shown = f"{authority:.2f}"
        assert (
            verdict.reason == f"CONF-1 settled by Fact-003 [S03] (authority {shown}) after 1 batch in 1 call"
        )
        assert missing(progress, d, task, PRESETS["standard"]) == []
    else:
        assert verdict.missing == ["no verified fact from a source of authority ≥ 0.90 decides CONF-1 yet"]
