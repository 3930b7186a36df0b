"""The rules of the stages before the report: when the analysis runs, what it must hold, the budget
they leave for the report, and how figures are checked in report.md and shown in report.html."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deepresearch.agents.runner import AgentRunner
from deepresearch.contracts.report import parse_analysis
from deepresearch.core.config import Config, apply_layer
from deepresearch.core.errors import ConfigError
from deepresearch.core.events import NullSink
from deepresearch.core.spendplan import ReportShare, Stage
from deepresearch.core.workspace import Workspace
from deepresearch.figures import RenderedFigure, save_figures
from deepresearch.pipeline.analyse import analysis_decision
from deepresearch.pipeline.checks import fact_violations
from deepresearch.pipeline.context import RunContext
from deepresearch.report.figure_check import figure_violations
from deepresearch.report.finalize import report_violations, verify_report
from deepresearch.report.html import render_html
from deepresearch.state.model import Fact, FrontMatter, TaskDoc
from deepresearch.state.store import StateStore


def doc_for(request: str, complexity: str = "") -> TaskDoc:
    front = FrontMatter(id="run", question=request.splitlines()[0], complexity=complexity)
    return TaskDoc(
        front, request=request, facts=[Fact("Fact-001", "The alpha index reached 48 points.", ["S01"])]
    )


@pytest.mark.parametrize(
    ("request_text", "complexity", "mode", "expected"),
    [
        ("What is the capital of France?", "analytical", "auto", (True, "analytical question")),
        ("What is the capital of France?", "comparison", "auto", (True, "comparison question")),
        ("Why did prices rise?", "simple", "auto", (False, "simple question")),
        ("Why did prices rise?", "analytical", "never", (False, "analysis is set to never")),
        ("What is the capital of France?", "simple", "always", (True, "analysis is set to always")),
        # No complexity recorded (a plan written by hand): the wording decides.
        ("Why did prices rise in 2024?", "", "auto", (True, 'the question asks for analysis ("Why")')),
        (
            "Should Europe subsidise heat pumps?",
            "",
            "auto",
            (True, 'the question asks for analysis ("Should")'),
        ),
        ("Tesla vs BYD sales", "", "auto", (True, 'the question asks for analysis ("vs")')),
        ("比较中国和欧洲的电动车销量", "", "auto", (True, 'the question asks for analysis ("比较")')),
        ("What is the capital of France?", "", "auto", (False, "simple question")),
        (" ".join(["word"] * 41), "", "auto", (True, "a long, open question")),
    ],
)
def test_when_the_analysis_runs(
    request_text: str, complexity: str, mode: str, expected: tuple[bool, str]
) -> None:
    assert analysis_decision(doc_for(request_text, complexity), mode) == expected


def test_an_analysis_needs_a_title_three_sections_and_citations(tmp_path: Path) -> None:
    path = tmp_path / "analyst_result.md"
    assert parse_analysis(path) == (None, ["the output file analyst_result.md was not written"])
    path.write_text("Some thoughts.\n\n## Perspectives\nA view.\n")
    assert parse_analysis(path)[1] == [
        "the analysis must start with '# ' and a title",
        "the section '## Counter-evidence' is missing",
        "the section '## Assumptions' is missing",
        "the analysis cites no source; cite each claim's source as [S01]",
    ]
    good = "# Analysis\n\n## Perspectives\nA [S01].\n\n## Counter-evidence\nB [S01].\n\n## Assumptions\n- C [S01].\n"
    path.write_text(good)
    assert parse_analysis(path) == (good, [])


def test_fact_ids_the_analysis_names_must_exist() -> None:
    text = "# A\n\nAs Fact-001 and Fact-1 say [S01].\nBut Fact-007 disagrees [S01].\n"
    found = fact_violations(text, doc_for("Why?"))
    assert [(v.line, v.kind) for v in found] == [(4, "unknown_fact")]
    assert found[0].message.startswith("Fact-007 is not in task.md ## Facts")


def test_optional_stages_leave_the_report_its_agent_calls(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    workspace.ensure()

    def context(**settings: object) -> RunContext:
        config = apply_layer(Config(), settings, "test")
        runner = AgentRunner(workspace, config, NullSink(), environ={})
        return RunContext(workspace, config, StateStore(workspace), runner, NullSink(), doc_for("Why?"))

    workspace.usage_ledger.write_text('{"cost_usd": 0.5}\n' * 5)

    def refusal(stage: Stage, **settings: object) -> str | None:
        budget = context(**settings).budget
        budget.plan(ReportShare(analysis=True, figures=True, support=True))
        return budget.refusal(stage)

    assert refusal(Stage.ANALYSIS) is None
    # 5 used + the analysis + 4 kept for the figures, the synthesizer, its support check and repair
    assert refusal(Stage.ANALYSIS, max_agent_calls=10) is None
    assert (
        refusal(Stage.ANALYSIS, max_agent_calls=9)
        == "agent call budget (5 of 9 used, 4 kept for what follows)"
    )
    assert refusal(Stage.FIGURES, max_agent_calls=9) is None
    assert refusal(Stage.ANALYSIS, max_cost_usd=2.5) == "cost budget spent ($2.50 of $2.50)"


def test_stage_settings_are_checked() -> None:
    assert apply_layer(Config(), {"analysis": "never", "max_figures": 0}, "test").max_figures == 0
    with pytest.raises(ConfigError, match="must be one of always, auto, never"):
        apply_layer(Config(), {"analysis": "sometimes"}, "deepresearch.yaml")
    with pytest.raises(ConfigError, match="must not be negative"):
        apply_layer(Config(), {"max_figures": -1}, "deepresearch.yaml")
    with pytest.raises(ConfigError, match="must be greater than 0"):
        apply_layer(Config(), {"max_chart_failures": 0}, "deepresearch.yaml")


# --- figures in report.md and report.html ------------------------------------------------------------

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"><rect width="600" height="300"/></svg>'
)


def figure(number: int, sources: tuple[str, ...] = ("S01", "S02")) -> RenderedFigure:
    png, svg = f"assets/images/figure-{number}.png", f"assets/images/figure-{number}.svg"
    return RenderedFigure(number, f"Index {number}", "What it shows.", png, svg, sources)


def draw(root: Path, *figures: RenderedFigure) -> None:
    """Image files for the figures, and their manifest."""
    for f in figures:
        (root / f.png).parent.mkdir(parents=True, exist_ok=True)
        (root / f.png).write_bytes(b"png")
        (root / f.svg).write_text(SVG)
    save_figures(root, list(figures))


REPORT = """# Indexes

