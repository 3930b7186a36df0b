"""`deepresearch check` as a real subprocess on a workspace with task.md, archives and report.md."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from deepresearch.core.errors import ExitCode
from deepresearch.state.writer import render_task_md
from tests.helpers import skip_without_browser
from tests.report.conftest import CLEAN_EN, Run

FAILING = CLEAN_EN + "\nSales will triple by 2030. Everyone agrees. See https://example.com/x [S99].\n"


def deepresearch(env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deepresearch", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture
def workdir(run: Run) -> Path:
    (run.root / "task.md").write_text(render_task_md(run.doc), encoding="utf-8")
    return run.root


def test_failing_report_lists_each_violation_and_keeps_the_report(workdir: Path, clean_env: dict) -> None:
    (workdir / "report.md").write_text(FAILING, encoding="utf-8")
    result = deepresearch(clean_env, "check", workdir)
    assert result.returncode == ExitCode.CHECK_FAILED, result.stderr
    line = len(CLEAN_EN.splitlines()) + 2 + 2  # below the notice code puts after the title
    assert [row.split(": ", 2)[:2] for row in result.stdout.splitlines()] == [
        [f"report.md:{line}", "bare_url"],
        [f"report.md:{line}", "density"],
        [f"report.md:{line}", "unknown_source"],
    ]
    assert "report.md failed verification: 3 problems" in result.stderr
    final = (workdir / "report.md").read_text(encoding="utf-8")
    title, rest = FAILING.split("\n", 1)
    assert final.startswith(
        f"{title}\n\n> **deepresearch: this report did not pass verification.** 3 problems"
    )
    assert f"{rest.rstrip()}\n\n## References\n" in final
    assert f"- Line {line} · unknown_source · \\[S99\\] is not a registered source" in final
    assert final.splitlines()[line - 1] == FAILING.splitlines()[line - 3]  # the lines named are right
    assert "Sales will triple" in (workdir / "report.html").read_text(encoding="utf-8")
    assert json.loads((workdir / "knowledge.json").read_text(encoding="utf-8"))["schema_version"] == 1
    again = deepresearch(clean_env, "check", workdir)
    assert (again.returncode, again.stdout) == (result.returncode, result.stdout)
    assert (workdir / "report.md").read_text(encoding="utf-8") == final


def test_clean_report_passes_and_a_fixed_report_loses_its_verification(
    workdir: Path, clean_env: dict
) -> None:
    (workdir / "report.md").write_text(FAILING, encoding="utf-8")
    assert deepresearch(clean_env, "check", workdir).returncode == ExitCode.CHECK_FAILED
    (workdir / "report.md").write_text(CLEAN_EN, encoding="utf-8")
    result = deepresearch(clean_env, "check", workdir)
    assert (result.returncode, result.stdout) == (0, ""), result.stderr
    final = (workdir / "report.md").read_text(encoding="utf-8")
    assert "## References" in final and "## Verification" not in final


def test_json_output(workdir: Path, clean_env: dict) -> None:
    (workdir / "report.md").write_text(FAILING, encoding="utf-8")
    result = deepresearch(clean_env, "check", workdir, "--json")
    data = json.loads(result.stdout)
    assert result.returncode == ExitCode.CHECK_FAILED
    assert data["passed"] is False
    assert [v["kind"] for v in data["violations"]] == ["bare_url", "density", "unknown_source"]
    assert data["html"] == str(workdir / "report.html") and data["pdf"] is None


def test_current_folder_is_the_default(workdir: Path, clean_env: dict) -> None:
    (workdir / "report.md").write_text(CLEAN_EN, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "deepresearch", "check"],
        cwd=workdir,
        env=clean_env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_missing_files_are_usage_errors(run: Run, clean_env: dict) -> None:
    result = deepresearch(clean_env, "check", run.root)
    assert result.returncode == ExitCode.USAGE
    assert "no run in" in result.stderr and "(no task.md)" in result.stderr
    (run.root / "task.md").write_text(render_task_md(run.doc), encoding="utf-8")
    result = deepresearch(clean_env, "check", run.root)
    assert result.returncode == ExitCode.USAGE
    assert "no report.md in" in result.stderr and "resume the run" in result.stderr
    result = deepresearch(clean_env, "check", run.root / "nowhere")
    assert result.returncode == ExitCode.USAGE and "run folder not found" in result.stderr


def test_broken_task_md_is_a_state_error(workdir: Path, clean_env: dict) -> None:
    (workdir / "report.md").write_text(CLEAN_EN, encoding="utf-8")
    task = workdir / "task.md"
    task.write_text(
        task.read_text(encoding="utf-8").replace("| S01 |", "| S01 | extra |", 1), encoding="utf-8"
    )
    result = deepresearch(clean_env, "check", workdir)
    assert result.returncode == ExitCode.STATE, result.stderr
    assert "task.md:" in result.stderr
    assert (workdir / "report.md").read_text(encoding="utf-8") == CLEAN_EN  # nothing rewritten


@pytest.mark.browser
def test_pdf_flag(workdir: Path, clean_env: dict) -> None:
    (workdir / "report.md").write_text(CLEAN_EN, encoding="utf-8")
    result = deepresearch(clean_env, "check", workdir, "--pdf")
    if result.returncode == ExitCode.USAGE and "no Chromium could be launched" in result.stderr:
        skip_without_browser(result.stderr.strip())
    assert result.returncode == 0, result.stderr
    assert (workdir / "report.pdf").read_bytes().startswith(b"%PDF")


def test_explain_names_each_number_at_its_line_in_a_failing_report(workdir: Path, clean_env: dict) -> None:
    wrong = CLEAN_EN.replace("17 million were sold in 2024", "19 million were sold in 2024")
    assert wrong != CLEAN_EN
    (workdir / "report.md").write_text(wrong, encoding="utf-8")
    result = deepresearch(clean_env, "check", "--explain", workdir)
    assert result.returncode == ExitCode.CHECK_FAILED, result.stderr
    final = (workdir / "report.md").read_text(encoding="utf-8").splitlines()
    explained = [row for row in result.stdout.splitlines() if " 19 million " in row and "NOT grounded" in row]
    assert explained, result.stdout
    line = int(explained[0].split(":")[1])
    assert "19 million were sold" in final[line - 1]  # the line the failing report has, banner and all
    assert f"report.md:{line}: ungrounded_number" in result.stdout
