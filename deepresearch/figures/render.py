"""Rendering accepted figures in a child process with a time limit: PNG for report.md, SVG for HTML.

Each figure is drawn by `python -m deepresearch.figures.worker` (matplotlib, Agg backend), which
reads a JSON job on stdin and never runs agent code. The worker runs in its own process group;
past `timeout` seconds the whole group is killed and the figure fails with `FigureRenderError`.
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

import deepresearch
from deepresearch.core.errors import DeepResearchError
from deepresearch.core.process import run_captured
from deepresearch.core.workspace import Workspace
from deepresearch.figures.plan import MAX_CHART_FAILURES, AcceptedFigure, FailureCounter
from deepresearch.figures.records import RenderedFigure, save_figures
from deepresearch.figures.spec import FigureSpec

DEFAULT_TIMEOUT = 60.0
_OLD_OUTPUT = re.compile(r"^figure-\d+\.(png|svg)$")


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


def render_figure(spec: FigureSpec, png: Path, svg: Path, timeout: float = DEFAULT_TIMEOUT) -> list[str]:
    """Draw one spec into `png` and `svg` in a child process; return its warnings."""
    job = json.dumps({"spec": spec.to_json(), "png": str(png), "svg": str(svg)}, ensure_ascii=False)
    command = [sys.executable, "-m", "deepresearch.figures.worker"]
    outcome = run_captured(command, input_text=job, timeout=timeout, env=_worker_env())
    if outcome.timed_out:
        _remove(png, svg)
        raise FigureRenderError(
            f"rendering {png.name} took longer than {timeout:g} s: stopped", timed_out=True
        )
    if outcome.exit_code != 0 or not (png.is_file() and svg.is_file()):
        _remove(png, svg)
        last = (outcome.stderr.strip().splitlines() or [f"exit status {outcome.exit_code}"])[-1]
        raise FigureRenderError(f"rendering {png.name} failed: {last}")
    return list(json.loads(outcome.stdout.strip().splitlines()[-1]).get("warnings", []))


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
    for figure in accepted:
        if counter.exhausted:
            outcome.skip_reason = counter.reason
            break
        number = len(outcome.figures) + 1
        png, svg = images / f"figure-{number}.png", images / f"figure-{number}.svg"
        try:
            warnings = render_figure(figure.spec, png, svg, timeout)
        except FigureRenderError as exc:
            outcome.failures.append(f"spec {figure.index} ({figure.spec.title}): {exc.message}")
            counter.failed(f"spec {figure.index}")
            continue
        counter.succeeded()
        spec = figure.spec
        outcome.figures.append(RenderedFigure(
            number, spec.title, spec.caption or spec.title, workspace.relative(png), workspace.relative(svg),
            figure.sources, figure.facts, figure.index, str(spec.type), tuple(warnings),
        ))  # fmt: skip
    save_figures(workspace_root, outcome.figures)
    return outcome
