"""Rendering specs to PNG and SVG in a child process: every chart type, CJK text, time limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.image
import pytest

from deepresearch.figures import (
    AcceptedFigure,
    FigureRenderError,
    FigureSpec,
    load_figures,
    parse_charts,
    plan_figures,
    render_figure,
    render_figures,
)
from deepresearch.figures.fonts import font_chain
from deepresearch.figures.render import Drawing, draw_all
from deepresearch.figures.worker import SLEEP_ENV
from deepresearch.state.model import TaskDoc
from tests.figures.helpers import charts_file, sales_line, share_pie

GROUPED = {"type": "grouped_bar", "title": "Share of sales", "unit": "%", "series": [
    {"name": "China", "points": [{"label": "2023", "value": 60, "fact": "Fact-004"}]},
    {"name": "Europe", "points": [{"label": "2023", "value": 25, "fact": "Fact-004"}]},
]}  # fmt: skip
CHINESE = {"type": "bar", "title": "中国新能源汽车销量", "x_label": "年份", "y_label": "销量", "unit": "万辆",
           "caption": "销量同比增长37.9%。", "points": [
    {"label": "2022年", "value": 688.7, "fact": "Fact-009"},
    {"label": "2023年", "value": 949.5, "fact": "Fact-005"},
]}  # fmt: skip
SCATTER = {"type": "scatter", "title": "Price and sales", "x_label": "$/kWh", "points": [
    {"label": "2023", "x": 139, "y": 14, "fact": ["Fact-006", "Fact-003"]},
]}  # fmt: skip


def table() -> dict[str, Any]:
    return {**sales_line(), "type": "table"}


def accepted(doc: TaskDoc, *figures: dict[str, Any]) -> list[AcceptedFigure]:
    plan = plan_figures(parse_charts(charts_file(*figures), max_figures=len(figures)), doc)
    assert plan.problems == []
    return plan.accepted


def ink(png: Path) -> float:
    """The share of pixels that are not (near) white."""
    pixels = matplotlib.image.imread(png)[:, :, :3]
    return float((pixels.min(axis=2) < 0.9).mean())


def test_every_chart_type_renders_to_png_and_svg(tmp_path: Path, doc: TaskDoc) -> None:
    figures = accepted(doc, sales_line(), share_pie(), GROUPED, CHINESE, SCATTER, table())
    (tmp_path / "assets" / "images").mkdir(parents=True)
    stale = tmp_path / "assets" / "images" / "figure-9.png"
    stale.write_bytes(b"old")
    outcome = render_figures(tmp_path, figures, timeout=60)
    assert outcome.failures == [] and outcome.skip_reason == ""
    assert [(f.number, f.type) for f in outcome.figures] == [
        (1, "line"), (2, "pie"), (3, "grouped_bar"), (4, "bar"), (5, "scatter"), (6, "table")
    ]  # fmt: skip
    for figure in outcome.figures:
        png = tmp_path / figure.png
        height, width = matplotlib.image.imread(png).shape[:2]
        assert width == 1080 and height == (630 if figure.type != "table" else 315)
        assert ink(png) > 0.02, f"{figure.png} is nearly blank"
        assert (tmp_path / figure.svg).read_text("utf-8").lstrip().startswith("<?xml")
    assert not stale.exists()
    assert load_figures(tmp_path) == outcome.figures
    assert outcome.figures[0].sources == ("S01", "S02", "S03")


def test_chinese_labels_use_a_cjk_font(tmp_path: Path, doc: TaskDoc) -> None:
    if font_chain(need_cjk=True)[1]:
        pytest.skip("no CJK font installed: apt-get install fonts-noto-cjk")
    (figure,) = accepted(doc, CHINESE)
    warnings = render_figure(figure.spec, tmp_path / "zh.png", tmp_path / "zh.svg")
    assert warnings == []  # every glyph found: no boxes
    assert ink(tmp_path / "zh.png") > 0.02


def test_a_glyph_no_font_has_is_reported_not_silent(tmp_path: Path, doc: TaskDoc) -> None:
    (figure,) = accepted(doc, {**share_pie(), "title": "Share \U00013000"})  # an Egyptian hieroglyph
    warnings = render_figure(figure.spec, tmp_path / "x.png", tmp_path / "x.svg")
    assert len(warnings) == 1 and "glyph(s) missing from the fonts" in warnings[0]


def test_worker_failure_is_a_typed_error(tmp_path: Path, doc: TaskDoc) -> None:
    (figure,) = accepted(doc, share_pie())
    with pytest.raises(FigureRenderError) as caught:
        render_figure(figure.spec, tmp_path / "missing" / "a.png", tmp_path / "missing" / "a.svg")
    assert not caught.value.timed_out
    assert "No such file or directory" in caught.value.message


def test_one_figure_that_fails_leaves_the_others_of_the_worker_drawn(tmp_path: Path, doc: TaskDoc) -> None:
    """One worker draws a run's figures, each in a child of its own: a failure stays with its figure."""
    specs = [figure.spec for figure in accepted(doc, share_pie(), sales_line(), GROUPED)]
    drawings = [
        Drawing(specs[0], tmp_path / "a.png", tmp_path / "a.svg"),
        Drawing(specs[1], tmp_path / "missing" / "b.png", tmp_path / "missing" / "b.svg"),
        Drawing(specs[2], tmp_path / "c.png", tmp_path / "c.svg"),
    ]
    first, second, third = draw_all(drawings, timeout=60, max_failures=2)
    assert first == [] and third == []
    assert isinstance(second, FigureRenderError) and "No such file or directory" in second.message
    assert ink(tmp_path / "a.png") > 0.01 and ink(tmp_path / "c.png") > 0.01
    assert not (tmp_path / "missing").exists()


