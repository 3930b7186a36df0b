"""Reports of earlier questions kept under reports/: links that work from there, and a repeatable keep."""

from __future__ import annotations

import json
from pathlib import Path

from deepresearch.report.kept import (
    figures_dir,
    keep_report,
    kept_figures,
    kept_stem,
    relocate,
    restore,
    state_path,
)

REPORT = """# Report

Alpha rose [S01].

![Figure 1: Alpha (bar)](assets/images/figure-1.png)

*Figure 1: Alpha (bar).* [S01]

## References

1. **[S01]** Alpha · archived copy: [assets/web/S01-a.md](assets/web/S01-a.md) · quoted at [p. 3](<assets/pdf/S01-a.pdf#page=3>)
"""


def test_stems_are_numbered_ascii_slugs() -> None:
    assert (
        kept_stem(1, "How did EU heat-pump sales change, 2022–2025?")
        == "01-how-did-eu-heat-pump-sales-change-2022-2025"
    )
    assert kept_stem(12, "热泵销量如何变化？") == "12-question"
    assert len(kept_stem(3, "word " * 40)) <= 51


def test_links_are_made_relative_to_reports_and_back() -> None:
    kept = relocate(REPORT, "01-q")
    assert "](01-q.figures/figure-1.png)" in kept
    assert "](../assets/web/S01-a.md)" in kept and "](<../assets/pdf/S01-a.pdf#page=3>)" in kept
    assert "[assets/web/S01-a.md]" in kept  # the link text stays as written
    assert restore(kept, "01-q") == REPORT


def _workspace(root: Path) -> None:
    (root / "assets" / "images").mkdir(parents=True)
    (root / "task.md").write_text("---\nquestion: q\n---\n", encoding="utf-8")
    (root / "report.md").write_text(REPORT, encoding="utf-8")
    (root / "report.html").write_text(
        '<a href="assets/web/S01-a.md">x</a><img src="assets/images/figure-1.png">'
    )
    for suffix in ("png", "svg"):
        (root / "assets" / "images" / f"figure-1.{suffix}").write_text(suffix)
    figure = {"number": 1, "title": "Alpha", "caption": "Alpha", "png": "assets/images/figure-1.png",
              "svg": "assets/images/figure-1.svg", "sources": ["S01"], "facts": ["Fact-001"]}  # fmt: skip
    (root / "assets" / "images" / "figures.json").write_text(json.dumps([figure]))


def test_keeping_moves_the_report_and_keeps_state_and_figures(tmp_path: Path) -> None:
    _workspace(tmp_path)
    path = keep_report(tmp_path, 1, "What is alpha?")
    assert path == "reports/01-what-is-alpha.md"
    kept = tmp_path / path
    assert kept.read_text(encoding="utf-8") == relocate(REPORT, kept.stem)
    assert state_path(kept).read_text(encoding="utf-8") == "---\nquestion: q\n---\n"
    html = kept.with_suffix(".html").read_text(encoding="utf-8")
    assert 'href="../assets/web/S01-a.md"' in html and f'src="{kept.stem}.figures/figure-1.png"' in html
    assert sorted(p.name for p in figures_dir(kept).iterdir()) == [
        "figure-1.png",
        "figure-1.svg",
        "figures.json",
    ]
    [figure] = kept_figures(tmp_path, kept)
    assert figure.png == f"reports/{kept.stem}.figures/figure-1.png" and figure.sources == ("S01",)
    assert not (tmp_path / "report.md").exists() and not (tmp_path / "report.html").exists()
    # After a crash that left the workspace's task.md unsaved, keeping again finds it kept.
    assert keep_report(tmp_path, 1, "What is alpha?") == path
    assert keep_report(tmp_path, 2, "Nothing written yet") == ""
