"""Placing figures after their first reference, and checking references and caption citations."""

from __future__ import annotations

from pathlib import Path

from deepresearch.figures import (
    RenderedFigure,
    check_figures,
    figure_markdown,
    figure_references,
    insert_figures,
)


def fig(number: int, title: str, sources: tuple[str, ...], caption: str = "") -> RenderedFigure:
    png, svg = f"assets/images/figure-{number}.png", f"assets/images/figure-{number}.svg"
    return RenderedFigure(number, title, caption or title, png, svg, sources)


SALES = fig(1, "Global sales", ("S01", "S03"), "Sales doubled in two years.")
CHINA = fig(2, "中国销量", ("S04",))
PRICES = fig(3, "Battery prices", ("S05",))

REPORT = """# Electric cars

## Sales

Sales grew fast [S01]. As Figure 1 shows,
they more than doubled [S03].

- China led: 图2 gives the numbers [S04]
- Europe followed [S03]

```
Figure 3 inside a code block is not a reference
```

## References

- [S01] Source 1, with its own Figure 9
"""


def test_figure_markdown_block() -> None:
    assert figure_markdown(SALES) == (
        "![Figure 1: Global sales](assets/images/figure-1.png)\n\n"
        "*Figure 1: Global sales.* Sales doubled in two years. [S01][S03]"
    )
    assert (
        figure_markdown(CHINA) == "![图 2: 中国销量](assets/images/figure-2.png)\n\n*图 2：中国销量。* [S04]"
    )


def test_each_figure_goes_after_the_block_that_first_refers_to_it() -> None:
    out = insert_figures(REPORT, [SALES, CHINA, PRICES])
    blocks = out.split("\n\n")
    doubled = next(i for i, b in enumerate(blocks) if b.endswith("they more than doubled [S03]."))
    assert blocks[doubled + 1] == "![Figure 1: Global sales](assets/images/figure-1.png)"
    assert blocks[doubled + 2].startswith("*Figure 1: Global sales.*")
    listed = next(i for i, b in enumerate(blocks) if b.startswith("- China led"))
    assert blocks[listed + 1].startswith("![图 2: 中国销量]")
    # Figure 3 is only mentioned in code: it goes at the end of the body, before References.
    assert out.index("figure-3.png") > out.index("inside a code block")
    assert out.index("figure-3.png") < out.index("## References")
    assert insert_figures(out, [SALES, CHINA, PRICES]) == out  # placed figures are not placed twice


def test_unreferenced_figures_are_appended_when_there_are_no_references() -> None:
    out = insert_figures("# Title\n\nText without figures.\n", [SALES])
    assert out.endswith("*Figure 1: Global sales.* Sales doubled in two years. [S01][S03]\n")


def test_plural_and_abbreviated_references() -> None:
    text = "Figures 2 and 3 compare prices; see also fig. 1 and 图 4、5. In Figure 1, 2023 was a record."
    assert figure_references(text) == [2, 3, 1, 4, 5]
    out = insert_figures("Intro.\n\nFigures 3 and 1 compare them.\n\nMore.\n", [SALES, PRICES])
    assert out.index("figure-1.png") < out.index("figure-3.png") < out.index("More.")


def test_check_figures_finds_missing_figures_and_uncited_sources(tmp_path: Path) -> None:
    report = insert_figures(REPORT, [SALES, CHINA])
    report = report.replace("## References", "As Figure 7 shows, and 图 8.\n\n## References")
    report = report.replace("Sales doubled in two years. [S01][S03]", "Sales doubled in two years. [S01]")
    (tmp_path / "assets" / "images").mkdir(parents=True)
    (tmp_path / SALES.png).write_bytes(b"png")
    assert check_figures(report, [SALES, CHINA, PRICES], tmp_path) == [
        "Figure 7 is referred to in the report but there is no Figure 7 (figures: 1, 2, 3)",
        "Figure 8 is referred to in the report but there is no Figure 8 (figures: 1, 2, 3)",
        "Figure 1's caption does not cite S03 (its data comes from them)",
        "图 2: image file assets/images/figure-2.png is missing",
        "Figure 3 (assets/images/figure-3.png) is not in the report",
    ]


def test_a_clean_report_has_no_figure_problems() -> None:
    report = insert_figures(REPORT, [SALES, CHINA, PRICES])
    assert check_figures(report, [SALES, CHINA, PRICES]) == []
    assert check_figures("No figures here.\n", []) == []