def test_a_hanging_renderer_is_stopped_by_the_time_limit(
    tmp_path: Path, doc: TaskDoc, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SLEEP_ENV, "120")
    spec: FigureSpec = accepted(doc, share_pie())[0].spec
    with pytest.raises(FigureRenderError) as caught:
        render_figure(spec, tmp_path / "a.png", tmp_path / "a.svg", timeout=1.5)
    assert caught.value.timed_out
    assert caught.value.message == "rendering a.png took longer than 1.5 s: stopped"
    assert not (tmp_path / "a.png").exists()


def test_two_render_failures_in_a_row_skip_the_rest(
    tmp_path: Path, doc: TaskDoc, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SLEEP_ENV, "120")
    outcome = render_figures(tmp_path, accepted(doc, share_pie(), sales_line(), GROUPED), timeout=1)
    assert outcome.figures == []
    assert [f.split(":")[0] for f in outcome.failures] == [
        "spec 1 (Share of 2023 electric-car sales)",
        "spec 2 (Global electric-car sales)",
    ]
    assert outcome.skip_reason == "2 charts failed in a row (spec 1, spec 2): remaining charts skipped"
    assert load_figures(tmp_path) == []


def test_a_table_figure_keeps_every_long_label_inside_the_canvas() -> None:
    """Long row labels (here: conflicting end-2025 figures, as a real run produced) used to be
    clipped at both edges; columns are now sized to their text and labels wrapped."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from deepresearch.figures.draw import draw
    from deepresearch.figures.fonts import font_chain

    labels = [
        "Installed electrolyser capacity at the end of 2025 according to the national hydrogen strategy",
        "Installed capacity at end-2025 reported by the industry association in its annual market review",
        "国家能源局公布的截至2025年底全国电解槽装机容量（含示范项目与在建项目的统计口径说明）",
        "IEA",
    ]
    spec = {
        "type": "table", "title": "Conflicting end-2025 figures", "x_label": "Source and measure",
        "y_label": "Capacity", "unit": "GW", "caption": "", "series": [
            {"name": "", "points": [{"label": label, "value_text": f"{n + 1}.5"} for n, label in enumerate(labels)]}
        ],
    }  # fmt: skip
    families, _ = font_chain(True)
    with matplotlib.rc_context({"font.family": families}):
        figure = draw(spec)
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        renderer = canvas.get_renderer()
        table = figure.axes[0].tables[0]
        texts = [cell.get_text() for cell in table.get_celld().values()]
        shown = {"".join(t.get_text().split()) for t in texts}
        assert {"".join(label.split()) for label in labels} <= shown  # wrapped, never cut
        canvas_box = figure.bbox
        for text in texts:
            box = text.get_window_extent(renderer)
            assert canvas_box.x0 <= box.x0 and box.x1 <= canvas_box.x1, text.get_text()
            assert canvas_box.y0 <= box.y0 and box.y1 <= canvas_box.y1, text.get_text()
