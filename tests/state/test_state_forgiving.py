"""The parser is forgiving about form: any of these spellings reads as the same document."""

from __future__ import annotations

from deepresearch.state import model as m
from deepresearch.state.parser import parse_task_md
from deepresearch.state.writer import render_task_md
from tests.state.test_state_malformed import BASE, E2_ROW, FACT2_ROW

CANONICAL = parse_task_md(BASE)


def _same_as_base(text: str) -> None:
    assert parse_task_md(text) == CANONICAL


def test_alignment_colons_extra_spaces_and_missing_outer_pipes() -> None:
    _same_as_base(
        BASE.replace(
            "| ID | Gap | Round | Status |\n| --- | --- | --- | --- |\n| G1 | Bills in deep cold | 1 | open |",
            "ID|Gap |  Round|Status\n:---|:---:|---:|-\n  G1   |   Bills in deep cold|1|open",
        )
    )


def test_columns_and_sections_in_another_order() -> None:
    gaps = "## Gaps\n\n| ID | Gap | Round | Status |\n| --- | --- | --- | --- |\n| G1 | Bills in deep cold | 1 | open |\n\n"
    moved = BASE.replace(gaps, "").replace("## Request\n", gaps + "## Request\n")
    moved = moved.replace(
        "| ID | Dimension | Description | Coverage |\n| --- | --- | --- | --- |\n"
        "| D1 | Performance | COP below -15 °C | partial |\n| D2 | Cost | Yearly bills | none |",
        "| Coverage | ID | Description | Dimension |\n| --- | --- | --- | --- |\n"
        "| partial | D1 | COP below -15 °C | Performance |\n| none | D2 | Yearly bills | Cost |",
    )
    _same_as_base(moved)
    assert render_task_md(parse_task_md(moved)) == BASE


def test_heading_spellings_crlf_and_bom() -> None:
    text = BASE.replace("## Research DAG", "##   research   dag ##").replace("## Facts", "##FACTS")
    _same_as_base("\ufeff" + text.replace("\n", "\r\n"))


def test_case_of_enums_list_separators_and_empty_cells() -> None:
    text = BASE.replace(E2_ROW, "| E2 | Compare bills | D2 | MEDIUM |  E1  | Pending |  |")
    text = text.replace("| Findings | D1, D2 |", "| Findings | D1;D2 |")
    _same_as_base(text)


def test_line_breaks_escaped_pipes_and_wide_characters_in_cells() -> None:
    row = FACT2_ROW.replace("COP fell to 1.6 at -20 °C", "COP 跌至 1.6 \\| 😀 at<br/>-20 °C<BR>ok")
    doc = parse_task_md(BASE.replace(FACT2_ROW, row))
    assert doc.facts[1].statement == "COP 跌至 1.6 | 😀 at\n-20 °C\nok"
    assert "| COP 跌至 1.6 \\| 😀 at<br>-20 °C<br>ok |" in render_task_md(doc)


def test_a_section_without_a_table_is_an_empty_table() -> None:
    text = BASE.replace(
        "| ID | Topic | Facts | Severity | Preferred | Resolution |\n| --- | --- | --- | --- | --- | --- |\n",
        "",
    )
    _same_as_base(text)


def test_request_keeps_its_own_headings_and_markup() -> None:
    request = "Compare:\n\n## Background\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n    code\n## Facts\n\\## Facts"
    doc = m.TaskDoc(front=m.FrontMatter(id="r", question="q"), request=request, scratchpad="## Notes\n- one")
    text = render_task_md(doc)
    assert "\n\\## Facts\n\\\\## Facts\n" in text
    assert parse_task_md(text) == doc


def test_front_matter_scalars_keep_their_text() -> None:
    text = BASE.replace("id: run-1", "id: 0123").replace(
        "created: '2026-11-02T09:00:00Z'", "created: 2026-11-02T09:00:00Z"
    )
    doc = parse_task_md(text.replace("status: researching", "status: RESEARCHING"))
    assert doc.front.id == "0123"
    assert doc.front.created == "2026-11-02T09:00:00Z"
    assert doc.front.status is m.RunStatus.RESEARCHING


def test_upper_case_sha256_is_stored_lower_case() -> None:
    digest = "AB" * 32
    doc = parse_task_md(BASE.replace("| assets/web/S01.md | - |", f"| assets/web/S01.md | {digest} |"))
    assert doc.sources[0].sha256 == digest.lower()


def test_a_task_md_written_before_the_optional_columns_still_parses() -> None:
    """Support, Dimensions and Support reason (Facts), Copy of and Flags (Sources) came later: an
    older file reads with defaults."""
    from deepresearch.state.model import Support
    from deepresearch.state.writer import render_task_md
    from tests.state.test_state_malformed import BASE

    old = (
        BASE.replace("| Verified | Support | Task | Dimensions | Support reason |", "| Verified | Task |")
        .replace(
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n| Fact",
            "| --- | --- | --- | --- | --- | --- | --- |\n| Fact",
        )
        .replace("| yes | supported | E1 | D1 | The quote gives 2.9. |", "| yes | E1 |")
        .replace("| unchecked | unchecked | E1 | - | - |", "| unchecked | E1 |")
        .replace("| SHA-256 | Copy of | Flags |", "| SHA-256 |")
        .replace(
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        )
        .replace("| - | - | - |\n\n## Conflicts", "| - |\n\n## Conflicts")
    )
    assert (
        "Support" not in old
        and "Copy of" not in old
        and "| Dimensions |\n| --- | --- | --- |\n| Fact" not in old
    )
    doc = parse_task_md(old)
    assert [f.support for f in doc.facts] == [Support.UNCHECKED] * 2
    assert [f.support_reason for f in doc.facts] == ["", ""]
    assert [f.dimensions for f in doc.facts] == [[], []]  # meaning: the task's dimensions
    assert doc.sources[0].copy_of == "" and doc.sources[0].flags == []
    assert "| Verified | Support | Task | Dimensions | Support reason |" in render_task_md(
        doc
    )  # current form
