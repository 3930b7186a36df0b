"""Novelty that means relevance, and the check of a batch log against the records, on task.md data."""

from __future__ import annotations

from datetime import UTC, datetime

from deepresearch.contracts.execute import BatchEntry
from deepresearch.pipeline.batchcheck import Records, check_batches
from deepresearch.pipeline.novelty import known, measure, tier1_sources
from deepresearch.pipeline.quantities import quantities
from deepresearch.sources.registry import SourceUse
from deepresearch.state.model import Dimension, Fact, FrontMatter, Source, Task, TaskDoc, Verified


def doc() -> TaskDoc:
    """Two dimensions; E1 serves both; S01 (official) backs one verified fact for D1."""
    return TaskDoc(
        front=FrontMatter(id="t", question="q"),
        dimensions=[Dimension("D1", "Level"), Dimension("D2", "Drivers")],
        tasks=[Task("E1", "Index", ["D1", "D2"])],
        sources=[Source("S01", "Bulletin", "https://stats.example/a", "official", authority=1.0)],
        facts=[
            Fact("Fact-001", "The index reached 42 points in 2025.", ["S01"], verified=Verified.YES, task="E1",
                 dimensions=["D1"]),
        ],
    )  # fmt: skip


def add(
    d: TaskDoc, fact_id: str, statement: str, sources: list[str], dims: list[str], ok: bool = True
) -> str:
    verified = Verified.YES if ok else Verified.NO
    d.facts.append(Fact(fact_id, statement, sources, verified=verified, task="E1", dimensions=dims))
    return fact_id


def test_quantities_are_numbers_with_units_and_years_are_not() -> None:
    [points] = quantities("The index reached 42 points in 2025.")
    assert (str(points), points.unit) == ("42 points", "point")
    money, share = quantities("Revenue hit $4.2 billion, up 12% from 2023")
    assert (money.unit, share.unit, str(money)) == ("usd", "%", "$4.2 billion")
    first, again = quantities("sales of 1,234 units"), quantities("1234 units were sold")
    assert first[0].same_as(again[0])  # the same value written two ways
    mw, gw = quantities("capacity of 4,800 MW"), quantities("a 4.8 GW capacity")
    assert mw[0].same_as(gw[0])  # one unit in two scales (the reading numeric grounding uses)
    assert not quantities("In 2024 nothing was measured.")
    assert not quantities("COVID-19 cases rose in Section 3.")  # names and references are not claims


def test_a_restated_fact_is_not_novelty() -> None:
    d = doc()
    before = known(d)
    new = add(
        d, "Fact-002", "According to the bureau, the index stood at 42 points in 2025.", ["S01"], ["D1"]
    )
    novelty = measure(d, before, [new], [])
    assert not novelty.anything and novelty.reasons() == []


def test_new_value_uncovered_dimension_and_new_tier1_source_are_novelty() -> None:
    d = doc()
    d.sources.append(Source("S02", "Ministry", "https://gov.example/b", "official", authority=1.0))
    before = known(d)
    value = add(d, "Fact-002", "The index fell to 39 points in 2026.", ["S01"], ["D1"])
    dim = add(d, "Fact-003", "Subsidies drove 42 points of the rise.", ["S02"], ["D2"])
    novelty = measure(d, before, [value, dim], [])
    assert novelty.quantities == ("39 points (D1)", "42 points (D2)")  # 42 points is new for D2 only
    assert novelty.dimensions == ("D2",) and novelty.tier1_sources == ()  # S02 was already known
    assert novelty.reasons() == [
        "verified fact for uncovered D2",
        "new values 39 points (D1), 42 points (D2)",
    ]


def test_an_unverified_fact_brings_nothing() -> None:
    d = doc()
    before = known(d)
    new = add(d, "Fact-002", "The index reached 57 points in 2030.", ["S01"], ["D2"], ok=False)
    assert not measure(d, before, [new], []).anything