The alpha index rose, see Figure 1 [S01].

![Figure 1: Index 1](assets/images/figure-1.png)

*Figure 1: Index 1.* What it shows. [S01]

As Figure 3 shows, beta rose too [S02].
"""


def test_figure_problems_are_violations_at_their_lines(tmp_path: Path) -> None:
    draw(tmp_path, figure(1), figure(2))
    found = figure_violations(REPORT, [figure(1), figure(2)], tmp_path)
    assert [(v.line, v.kind) for v in found] == [(1, "figure"), (7, "figure"), (9, "figure")]
    assert found[0].message == "Figure 2 (assets/images/figure-2.png) is not in the report"
    assert found[1].message.startswith("Figure 1's caption does not cite S02")
    assert (
        found[2].message == "Figure 3 is referred to in the report but there is no Figure 3 (figures: 1, 2)"
    )
    # verify_report reads the manifest when not given the figures, as `deepresearch check` does;
    # its lines are report.md's, below the two lines of the notice that follows the title.
    outcome = verify_report(REPORT, doc_for("Why?"), tmp_path)
    assert [v.line for v in outcome.violations if v.kind == "figure"] == [1, 9, 11]
    assert "Line 11 · figure · Figure 3 is referred to" in outcome.final_text
    final = outcome.final_text.splitlines()
    assert final[2].startswith("> **deepresearch: this report did not pass verification.**")
    assert final[10] == "As Figure 3 shows, beta rose too [S02]."
    assert [v for v in report_violations(REPORT, doc_for("Why?"), tmp_path, []) if v.kind == "figure"] == [
        v for v in figure_violations(REPORT, [], tmp_path)
    ]


def test_report_html_embeds_each_figure_as_its_svg(tmp_path: Path) -> None:
    draw(tmp_path, figure(1))
    report = REPORT + "\n![A chart by hand](assets/images/sales.png)\n"
    html = render_html(report, doc_for("Why?"), tmp_path)
    assert html.count('class="figure"') == 1
    assert 'src="data:image/svg+xml;base64,' in html and "figure-1.png" not in html.split("<article")[-1]
    assert '<img src="assets/images/sales.png" alt="A chart by hand" />' in html
    (tmp_path / "assets/images/figure-1.svg").unlink()  # no SVG: the PNG is shown
    assert '<img src="assets/images/figure-1.png" alt="Figure 1: Index 1" class="figure" />' in render_html(
        report, doc_for("Why?"), tmp_path
    )
    assert json.loads((tmp_path / "assets/images/figures.json").read_text())[0]["number"] == 1
