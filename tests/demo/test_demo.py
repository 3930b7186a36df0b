"""`deepresearch demo`: a complete run with no agent CLI on PATH and no network — the scripted agent
and the bundled site on 127.0.0.1 — ending with a report that `deepresearch check` passes.

One demo run is shared by the module (it takes about 20 s here; `python bench/demo.py` measures it).
Where bubblewrap works the run has no network at all (its own network namespace: only loopback).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from deepresearch.core.errors import ExitCode
from deepresearch.core.sandbox import probe
from deepresearch.core.workspace import Workspace
from deepresearch.demo import site
from deepresearch.demo.agent import cite
from deepresearch.demo.settings import CONFIG_NOTE, question
from deepresearch.search.providers.duckduckgo import parse_results
from deepresearch.state.model import RunStatus
from deepresearch.state.store import StateStore
from tests.helpers import REPO

AGENT_CLIS = ("copilot", "claude", "gemini", "codex")


def offline_env(home: Path) -> dict[str, str]:
    """No user config, no DEEPRESEARCH_* settings, and a PATH that holds no agent CLI."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "FAKE_AGENT"))}
    env["XDG_CONFIG_HOME"] = str(home / "xdg")
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PATH"] = "/usr/bin:/bin"
    assert not any(shutil.which(cli, path=env["PATH"]) for cli in AGENT_CLIS)
    return env


