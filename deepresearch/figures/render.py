"""Rendering accepted figures in a child process with a time limit: PNG for report.md, SVG for HTML.

A run's figures are drawn by one `python -m deepresearch.figures.worker` (matplotlib, Agg backend),
which reads JSON jobs on stdin and never runs agent code; it draws each figure in a child of its own,
killed past `timeout` seconds (the figure fails with `FigureRenderError`). The worker runs in its own
process group, itself killed if it outlives every figure's limit.
Figures are numbered in the order they render successfully, so the report's numbers have no gaps;
after `max_chart_failures` consecutive failures the remaining figures are skipped.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import deepresearch
from deepresearch.core.errors import DeepResearchError
from deepresearch.core.process import run_captured
from deepresearch.core.workspace import Workspace
from deepresearch.figures.plan import MAX_CHART_FAILURES, AcceptedFigure, FailureCounter
from deepresearch.figures.records import RenderedFigure, save_figures
from deepresearch.figures.spec import FigureSpec

DEFAULT_TIMEOUT = 60.0
_OLD_OUTPUT = re.compile(r"^(figure|draft)-\d+\.(png|svg)$")


class FigureRenderError(DeepResearchError):
    """A figure could not be drawn: the worker failed, or ran past its time limit and was killed."""

    def __init__(self, message: str, timed_out: bool = False) -> None:
        super().__init__(message, hint=None if timed_out else "see the worker error above")
        self.timed_out = timed_out


@dataclass
class RenderOutcome:
    figures: list[RenderedFigure] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # "figure 3 (spec 4): <reason>"
    skip_reason: str = ""

    @property
    def warnings(self) -> list[str]:
        return [f"{f.label}: {w}" for f in self.figures for w in f.warnings]


def _worker_env() -> dict[str, str]:
    """The parent's environment, with this package importable and matplotlib headless."""
    env = dict(os.environ, MPLBACKEND="Agg")
    package_root = str(Path(deepresearch.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env


@dataclass(frozen=True)
class Drawing:
    """One figure to draw: its spec and the two files it goes to."""

    spec: FigureSpec
    png: Path
    svg: Path


def draw_all(
    drawings: Sequence[Drawing], timeout: float, max_failures: int
) -> list[list[str] | FigureRenderError]:
    """Draw every figure in one worker process (matplotlib imported once), each in a child of it
    killed at `timeout` seconds; per figure its warnings or its error, in order, fewer when
    `max_failures` failed in a row."""
    if not drawings:
        return []
    request = {
        "jobs": [{"spec": d.spec.to_json(), "png": str(d.png), "svg": str(d.svg)} for d in drawings],
        "timeout": timeout,
        "max_failures": max_failures,
    }
    command = [sys.executable, "-m", "deepresearch.figures.worker"]
    limit = len(drawings) * (timeout + 5.0) + 30.0  # the worker enforces each figure's own limit
    outcome = run_captured(
        command, input_text=json.dumps(request, ensure_ascii=False), timeout=limit, env=_worker_env()
    )
    lines = [json.loads(line) for line in outcome.stdout.splitlines() if line.startswith("{")]
    results: list[list[str] | FigureRenderError] = []
    for drawing, line in zip(drawings, lines, strict=False):
        results.append(_result(drawing, line, timeout))
    if len(lines) < len(drawings) and (outcome.exit_code != 0 or outcome.timed_out):
        last = (outcome.stderr.strip().splitlines() or [f"exit status {outcome.exit_code}"])[-1]
        reason = "the worker was stopped" if outcome.timed_out else last
        for drawing in drawings[len(lines) :]:
            _remove(drawing.png, drawing.svg)
            results.append(FigureRenderError(f"rendering {drawing.png.name} failed: {reason}"))
    return results


def _result(drawing: Drawing, line: dict[str, Any], timeout: float) -> list[str] | FigureRenderError:
    """One worker result line as warnings, or as the error it reports (files removed)."""
    png, svg = drawing.png, drawing.svg
    if line.get("ok") and png.is_file() and svg.is_file():
        return list(line.get("warnings", []))
    _remove(png, svg)
    if line.get("timed_out"):
        return FigureRenderError(
            f"rendering {png.name} took longer than {timeout:g} s: stopped", timed_out=True
        )
    return FigureRenderError(f"rendering {png.name} failed: {line.get('error') or 'no file was written'}")


def render_figure(spec: FigureSpec, png: Path, svg: Path, timeout: float = DEFAULT_TIMEOUT) -> list[str]:
    """Draw one spec into `png` and `svg` in a child process; return its warnings."""
    (result,) = draw_all([Drawing(spec, png, svg)], timeout, max_failures=1)
    if isinstance(result, FigureRenderError):
        raise result
    return result


def _remove(*paths: Path) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def render_figures(
    workspace_root: Path,
    accepted: Sequence[AcceptedFigure],
    timeout: float = DEFAULT_TIMEOUT,
    *,
    max_chart_failures: int = MAX_CHART_FAILURES,
) -> RenderOutcome:
    """Render every accepted figure to assets/images/figure-N.{png,svg} and write the manifest."""
    workspace = Workspace(workspace_root)
    images = workspace.asset_dir("images")
    images.mkdir(parents=True, exist_ok=True)
    _remove(*(p for p in images.iterdir() if _OLD_OUTPUT.match(p.name)))  # a re-run draws the full set
    outcome = RenderOutcome()
    counter = FailureCounter(max_chart_failures)
    drafts = [
        Drawing(f.spec, images / f"draft-{i}.png", images / f"draft-{i}.svg") for i, f in enumerate(accepted)
    ]
    results = draw_all(drafts, timeout, max_chart_failures)
    for figure, draft, result in zip(accepted, drafts, results, strict=False):
        if counter.exhausted:
            break
        number = len(outcome.figures) + 1
        png, svg = images / f"figure-{number}.png", images / f"figure-{number}.svg"
        if isinstance(result, FigureRenderError):
            message = result.message.replace(draft.png.name, png.name)  # named as it would have been
            outcome.failures.append(f"spec {figure.index} ({figure.spec.title}): {message}")
            counter.failed(f"spec {figure.index}")
            continue
        counter.succeeded()
        draft.png.replace(png)
        draft.svg.replace(svg)
        spec = figure.spec
        outcome.figures.append(RenderedFigure(
            number, spec.title, spec.caption or spec.title, workspace.relative(png), workspace.relative(svg),
            figure.sources, figure.facts, figure.index, str(spec.type), tuple(result),
        ))  # fmt: skip
    if counter.exhausted:
        outcome.skip_reason = counter.reason
    save_figures(workspace_root, outcome.figures)
    return outcome
