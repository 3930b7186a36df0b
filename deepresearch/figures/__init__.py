"""Figures from facts: declarative chart specs, grounded in task.md, drawn safely by code.

parsed = parse_charts(text)                   # logs/charts_result.md -> specs + problems
plan = plan_figures(parsed, doc)              # validate + ground; plan.repair_message()
outcome = render_figures(root, plan.accepted) # child process, time limit -> figure-N.png/.svg
report = insert_figures(report, outcome.figures)
problems = check_figures(report, load_figures(root), root)
"""

from deepresearch.figures.place import check_figures, figure_markdown, figure_references, insert_figures
from deepresearch.figures.plan import AcceptedFigure, FigurePlan, RejectedFigure, plan_figures
from deepresearch.figures.point_grounding import Grounding, ground_figure
from deepresearch.figures.records import RenderedFigure, load_figures, save_figures
from deepresearch.figures.render import FigureRenderError, RenderOutcome, render_figure, render_figures
from deepresearch.figures.spec import ChartType, FigureSpec, ParsedCharts, Point, Series, parse_charts
from deepresearch.figures.table import table_markdown

__all__ = [
    "AcceptedFigure",
    "ChartType",
    "FigurePlan",
    "FigureRenderError",
    "FigureSpec",
    "Grounding",
    "ParsedCharts",
    "Point",
    "RejectedFigure",
    "RenderOutcome",
    "RenderedFigure",
    "Series",
    "check_figures",
    "figure_markdown",
    "figure_references",
    "ground_figure",
    "insert_figures",
    "load_figures",
    "parse_charts",
    "plan_figures",
    "render_figure",
    "render_figures",
    "save_figures",
    "table_markdown",
]
