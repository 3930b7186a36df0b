"""Commands that fail leave nothing behind, with the right exit code and a message that helps: a run
whose agent CLI or configuration is wrong, `search` and `archive` run by hand outside a workspace,
and `status` and `check` on a folder a failed run left agree on what it holds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from deepresearch.core.errors import ExitCode
from deepresearch.core.workspace import Workspace
from deepresearch.sources.registry import SourceRegistry
from tests.helpers import PageServer, write_scenario, write_workspace_config
from tests.search.search_mock_server import closed_port


def cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deepresearch", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_chosen_agent_cli_that_is_missing_stops_the_run_before_anything_is_created(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    (tmp_path / "input.md").write_text("---\nagent: claude\n---\nWhat is alpha?\n")
    env = {**clean_env, "PATH": str(tmp_path / "empty-bin")}
    proc = cli(["-f", "input.md", "-o", "ws"], env, tmp_path)
    assert proc.returncode == ExitCode.NO_AGENT, proc.stderr
    assert "claude is not installed: npm install -g @anthropic-ai/claude-code" in proc.stderr
    assert "starting research" not in proc.stdout + proc.stderr
    assert names(tmp_path) == ["input.md"]  # no ws/, no task.md, logs/ or .deepresearch/ here either


def test_no_agent_cli_at_all_names_each_install_once_and_the_demo(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    proc = cli(["-p", "What is alpha?"], {**clean_env, "PATH": str(tmp_path / "empty-bin")}, tmp_path)
    assert proc.returncode == ExitCode.NO_AGENT
    assert proc.stderr.lower().count("install one") == 1, proc.stderr
    assert "deepresearch demo" in proc.stderr
    assert names(tmp_path) == []  # -o defaults to the current folder: it stays empty


def test_a_misspelt_setting_suggests_the_nearest_and_creates_nothing(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    (tmp_path / "input.md").write_text("---\nagent: custom\nmax_round: 3\n---\nWhat is alpha?\n")
    proc = cli(["-f", "input.md", "-o", "ws"], clean_env, tmp_path)
    assert proc.returncode == ExitCode.CONFIG, proc.stderr
    assert "input.md:3: max_round: unknown setting\n  → did you mean max_rounds?" in proc.stderr
    assert "known settings" not in proc.stderr  # no list of every setting
    assert names(tmp_path) == ["input.md"]


def test_search_by_hand_without_a_network_exits_with_its_own_code_and_leaves_nothing(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    env = {
        **clean_env,
        "DEEPRESEARCH_SEARCH_PROVIDERS": "duckduckgo",
        "DEEPRESEARCH_DUCKDUCKGO_BASE_URL": f"http://127.0.0.1:{closed_port()}",
    }
    proc = cli(["search", "heat pumps"], env, tmp_path)
    assert proc.returncode == ExitCode.NETWORK == 13, proc.stderr
    assert "no search provider could be reached for 'heat pumps': the network seems to be down" in proc.stderr
    assert "check this machine's internet connection" in proc.stderr
    assert "API_KEY" not in proc.stderr  # the network failed: keys would not help
    assert names(tmp_path) == []


def test_archive_by_hand_that_fails_leaves_nothing(tmp_path: Path, clean_env: dict[str, str]) -> None:
    write_workspace_config(tmp_path)  # the plain-HTTP route: quick
    proc = cli(["archive", f"http://127.0.0.1:{closed_port()}/page.html"], clean_env, tmp_path)
    assert proc.returncode == ExitCode.ARCHIVE, proc.stderr
    assert f"nothing was kept in {tmp_path}" in proc.stderr
    assert names(tmp_path) == ["deepresearch.yaml"]


def test_archive_by_hand_that_succeeds_keeps_its_archive(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    write_workspace_config(tmp_path)
    proc = cli(["archive", f"{pages.base_url}/alpha.html"], clean_env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert {".deepresearch", "assets", "logs"} <= set(names(tmp_path))
    assert list((tmp_path / "assets" / "web").glob("S01-*.md"))
    assert [r.id for r in SourceRegistry(Workspace(tmp_path)).archived()] == ["S01"]


def test_status_and_check_agree_on_a_folder_a_failed_run_left(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    scenario = write_scenario(tmp_path / "s.yaml", {"planner": {"crash": True}})
    run = cli(
        ["-p", "What is alpha?", "-o", "ws"], {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}, tmp_path
    )
    assert run.returncode == ExitCode.AGENT, run.stderr  # the planner crashed: no plan, no task.md
    assert (work / "logs" / "events.jsonl").is_file() and not (work / "task.md").exists()
    said = "a run started here but stopped before its plan was saved (no task.md); nothing was researched"
    for command in ("status", "check"):
        proc = cli([command, str(work)], clean_env, tmp_path)
        assert proc.returncode == ExitCode.USAGE, (command, proc.stdout, proc.stderr)
        assert f"no run saved in {work}: {said}" in proc.stderr, command
        assert "run the same deepresearch command again to start it over" in proc.stderr, command
    offline = {**clean_env, "DEEPRESEARCH_DUCKDUCKGO_BASE_URL": f"http://127.0.0.1:{closed_port()}"}
    doctor = cli(["doctor", "-o", str(work)], offline, tmp_path)
    assert f"Workspace {work}\n  no run saved in {work}: {said}" in doctor.stdout  # doctor says it too
