"""End to end: the outline, the critical analysis and the figures in real runs with the fake agent.

Three runs, each shared by the tests that look at it:
- analytical: the analysis runs (its first draft cites an unknown source and is repaired), the chart
  planner's first spec charts a number no fact states and is repaired, two figures reach the report;
- simple: the analysis is skipped, the first two charts stay wrong, so the other two are skipped;
- comparison: the analysis keeps citing an unknown source and is withheld; no chart helps.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from deepresearch.figures import check_figures, load_figures
from deepresearch.state.model import RunStatus
from tests.helpers import PageServer, page_value, skip_without_browser
from tests.stages.runs import Run, cli, research, stage_env, two_task_plan

BAD_ANALYSIS = """# Critical analysis

## Perspectives

The alpha index tripled in a year [S99].

## Counter-evidence

Nothing contradicts it [S99].

## Assumptions

- That growth goes on [S99].
"""
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


@pytest.fixture(scope="module")
def site() -> Iterator[PageServer]:
    with PageServer() as server:
        yield server


@pytest.fixture(scope="module")
def analytical(tmp_path_factory: pytest.TempPathFactory, site: PageServer) -> Run:
    scenario = {
        "planner": two_task_plan("analytical"),
        "analyst": {"analysis_first": BAD_ANALYSIS},
        "charts": {"broken_first": [1]},
        "page_base": site.base_url,
    }
    return research(
        tmp_path_factory.mktemp("analytical"), "Why did the alpha and beta indexes rise?", scenario
    )


@pytest.fixture(scope="module")
def simple(tmp_path_factory: pytest.TempPathFactory, site: PageServer) -> Run:
    scenario = {
        "planner": two_task_plan("simple"),
        "charts": {"types": ["bar", "bar", "table", "line"], "broken": [1, 2]},
        "page_base": site.base_url,
    }
    return research(tmp_path_factory.mktemp("simple"), "What did the alpha index reach?", scenario)


@pytest.fixture(scope="module")
def withheld(tmp_path_factory: pytest.TempPathFactory, site: PageServer) -> Run:
    scenario = {
        "planner": two_task_plan("comparison"),
        "analyst": {"analysis": BAD_ANALYSIS},
        "charts": {"figures": []},
        "page_base": site.base_url,
    }
    return research(tmp_path_factory.mktemp("withheld"), "Compare the alpha and beta indexes", scenario)


def completed(run: Run) -> None:
    assert run.proc.returncode == 0, run.proc.stdout + run.proc.stderr
    assert run.doc.front.status is RunStatus.COMPLETED


# --- the outline --------------------------------------------------------------------------------


def test_outline_sections_reach_task_md_executor_prompts_and_report_headings(analytical: Run) -> None:
    completed(analytical)
    sections = ["The alpha index", "The beta index"]
    assert [s.section for s in analytical.doc.outline] == sections
    outline_table = (analytical.work / "task.md").read_text().split("## Outline", 1)[1].split("\n## ", 1)[0]
    assert all(f"| {s} |" in outline_table for s in sections)
    assert "Report sections this task serves: The alpha index\n" in analytical.log("prompts/E1.md")
    assert "Report sections this task serves: The beta index\n" in analytical.log("prompts/E2.md")
    headings = re.findall(r"^## (.+)$", (analytical.work / "report.md").read_text(), re.MULTILINE)
    assert headings == ["Executive summary", *sections, "Limitations", "References"]


# --- the critical analysis ------------------------------------------------------------------------


def test_analysis_runs_for_an_analytical_question_and_its_violations_are_repaired(analytical: Run) -> None:
    completed(analytical)
    assert analytical.phases() == [
        "plan",
        "supervise",
        "execute",
        "support",  # the verifier judges the round's facts
        "reflect",
        "analyse",
        "charts",
        "synthesize",
        "support",  # ... and the draft's cited sentences
        "verify",
    ]
    finished = [e for e in analytical.events("phase_finished") if e["phase"] == "analyse"]
    assert [e["detail"] for e in finished] == ["all checks passed"]
    repairs = [e for e in analytical.events("output_repair") if e["role"] == "analyst"]
    assert len(repairs) == 1
    assert repairs[0]["problems"][0].startswith(
        "logs/calls/analyst/analyst_result.md:5: unknown_source: [S99] is not a"
    )
    assert repairs[0]["problems"][0] in analytical.log("prompts/analyst.verify-repair.md")
    analysis = analytical.log("analyst_result.md")
    assert "[S99]" not in analysis and "## Counter-evidence" in analysis
    assert "`logs/calls/analyst/analyst_result.md`: the analyst's critical analysis" in analytical.log(
        "prompts/synthesizer.md"
    )
    assert "analytical question" in analytical.log("prompts/analyst.md")


def test_analysis_is_skipped_for_a_simple_question(simple: Run) -> None:
    completed(simple)
    assert "analysis skipped: simple question" in simple.notices()
    assert "analyse" not in simple.phases()
    assert not (simple.work / "logs" / "prompts" / "analyst.md").exists()
    assert "analyst_result" not in simple.log("prompts/synthesizer.md")


def test_an_analysis_that_keeps_citing_unknown_sources_is_withheld(withheld: Run) -> None:
    completed(withheld)
    finished = [e for e in withheld.events("phase_finished") if e["phase"] == "analyse"]
    assert [e["detail"] for e in finished] == ["withheld"]
    assert any(n.startswith("analysis: 3 problems remain after its repair") for n in withheld.notices())
    assert any(n.startswith("analysis withheld from the synthesizer") for n in withheld.notices())
    assert (withheld.work / "logs" / "calls" / "analyst" / "analyst_result.withheld.md").is_file()
    assert not (withheld.work / "logs" / "calls" / "analyst" / "analyst_result.md").exists()
    assert "analyst_result" not in withheld.log("prompts/synthesizer.md")


# --- figures ----------------------------------------------------------------------------------------


def test_an_ungrounded_chart_is_repaired_and_two_grounded_figures_reach_the_report(analytical: Run) -> None:
    completed(analytical)
    repairs = [e for e in analytical.events("output_repair") if e["role"] == "charts"]
    assert len(repairs) == 1 and len(repairs[0]["problems"]) == 1
    assert re.match(r'figure 1, point "E\d": \d{4} not found in Fact-00\d', repairs[0]["problems"][0])
    assert repairs[0]["problems"][0] in analytical.log("prompts/charts.repair.md")

    doc = analytical.doc
    figures = load_figures(analytical.work)
    assert [(f.number, f.type) for f in figures] == [(1, "bar"), (2, "table")]
    for figure in figures:
        assert (analytical.work / figure.png).stat().st_size > 5_000
        assert (analytical.work / figure.svg).read_text().lstrip().startswith("<?xml")
        assert sorted(figure.sources) == sorted(s.id for s in doc.sources)
    # Every number drawn is the number the fact's source page states.
    spec = yaml.safe_load(analytical.log("charts_result.md").split("```yaml", 1)[1].split("```", 1)[0])
    for point in spec["figures"][0]["points"]:
        fact = doc.fact(point["fact"])
        assert fact is not None and fact.task == point["label"]
        assert point["value"] == page_value(fact.task) and str(point["value"]) in fact.quote

    report = (analytical.work / "report.md").read_text()
    assert check_figures(report, figures, analytical.work) == []
    cites = "".join(f"[{s}]" for s in figures[0].sources)
    expected = (
        "Figure 1 charts these values [S01].\n\n"
        "![Figure 1: Index values in 2025 (bar)](assets/images/figure-1.png)\n\n"
        f"*Figure 1: Index values in 2025 (bar).* Each index as its bulletin reported it. {cites}\n"
    )
    assert expected in report
    assert report.index("Figure 2 charts") < report.index("figure-2.png") < report.index("## The beta index")
    finished = [e["detail"] for e in analytical.events("phase_finished") if e["phase"] == "charts"]
    assert finished == ["2 figures"]


def test_two_chart_failures_in_a_row_skip_the_rest_and_the_run_completes(simple: Run) -> None:
    completed(simple)
    repairs = [e for e in simple.events("output_repair") if e["role"] == "charts"]
    assert [p.split(",")[0] for p in repairs[0]["problems"]] == ["figure 1", "figure 2"]
    skipped = "charts: 2 charts failed in a row (figure 1, figure 2): remaining charts skipped"
    assert skipped in simple.notices()
    assert load_figures(simple.work) == []
    assert "No figures were drawn for this report" in simple.log("prompts/synthesizer.md")
    assert "![" not in (simple.work / "report.md").read_text()
    assert "verified: every check passed" in simple.proc.stdout


def test_no_chart_helps_gives_no_figures_and_nothing_breaks(withheld: Run) -> None:
    completed(withheld)
    assert (withheld.work / "assets" / "images" / "figures.json").read_text().strip() == "[]"
    assert [e["detail"] for e in withheld.events("phase_finished") if e["phase"] == "charts"] == ["0 figures"]
    assert "verified: every check passed" in withheld.proc.stdout


def test_check_command_verifies_figure_references_and_captions(analytical: Run, tmp_path: Path) -> None:
    completed(analytical)
    work = tmp_path / "copy"
    shutil.copytree(analytical.work, work)
    env = stage_env(tmp_path)
    clean = cli(["check", str(work), "--json"], env, tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    listed = json.loads(clean.stdout)["figures"]
    assert [(f["number"], f["png"], len(f["sources"])) for f in listed] == [
        (1, "assets/images/figure-1.png", 2),
        (2, "assets/images/figure-2.png", 2),
    ]

    lines = (work / "report.md").read_text().splitlines()
    caption = next(i for i, line in enumerate(lines) if line.startswith("*Figure 1:"))
    cited = re.findall(r"\[S\d+\]", lines[caption])
    lines[caption] = lines[caption].replace(cited[-1], "")
    summary = lines.index("## Executive summary") + 2
    lines.insert(summary, "Figure 3 shows the trend [S01].")
    lines.insert(summary + 1, "")
    (work / "report.md").write_text("\n".join(lines) + "\n")
    result = cli(["check", str(work)], env, tmp_path)
    assert result.returncode == 8, result.stdout + result.stderr
    # The lines named are those of report.md as rewritten: two lower, below the notice after its title.
    assert (
        f"report.md:{summary + 3}: figure: Figure 3 is referred to in the report but there is no Figure 3 "
        in (result.stdout)
    )
    missing = cited[-1].strip("[]")
    assert f"report.md:{caption + 5}: figure: Figure 1's caption does not cite {missing}" in result.stdout
    rewritten = (work / "report.md").read_text().splitlines()
    assert rewritten[summary + 2] == "Figure 3 shows the trend [S01]."
    assert rewritten[caption + 4].startswith("*Figure 1:")


# --- report.html in Chromium ------------------------------------------------------------------------


@pytest.mark.browser
def test_report_html_shows_both_figures_in_chromium(analytical: Run) -> None:
    from playwright.sync_api import Error, sync_playwright

    from deepresearch.sources.browser import BROWSER_ARGS
    from deepresearch.sources.chromiums import SYSTEM_CHROMIUMS

    completed(analytical)
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=SYSTEM_CHROMIUMS[0], args=BROWSER_ARGS)
        except Error as exc:
            skip_without_browser(f"no Chromium launches here: {str(exc).splitlines()[0]}")
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto((analytical.work / "report.html").as_uri(), wait_until="load")
        shown = page.eval_on_selector_all(
            "img.figure",
            "els => els.map(i => [i.src.slice(0, 26), i.naturalWidth, i.getBoundingClientRect().width])",
        )
        captions = page.eval_on_selector_all("p:has(> img.figure) + p", "els => els.map(p => p.innerText)")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "report-figures.png"), full_page=True)
        browser.close()
    assert [src for src, _, _ in shown] == ["data:image/svg+xml;base64,"] * 2
    assert all(natural > 500 and width > 400 for _, natural, width in shown), shown
    assert [c.split(".")[0] for c in captions] == [
        "Figure 1: Index values in 2025 (bar)",
        "Figure 2: Index values in 2025 (table)",
    ]
    assert (ARTIFACTS / "report-figures.png").stat().st_size > 50_000
