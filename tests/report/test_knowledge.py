"""knowledge.json: every node kind exported, edges explicit and never dangling, JSON-ready."""

from __future__ import annotations

import json

from deepresearch.report.knowledge import SCHEMA_VERSION, knowledge_export
from tests.report.conftest import Run


def test_export_has_every_part_and_a_schema_version(run: Run) -> None:
    data = knowledge_export(run.doc)
    assert (data["schema"], data["schema_version"]) == ("deepresearch.knowledge", SCHEMA_VERSION)
    assert data["question"] == "How fast is the electric car market growing?"
    assert [len(data[k]) for k in ("dimensions", "tasks", "facts", "sources", "conflicts")] == [3, 3, 7, 7, 2]
    fact = data["facts"][1]
    assert fact == {
        "id": "Fact-002",
        "statement": "Electric cars were over 20% of new car sales in 2024.",
        "sources": ["S01", "S02"],
        "confidence": "medium",
        "quote": "",
        "verified": "yes",
        "task": "E1",
        "support": "unchecked",
        "dimensions": [],
        "support_reason": "",
    }
    assert data["sources"][0]["sha256"] == run.doc.sources[0].sha256
    assert json.loads(json.dumps(data)) == data  # plain JSON types only


def test_edges(run: Run) -> None:
    edges = {(e["type"], e["from"], e["to"]) for e in knowledge_export(run.doc)["edges"]}
    assert {("cites", "Fact-002", "S01"), ("cites", "Fact-002", "S02")} <= edges
    assert ("produced_by", "Fact-006", "E3") in edges
    assert {("involves", "CONF-1", "Fact-003"), ("involves", "CONF-1", "Fact-004")} <= edges
    assert ("prefers", "CONF-1", "Fact-003") in edges
    assert ("covers", "E3", "D3") in edges
    cites = [e for e in edges if e[0] == "cites"]
    assert len(cites) == sum(len(f.sources) for f in run.doc.facts)


def test_edges_to_unknown_ids_are_left_out(run: Run) -> None:
    run.doc.tasks[2].dimensions.append("D9")
    run.doc.conflicts[1].facts.append("Fact-404")
    run.doc.facts[0].sources.append("S404")
    edges = knowledge_export(run.doc)["edges"]
    targets = {e["to"] for e in edges}
    assert not {"Fact-404", "D9", "S404"} & targets
    assert ("prefers", "CONF-2") not in {(e["type"], e["from"]) for e in edges}  # no preferred fact
