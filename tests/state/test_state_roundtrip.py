"""parse(render(doc)) == doc, and rendering is idempotent, for documents with hostile cell text."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings

from deepresearch.state import model as m
from deepresearch.state.cells import escape_cell, unescape_cell
from deepresearch.state.parser import parse_task_md
from deepresearch.state.writer import render_task_md
from tests.state.state_strategies import hostile_text, task_docs

EXAMPLE = Path(__file__).resolve().parents[2] / "task.md.example"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task_docs())
def test_parse_of_render_is_the_document(doc: m.TaskDoc) -> None:
    text = render_task_md(doc)
    parsed = parse_task_md(text)
    assert parsed == doc
    assert render_task_md(parsed) == text


@settings(max_examples=300, deadline=None)
@given(hostile_text(12))
def test_cell_escaping_round_trips(text: str) -> None:
    cell = escape_cell(text)
    assert "\n" not in cell
    assert unescape_cell(cell) == text


def test_example_parses_and_renders_canonically() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    doc = parse_task_md(text, path="task.md.example")
    assert render_task_md(doc) == text
    assert len(doc.dimensions) == 3
    assert [t.id for t in doc.tasks if t.id.startswith("C")] == ["C1"]
    assert len(doc.facts) >= 6 and len(doc.sources) >= 4
    assert doc.conflicts and len(doc.quality) == 2 and doc.gaps and doc.scratchpad


def test_empty_document_renders_every_table_header() -> None:
    doc = m.TaskDoc(front=m.FrontMatter(id="r", question="q"))
    text = render_task_md(doc)
    assert (
        "| ID | Statement | Sources | Confidence | Quote | Verified | Support | Task | Dimensions | Support reason |"
        "\n| --- |" in text
    )
    assert "| Round | Score | Completeness | Depth | Reliability | Actionability | Gaps | Decision |" in text
    assert parse_task_md(text) == doc


def test_cell_forms() -> None:
    assert escape_cell("") == "-"
    assert escape_cell("-") == "\\-"
    assert escape_cell("a|b") == "a\\|b"
    assert escape_cell("C:\\x") == "C:\\\\x"
    assert escape_cell("one\ntwo") == "one<br>two"
    assert escape_cell("write <br> here") == "write \\<br> here"
    assert escape_cell(":--") == "\\:--"
    assert unescape_cell(" - ") == ""
    assert unescape_cell("a<br/>b<BR>c") == "a\nb\nc"
    assert unescape_cell("C:\\path") == "C:\\path"  # an unknown escape stays as written
