"""Citation groups with their lines; code and generated sections ignored."""

from __future__ import annotations

from deepresearch.report.blocks import blank_code_spans, body_blocks, strip_generated_sections
from deepresearch.report.citations import cited_in_order, find_citations, find_groups

REPORT = """\
# Title

Sales [S02] rose [S01][S03] and [S04] [S05]
wrapped [S01, S06]. `[S98]` is code.

```
[S99]
```

| a | b |
| --- | --- |
| x | 【S07】 |

## References

1. **[S08]** a source

## Next

Back in the body [S09].
"""


def test_groups_lines_and_canonical_flags() -> None:
    found = [(g.ids, g.line, g.canonical) for g in find_citations(REPORT)]
    assert found == [
        (("S02",), 3, True),
        (("S01", "S03"), 3, True),
        (("S04", "S05"), 3, True),
        (("S01", "S06"), 4, False),
        (("S07",), 12, False),
        (("S09",), 20, True),
    ]


def test_group_offsets_cover_the_brackets() -> None:
    text = "A [S01] [S02], then [S03]."
    groups = find_groups(text, first_line=7)
    assert [text[g.start : g.end] for g in groups] == ["[S01] [S02]", "[S03]"]
    assert {g.line for g in groups} == {7}


def test_first_citation_order() -> None:
    assert cited_in_order(REPORT) == ["S02", "S01", "S03", "S04", "S05", "S06", "S07", "S09"]


def test_lowercase_and_malformed_are_not_citations() -> None:
    assert find_groups("[s01] [S] [Fact-001] [S01a] S01") == []


def test_blank_code_spans_keeps_offsets_and_newlines() -> None:
    text = "a `b\nc` d ``e ` f`` g `unclosed"
    blanked = blank_code_spans(text)
    assert len(blanked) == len(text)
    assert blanked == "a " + "  " + "\n" + "  " + " d " + " " * 9 + " g `unclosed"


def test_strip_generated_sections_keeps_the_body() -> None:
    stripped = strip_generated_sections(REPORT)
    assert "## References" not in stripped and "[S08]" not in stripped
    assert "## Next" in stripped and stripped.endswith("Back in the body [S09].\n")


def test_blocks_inside_lists_and_quotes() -> None:
    blocks = body_blocks("- one\n  more\n- two\n\n> quoted\n> text\n")
    assert [(b.kind, b.line, b.quoted) for b in blocks] == [
        ("list_item", 1, False),
        ("list_item", 3, False),
        ("paragraph", 5, True),
    ]
    assert blocks[0].scope == blocks[1].scope != blocks[2].scope
