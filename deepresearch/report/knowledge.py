"""knowledge.json: the research as a graph other tools can reuse (nodes plus explicit edges).

Edge types: `cites` (fact → source), `produced_by` (fact → task), `involves` (conflict → fact),
`prefers` (conflict → its preferred fact), `covers` (task → dimension), `copy_of` (source → the
source whose text it repeats) and `found_for` (dimension, fact, source or conflict → the question
with which it entered the knowledge base: the graph grows across follow-up questions, listed under
`questions`). An edge is written only when both ends exist in task.md, so a consumer never meets a
dangling ID. `measures` holds the run's measures (report/measures.py).
"""

from __future__ import annotations

from dataclasses import asdict
from enum import Enum
from typing import Any

from deepresearch.report.measures import Measures, doc_measures
from deepresearch.state.model import TaskDoc
from deepresearch.state.questions import asked_in

SCHEMA = "deepresearch.knowledge"
SCHEMA_VERSION = 1


def _plain(value: Any) -> Any:
    """Dataclass values made JSON-ready: enums become their string values."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _edges(doc: TaskDoc) -> list[dict[str, str]]:
    sources = {s.id for s in doc.sources}
    facts = {f.id for f in doc.facts}
    tasks = {t.id for t in doc.tasks}
    dimensions = {d.id for d in doc.dimensions}
    edges: list[dict[str, str]] = []
    seen: set[tuple[str, str, str]] = set()

    def add(kind: str, start: str, end: str, ends: set[str]) -> None:
        if end in ends and (kind, start, end) not in seen:
            seen.add((kind, start, end))
            edges.append({"type": kind, "from": start, "to": end})

    for fact in doc.facts:
        for source_id in fact.sources:
            add("cites", fact.id, source_id, sources)
        add("produced_by", fact.id, fact.task, tasks)
    for conflict in doc.conflicts:
        for fact_id in conflict.facts:
            add("involves", conflict.id, fact_id, facts)
        add("prefers", conflict.id, conflict.preferred, facts)
    for task in doc.tasks:
        for dimension_id in task.dimensions:
            add("covers", task.id, dimension_id, dimensions)
    for source in doc.sources:
        if source.copy_of:
            add("copy_of", source.id, source.copy_of, sources)
    questions = {q.id for q in doc.questions}
    ids = [node.id for nodes in (doc.dimensions, doc.facts, doc.sources, doc.conflicts) for node in nodes]
    for node in ids:
        add("found_for", node, asked_in(doc, node), questions)
    return edges


def knowledge_export(doc: TaskDoc, measures: Measures | None = None) -> dict[str, Any]:
    """The knowledge graph of a run as a JSON-ready dict (schema `deepresearch.knowledge`, v1), with
    the run's `measures` (measures.py; without a report, claims and numbers count 0)."""
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "id": doc.front.id,
        "question": doc.front.question,
        "status": _plain(doc.front.status),
        "round": doc.front.round,
        "questions": [_plain(asdict(q)) for q in doc.questions],
        "dimensions": [_plain(asdict(d)) for d in doc.dimensions],
        "tasks": [_plain(asdict(t)) for t in doc.tasks],
        "facts": [_plain(asdict(f)) for f in doc.facts],
        "sources": [_plain(asdict(s)) for s in doc.sources],
        "conflicts": [_plain(asdict(c)) for c in doc.conflicts],
        "edges": _edges(doc),
        "measures": (measures or doc_measures(doc)).to_dict(),
    }
