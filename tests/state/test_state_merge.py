"""merge_task_result: global IDs, dedup by URL variants and hash, no renumbering, labels remapped."""

from __future__ import annotations

import copy

import pytest

from deepresearch.core.errors import StateError
from deepresearch.state import model as m
from deepresearch.state.merge import merge_task_result
from deepresearch.state.parser import parse_task_md
from deepresearch.state.writer import render_task_md
from tests.state.test_state_malformed import BASE


def _doc() -> m.TaskDoc:
    return parse_task_md(BASE)  # S01 https://agency.example/t ; Fact-001, Fact-002 ; tasks E1, E2


def _fact(statement: str, *sources: str) -> m.Fact:
    return m.Fact("x", statement, list(sources), quote="q")


@pytest.mark.parametrize(
    "variant",
    [
        "HTTPS://Agency.Example:443/t/",
        "https://www.agency.example/t#section-2",
        "https://agency.example/t?utm_source=newsletter&fbclid=abc",
    ],
)
def test_url_variants_of_an_existing_source_map_to_it(variant: str) -> None:
    doc = _doc()
    outcome = merge_task_result(
        doc, "E2", [m.Source("A", "Trial again", variant)], [_fact("New finding", "A")]
    )
    assert outcome.label_map == {"A": "S01"}
    assert outcome.new_source_ids == [] and len(doc.sources) == 1
    assert outcome.new_fact_ids == ["Fact-003"]
    assert doc.facts[-1] == m.Fact("Fact-003", "New finding", ["S01"], quote="q", task="E2")


def test_same_content_hash_is_the_same_source_and_fills_empty_fields() -> None:
    doc = _doc()
    doc.sources[0].sha256 = "ab" * 32
    doc.sources[0].published = ""
    mirror = m.Source(
        "mirror", "Mirror", "https://mirror.example/copy", published="2024-09-12", sha256="ab" * 32
    )
    outcome = merge_task_result(doc, "E2", [mirror], [])
    assert outcome.label_map == {"mirror": "S01"}
    assert (
        doc.sources[0].title == "Trial" and doc.sources[0].url == "https://agency.example/t"
    )  # existing wins
    assert doc.sources[0].published == "2024-09-12"  # but gains what it lacked


def test_ids_grow_past_s99_and_fact_999_and_nothing_is_renumbered() -> None:
    doc = _doc()
    doc.sources[0].id = "S99"
    for fact in doc.facts:
        fact.sources = ["S99"]
    doc.facts[1].id = "Fact-999"
    before = copy.deepcopy(doc)
    new = [m.Source("a", "One", "https://one.example/"), m.Source("b", "Two", "https://two.example/")]
    outcome = merge_task_result(doc, "E2", new, [_fact("F1", "a"), _fact("F2", "b", "S99")])
    assert outcome.label_map == {"a": "S100", "b": "S101"}
    assert outcome.new_source_ids == ["S100", "S101"]
    assert outcome.new_fact_ids == ["Fact-1000", "Fact-1001"]
    assert doc.facts[-1].sources == ["S101", "S99"]
    assert [s.id for s in doc.sources] == ["S99", "S100", "S101"]
    assert doc.facts[:2] == before.facts and doc.sources[:1] == before.sources  # untouched
    assert parse_task_md(render_task_md(doc)) == doc


def test_global_ids_from_the_registry_are_kept() -> None:
    doc = _doc()
    registry = m.Source("S07", "Registry source", "https://reg.example/p", sha256="cd" * 32)
    outcome = merge_task_result(doc, "E2", [registry, m.Source("L1", "Local", "https://local.example/")], [])
    assert outcome.label_map == {"S07": "S07", "L1": "S08"}  # the next local ID continues after S07


def test_labels_within_one_result_are_deduplicated_and_fact_duplicates_dropped() -> None:
    doc = _doc()
    sources = [m.Source("A", "x", "https://new.example/a"), m.Source("B", "x", "https://new.example/a/")]
    facts = [_fact("Median COP was 2.9", "S01"), _fact("Prices  rose", "A"), _fact("prices rose", "B", "A")]
    outcome = merge_task_result(doc, "E2", sources, facts)
    assert outcome.label_map == {"A": "S02", "B": "S02"}
    assert outcome.new_fact_ids == [
        "Fact-003"
    ]  # Fact-001 already says the first; the third repeats the second


def test_unknown_labels_and_conflicting_ids_are_rejected_with_reasons() -> None:
    doc = _doc()
    clash = m.Source("S01", "Other", "https://other.example/")
    facts = [_fact("cites nothing known", "Z"), _fact("cites the clash", "S01"), _fact("no sources")]
    outcome = merge_task_result(doc, "E2", [clash, m.Source("nourl", "t", "")], facts)
    assert outcome.new_fact_ids == [] and outcome.new_source_ids == []
    assert outcome.rejected == [
        "source S01: S01 is https://agency.example/t in task.md but https://other.example/ in the result;"
        " facts citing it were not merged",
        "source nourl has no URL; not merged",
        "fact 'cites nothing known' cites Z, which the result does not list as sources; not merged",
        "fact 'cites the clash' cites S01, which the result does not list as sources; not merged",
        "fact 'no sources' has no statement or cites no source; not merged",
    ]


def test_text_is_stored_stripped_and_unknown_task_is_an_error() -> None:
    doc = _doc()
    merge_task_result(
        doc, "E1", [m.Source(" A ", " T\r\n2 ", " https://t.example ")], [_fact(" s\r\n ", "A")]
    )
    assert doc.sources[-1].title == "T\n2" and doc.facts[-1].statement == "s"
    with pytest.raises(StateError, match="no such task"):
        merge_task_result(doc, "E9", [], [])