@dataclass
class DemoRun:
    cwd: Path
    proc: subprocess.CompletedProcess[str]
    seconds: float
    without_network: bool

    @property
    def folder(self) -> Path:
        return self.cwd / "deepresearch-demo"  # the default -o


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    cwd = tmp_path_factory.mktemp("fresh")
    argv = [sys.executable, "-m", "deepresearch", "demo"]
    isolated = probe().works
    if isolated:  # a network namespace of its own: loopback only, no route anywhere else
        argv = ["bwrap", "--dev-bind", "/", "/", "--unshare-net", "--", *argv]
    start = time.monotonic()
    proc = subprocess.run(
        argv, cwd=cwd, env=offline_env(tmp_path_factory.mktemp("home")), capture_output=True, text=True,
        timeout=280, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return DemoRun(cwd, proc, time.monotonic() - start, isolated)


def test_the_demo_ends_with_a_report_that_passes_check(demo: DemoRun) -> None:
    out = demo.proc.stdout + demo.proc.stderr
    assert demo.proc.returncode == 0, out
    assert "verified: every check passed" in out, f"({demo.seconds:.0f} s) {out}"
    work = Workspace(demo.folder)
    for path in (work.report_md, work.report_html, work.task_md, work.knowledge_json):
        assert path.is_file(), path
    assert len(list(work.asset_dir("web").glob("S*-127-0-0-1.md"))) == 7
    assert len(list(work.asset_dir("images").glob("figure-*.png"))) == 2
    check = subprocess.run(
        [sys.executable, "-m", "deepresearch", "check", str(demo.folder)],
        cwd=demo.cwd, env=offline_env(demo.cwd), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    measures = json.loads(work.knowledge_json.read_text())["measures"]
    assert measures["facts_verified"] == measures["facts_total"] == 14
    assert measures["claims_supported"] == measures["claims_checked"] > 0


def test_the_demo_analysis_passes_the_number_check_at_once(demo: DemoRun) -> None:
    # its sentence `the larger figure also counts 38,100 rides by staff` was once a false alarm
    assert not (demo.folder / "logs" / "prompts" / "analyst.verify-repair.md").exists()


def test_it_says_it_is_a_demonstration(demo: DemoRun) -> None:
    assert "a real run with a scripted agent in place of a model" in demo.proc.stdout
    assert "Norbridge is a fictional city and every figure is invented" in demo.proc.stdout
    assert "This was a demonstration with a scripted agent." in demo.proc.stdout
    assert str(demo.folder / "report.html") in demo.proc.stdout
    first = Workspace(demo.folder).report_md.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# Demonstration report (scripted agent, fictional city)")
    assert (demo.folder / "deepresearch.yaml").read_text(encoding="utf-8").startswith(CONFIG_NOTE)


def test_it_is_an_ordinary_run_on_the_demo_site_only(demo: DemoRun) -> None:
    doc = StateStore(Workspace(demo.folder)).load()
    assert doc.front.status is RunStatus.COMPLETED and doc.front.question == question()
    assert doc.front.round == 2 and [q.score for q in doc.quality] == [6.5, 8.0]
    assert {t.id for t in doc.tasks} == {"E1", "E2", "E3", "E4", "C1"}  # a gap task and a conflict's task
    assert len(doc.conflicts) == 1 and doc.conflicts[0].severity.value == "high"
    flagged = [s for s in doc.sources if "suspicious" in s.flags]
    assert [urlsplit(s.url).path for s in flagged] == ["/forum-peak-hours.html"]
    hosts = {urlsplit(s.url).hostname for s in doc.sources}
    searched = [json.loads(line) for line in Workspace(demo.folder).search_log.read_text().splitlines()]
    hosts |= {urlsplit(line["url"]).hostname for line in searched if line.get("url")}
    assert hosts == {"127.0.0.1"}, hosts
    assert len({line["query"] for line in searched}) == 15  # three per task, each through the service
    if not demo.without_network:
        pytest.skip("bubblewrap cannot make a network namespace here: the run had the machine's network")


def test_a_finished_demo_says_where_its_report_is(demo: DemoRun) -> None:
    before = Workspace(demo.folder).task_md.read_text(encoding="utf-8")
    again = subprocess.run(
        [sys.executable, "-m", "deepresearch", "demo"],
        cwd=demo.cwd, env=offline_env(demo.cwd), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert again.returncode == ExitCode.USAGE, again.stderr
    assert (
        f"the demo in {demo.folder} is finished: its report is {demo.folder / 'report.html'}" in again.stderr
    )
    assert "deepresearch demo --new" in again.stderr and again.stdout == ""
    assert Workspace(demo.folder).task_md.read_text(encoding="utf-8") == before


def test_the_demo_will_not_write_over_a_run_or_a_config_of_ones_own(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    own = tmp_path / "mine"
    own.mkdir()
    (own / "deepresearch.yaml").write_text("agent: claude\n")
    proc = subprocess.run(
        [sys.executable, "-m", "deepresearch", "demo", "-o", str(own)],
        cwd=tmp_path, env=clean_env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == ExitCode.USAGE, proc.stderr
    assert "has a deepresearch.yaml of its own" in proc.stderr
    assert sorted(p.name for p in own.iterdir()) == ["deepresearch.yaml"]
    assert (own / "deepresearch.yaml").read_text() == "agent: claude\n"


def test_the_committed_example_still_passes_the_checks() -> None:
    """docs/example (a demo's output, linked from the README) stays a report that verifies."""
    from deepresearch.report.finalize import verify_report

    example = REPO / "docs" / "example"
    doc = StateStore(Workspace(example)).load()
    outcome = verify_report((example / "report.md").read_text(encoding="utf-8"), doc, example)
    assert outcome.violations == [], outcome.violations
    assert doc.front.question == question()


def test_the_site_search_answers_like_duckduckgo() -> None:
    base = "http://127.0.0.1:8000"
    results = parse_results(site.results_page(base, "NorBike riders trips 2022"), 10)
    assert results and all(r.url.startswith(f"{base}/") and r.url.endswith(".html") for r in results)
    assert results[0].url == f"{base}/annual-report-2024.html"
    assert "760,000 trips" in results[0].snippet
    assert results[0].title == "NorBike annual report 2024 — Norbridge City Transport Office"  # UTF-8 kept
    assert parse_results(site.results_page(base, "zeppelin"), 10) == []


def test_adjacent_facts_cite_each_source_once() -> None:
    facts = {"a": ("Fact-001", ["S01"]), "b": ("Fact-002", ["S01", "S03"])}
    assert cite("One {a}. Both {a}{b}. Missing {zz}.", facts) == "One [S01]. Both [S01][S03]. Missing ."


@pytest.mark.parametrize("known", [True, False])
def test_a_task_called_again_searches_anew_only_when_task_md_lacks_its_facts(
    tmp_path: Path, known: bool
) -> None:
    """After an interruption a task gets another call: if task.md holds its facts (an earlier call
    merged them) the scripted executor finds nothing new; if not, it searches its first queries again."""
    import yaml

    from deepresearch.demo.agent import Executor, script

    text = (REPO / "docs" / "example" / "task.md").read_text(encoding="utf-8")
    if not known:  # the interrupted call merged nothing: E1's facts are not in task.md
        kept = [line for line in text.splitlines() if not (line.startswith("| Fact-") and "| E1 |" in line)]
        assert len(kept) < len(text.splitlines())
        text = "\n".join(kept) + "\n"
    (tmp_path / "task.md").write_text(text, encoding="utf-8")
    (tmp_path / "logs").mkdir()
    prompt = (
        "Role: executor\nTask: E1\nOutput file: logs/E1_result.md\nCall: 2 of at most 2 for this task\n"
        "Batches: from 1 to 3\nStop rule: saturated after 1 batch in a row with nothing new, at least 1 batch\n"
        '- Search: `true --batch N -k 5 "short query"`\n- Archive: `true --batch N URL`\n'
    )  # the tool commands are `true`: every search is made, nothing is archived
    Executor("E1", prompt, tmp_path, tmp_path / "logs" / "E1_result.md", "http://127.0.0.1:9").run()
    written = yaml.safe_load((tmp_path / "logs" / "E1_result.md").read_text().split("---")[1])
    first = written["batches"][0]
    spec = script()["tasks"]["E1"]
    assert first["queries"] == (spec["again"] if known else spec["queries"])
