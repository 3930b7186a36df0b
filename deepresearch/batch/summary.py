"""`deepresearch report DIR` for a batch: batch-report.md and .html with the per-job table and plots.

The plots (cost and minutes per job, quality score per round, claims supported) are figure specs
drawn by the figures module's render worker, a child process with a time limit: matplotlib never
runs in this process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from deepresearch.batch.export import measure_row
from deepresearch.batch.state import BatchState
from deepresearch.core.files import atomic_write
from deepresearch.figures.render import Drawing, FigureRenderError, draw_all
from deepresearch.figures.spec import ChartType, FigureSpec, Point, Series

REPORT_MD = "batch-report.md"
REPORT_HTML = "batch-report.html"
PLOTS = "batch-report"  # DIR/batch-report/<plot>.png|svg


@dataclass
class SummaryOutcome:
    markdown: Path
    html: Path
    plots: list[Path] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def write_summary(folder: Path, state: BatchState, timeout: float = 60.0) -> SummaryOutcome:
    """Measure every job, draw the plots, write batch-report.md and batch-report.html."""
    rows = [(record.id, measure_row(folder, record)) for record in state.jobs.values()]
    outcome = SummaryOutcome(folder / REPORT_MD, folder / REPORT_HTML)
    images: list[tuple[str, str]] = []  # (title, png path relative to DIR)
    specs = plot_specs(rows)
    drawings = [
        Drawing(spec, folder / PLOTS / f"{name}.png", folder / PLOTS / f"{name}.svg") for name, spec in specs
    ]
    (folder / PLOTS).mkdir(parents=True, exist_ok=True)
    for (name, spec), drawing, result in zip(
        specs, drawings, draw_all(drawings, timeout, len(drawings)), strict=True
    ):
        if isinstance(result, FigureRenderError):
            outcome.failures.append(f"{name}: {result.message}")
            continue
        outcome.plots.append(drawing.png)
        images.append((spec.title, drawing.png.relative_to(folder).as_posix()))
    text = summary_markdown(state, rows, images, outcome.failures)
    atomic_write(outcome.markdown, text)
    atomic_write(outcome.html, _html(text))
    return outcome


def summary_markdown(
    state: BatchState,
    rows: list[tuple[str, dict[str, Any]]],
    images: list[tuple[str, str]],
    failures: list[str],
) -> str:
    """The summary as markdown: totals, the per-job table, the plots, rejected lines."""
    done = sum(1 for _, r in rows if r["status"] == "completed")
    cost = sum(r["cost_usd"] or 0.0 for _, r in rows)
    calls = sum(r["agent_calls"] or 0 for _, r in rows)
    minutes = sum(r["minutes"] or 0.0 for _, r in rows)
    lines = [
        "# Batch report",
        "",
        f"Batch file: `{state.file}` · {len(rows)} jobs, {done} completed · {calls} agent calls · "
        f"${cost:.4f} · {minutes:.1f} run minutes"
        + (f" · stopped: {state.stopped}" if state.stopped else ""),
        "",
        "| Job | Status | Rounds | Score | Facts verified | Claims supported | Sources | Calls | Cost | "
        "Minutes | Verification | Stopped because |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for job_id, r in rows:
        link = f"[{_cell(job_id)}]({r['report']})" if r["report"] else _cell(job_id)
        lines.append(
            f"| {link} | {r['status']} | {r['rounds']} | {_num(r['score'])} | "
            f"{_share(r['facts_verified'], r['facts_total'])} | {_share(r['claims_supported'], r['claims_checked'])} | "
            f"{_num(r['sources'])} | {r['agent_calls']} | ${r['cost_usd']:.4f} | {_num(r['minutes'])} | "
            f"{_cell(r['verification'])} | {_cell(r['termination_reason'])} |"
        )
    for title, path in images:
        lines += ["", f"![{_cell(title)}]({path})"]
    if failures:
        lines += ["", "Plots that could not be drawn: " + "; ".join(failures)]
    if state.problems:
        lines += ["", "Lines of the batch file that were rejected:", ""]
        lines += [f"- line {p.get('line')}: {_cell(str(p.get('message')))}" for p in state.problems]
    return "\n".join(lines) + "\n"


def plot_specs(rows: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, FigureSpec]]:
    """The figure specs of the summary (only those with data to show)."""
    specs: list[tuple[str, FigureSpec]] = []
    cost = [_point(j, r["cost_usd"]) for j, r in rows if r["agent_calls"]]
    if cost:
        specs.append(("cost", _bar("Cost per job", cost, "USD")))
    minutes = [_point(j, r["minutes"]) for j, r in rows if r["minutes"] is not None]
    if minutes:
        specs.append(("minutes", _bar("Minutes per job", minutes, "minutes")))
    series = [
        Series(j, tuple(_round_point(n, s) for n, s in enumerate(r["scores"], 1)))
        for j, r in rows
        if r["scores"]
    ]
    if series:
        spec = FigureSpec(ChartType.LINE, "Quality score per round", tuple(series), "Round", "Score")
        specs.append(("scores", spec))
    claims = [
        _point(j, 100.0 * r["claims_supported"] / r["claims_checked"]) for j, r in rows if r["claims_checked"]
    ]
    facts = [_point(j, 100.0 * r["facts_verified"] / r["facts_total"]) for j, r in rows if r["facts_total"]]
    if claims:
        specs.append(("claims", _bar("Claims supported (share of claims checked)", claims, "%")))
    elif facts:  # runs without a claim verifier: their facts' quotes were still checked
        specs.append(("claims", _bar("Facts verified (no claim checks recorded)", facts, "%")))
    return specs


def _point(label: str, value: float) -> Point:
    return Point(label, float(value), f"{value:.3g}", ())


def _round_point(round_no: int, score: float) -> Point:
    # Rounds as categories: one-round jobs get a tick "1", not a fractional axis.
    return Point(str(round_no), float(score), f"{score:g}", ())


def _bar(title: str, points: list[Point], unit: str) -> FigureSpec:
    return FigureSpec(ChartType.BAR, title, (Series("", tuple(points)),), "Job", unit)


def _num(value: Any) -> str:
    return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def _share(part: Any, whole: Any) -> str:
    return "-" if part is None or not whole else f"{part}/{whole}"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _html(markdown: str) -> str:
    body = MarkdownIt("commonmark").enable("table").render(markdown)
    return (
        '<!doctype html>\n<html><head><meta charset="utf-8"><title>Batch report</title>\n<style>'
        "body{font-family:sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}"
        "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.25rem .5rem}"
        "img{max-width:100%}</style></head><body>\n" + body + "</body></html>\n"
    )