def test_a_copy_of_a_known_source_is_not_a_new_tier1_source() -> None:
    d = doc()
    before = known(d)
    d.sources.append(
        Source("S02", "Mirror", "https://mirror.example/a", "official", authority=1.0, copy_of="S01")
    )
    d.sources.append(Source("S03", "Ministry", "https://gov.example/c", "official", authority=1.0))
    copy = add(d, "Fact-002", "The index reached 42 points in 2025 (mirror).", ["S02"], ["D1"])
    assert measure(d, before, [copy], []).tier1_sources == ()
    fresh = add(d, "Fact-003", "The index reached 42 points in 2025 (ministry).", ["S03"], ["D1"])
    assert measure(d, before, [fresh], []).tier1_sources == ("S03",)
    assert tier1_sources(d, "E1") == 2  # S01 and S02 are one text; S03 is another


def test_a_contradiction_counts_only_when_it_names_a_known_fact() -> None:
    d = doc()
    before = known(d)
    assert measure(d, before, [], ["Fact-001 says 42; the ministry says 40."]).contradictions == 1
    assert measure(d, before, [], ["Some sources disagree."]).contradictions == 0
    assert measure(d, before, [], ["Fact-099 is wrong."]).contradictions == 0


STARTED = datetime(2026, 11, 2, 10, 0, 0, tzinfo=UTC)


def line(
    query: str, batch: int | None, k: int = 5, time: str = "2026-11-02T10:00:05+00:00", task: str = "E1"
) -> dict:
    return {"query": query, "task": task, "batch": batch, "k": k, "time": time, "url": "https://x", "rank": 1}


def test_a_batch_log_borne_out_by_the_records_is_trusted() -> None:
    lines = [line("index 2025", 1), line("index 2025", 1), line("Index  drivers", 1), line("later", 2, k=10)]
    uses = [SourceUse("S01", "https://stats.example/a", "E1", 1, True, "2026-11-02T10:00:06Z")]
    records = Records.since("E1", STARTED, lines, uses)
    entries = [
        BatchEntry(1, ["index 2025", "index drivers"], 5, ["S01"], ["F1"], True),
        BatchEntry(2, ["later"], 10, [], [], False),
    ]
    checks = check_batches(entries, 1, records, (5, 10))
    assert [(c.trusted, c.problems, c.queries_logged) for c in checks] == [(True, [], 2), (True, [], 1)]


def test_a_batch_log_that_claims_more_queries_than_were_searched_is_not_trusted() -> None:
    claimed = [f"index query {n}" for n in range(1, 6)]
    records = Records.since("E1", STARTED, [line("index query 1", 2)], [])
    (check,) = check_batches([BatchEntry(2, claimed, 5, [], [], False)], 2, records, (5, 10))
    assert not check.trusted and check.queries_logged == 1
    assert check.problems == [
        "batch 2 claims 5 queries; the search log shows 1 of them for this task and batch "
        "(not searched: 'index query 2', 'index query 3', 'index query 4' ...)"
    ]


def test_records_from_before_the_call_or_of_another_task_or_batch_do_not_count() -> None:
    lines = [
        line("old", 1, time="2026-11-02T09:59:59+00:00"),
        line("theirs", 1, task="E2"),
        line("other batch", 2),
    ]
    uses = [
        SourceUse("S01", "https://a", "E1", 1, True, "2026-11-02T09:00:00Z"),
        SourceUse("S02", "https://b", "E1", 2),
    ]
    records = Records.since("E1", STARTED, lines, uses)
    entry = BatchEntry(1, ["old", "theirs", "other batch"], 5, ["S01", "S02"], [], True)
    (check,) = check_batches([entry], 1, records, (5, 10))
    assert not check.trusted and check.queries_logged == 0
    assert "lists S01, S02 as archived; the source registry has no archive of them" in check.problems[1]


def test_numbering_and_k_are_checked() -> None:
    records = Records.since("E1", STARTED, [line("q", 3, k=3)], [])
    (check,) = check_batches([BatchEntry(3, ["q"], 5, [], [], True)], 2, records, (5, 10))
    assert check.problems == [
        "batch 3 should be numbered 2 (batches continue from the last one)",
        "batch 3 claims k=5; its searches used k=[3]",
        "batch 3 searched with k=[3]; asked: [5, 10]",
    ]
