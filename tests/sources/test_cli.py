"""`deepresearch archive` and `deepresearch browser login` as real subprocesses."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from deepresearch.core.errors import ExitCode
from deepresearch.core.workspace import Workspace
from deepresearch.sources.browser import ensure_profile
from deepresearch.sources.registry import SourceRegistry
from tests.helpers import skip_without_browser
from tests.sources.conftest import REPO, cli
from tests.sources.site import TestSite


@pytest.fixture
def http_env(cli_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The CLI environment with no browser to launch: quick, and the fallback is what is shown."""
    return {
        **cli_env,
        "PLAYWRIGHT_BROWSERS_PATH": str(tmp_path / "no-browsers"),
        "DEEPRESEARCH_CHROMIUM_PATH": str(tmp_path / "no-chromium"),
    }


def run(args: list[str], env: dict[str, str], cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_archive_prints_records_and_fails_for_any_failure(
    site: TestSite, workspace: Workspace, http_env: dict[str, str]
) -> None:
    result = run(
        cli("archive", site.url("/article"), site.url("/missing"), "-o", str(workspace.root)), http_env
    )
    assert result.returncode == ExitCode.ARCHIVE
    assert "S01  Solar capacity grows" in result.stdout  # the success is printed all the same
    assert "assets/web/S01-127-0-0-1.md" in result.stdout and "published: 2024-03-05" in result.stdout
    assert f"FAILED {site.url('/missing')}\n  http_4xx: HTTP 404" in result.stdout
    assert "1 of 2 URLs could not be archived (http_4xx)" in result.stderr
    assert "warning: no Chromium could be launched" in result.stderr
    assert not workspace.task_md.exists()


def test_archive_json_from_the_workdir_variable(
    site: TestSite, workspace: Workspace, http_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**http_env, "DEEPRESEARCH_WORKDIR": str(workspace.root)}
    first = run(cli("archive", "--json", site.url("/notes.txt"), site.url("/report.pdf")), env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    records = json.loads(first.stdout)
    assert [r["status"] for r in records] == ["archived", "archived"]
    assert {r["id"] for r in records} == {"S01", "S02"}
    assert records[1]["pdf_path"].startswith("assets/pdf/") and len(records[1]["sha256"]) == 64
    again = run(cli("archive", "--json", site.url("/report.pdf")), env, cwd=tmp_path)
    assert json.loads(again.stdout)[0]["id"] == records[1]["id"]  # archived once, same ID


def test_archive_needs_an_existing_workdir(http_env: dict[str, str], tmp_path: Path) -> None:
    result = run(cli("archive", "https://example.org/", "-o", str(tmp_path / "missing")), http_env)
    assert result.returncode == ExitCode.USAGE and "workspace folder not found" in result.stderr


@pytest.mark.browser
def test_two_archive_processes_at_once_get_one_id(
    site: TestSite, workspace: Workspace, cli_env: dict[str, str]
) -> None:
    args = cli("archive", "--json", site.url("/page/shared"), "-o", str(workspace.root))
    processes = [
        subprocess.Popen(
            args, env=cli_env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=120) for p in processes]
    if any("no Chromium could be launched" in err for _, err in outputs):
        skip_without_browser("no Chromium can be launched here")
    assert [p.returncode for p in processes] == [0, 0], outputs
    ids = {json.loads(out)[0]["id"] for out, _ in outputs}
    assert ids == {"S01"}
    assert [r.id for r in SourceRegistry(workspace).archived()] == ["S01"]


def test_browser_login_without_a_display_says_so(workspace: Workspace, cli_env: dict[str, str]) -> None:
    env = {k: v for k, v in cli_env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    result = run(cli("browser", "login", "https://example.org/login", "-o", str(workspace.root)), env)
    assert result.returncode == ExitCode.USAGE
    assert "no display (DISPLAY is not set)" in result.stderr
    assert not workspace.browser_profile.exists()


def test_profile_folder_is_private(workspace: Workspace) -> None:
    os.umask(umask := os.umask(0))  # read the umask without changing it
    profile = ensure_profile(workspace.browser_profile)
    assert stat.S_IMODE(profile.stat().st_mode) == 0o700
    profile.chmod(0o755)
    assert stat.S_IMODE(ensure_profile(profile).stat().st_mode) == 0o700
    assert umask == os.umask(umask)


def test_an_executors_archive_names_its_task_and_batch_in_the_registry(
    site: TestSite, workspace: Workspace, http_env: dict[str, str]
) -> None:
    env = {**http_env, "DEEPRESEARCH_TASK": "E2"}
    url = site.url("/article")
    first = run(cli("archive", "--batch", "1", url, site.url("/missing"), "-o", str(workspace.root)), env)
    assert first.returncode == ExitCode.ARCHIVE
    again = run(
        cli("archive", "--batch", "3", url, "-o", str(workspace.root)), {**env, "DEEPRESEARCH_TASK": "E5"}
    )
    assert again.returncode == 0, again.stderr
    registry = SourceRegistry(workspace)
    assert sorted((u.source_id, u.task, u.batch, u.ok) for u in registry.uses("E2")) == [
        ("", "E2", 1, False),
        ("S01", "E2", 1, True),
    ]
    assert [(u.source_id, u.url, u.batch) for u in registry.uses("E5")] == [
        ("S01", url, 3)
    ]  # already archived
    record = registry.get("S01")
    assert record is not None and (record.task, record.batch) == ("E2", 1)
    by_hand = run(cli("archive", url, "-o", str(workspace.root)), http_env)
    assert by_hand.returncode == 0 and len(registry.records()) == 2  # a person's archive adds no use line
    assert len(registry.uses("E2")) + len(registry.uses("E5")) == 3 and registry.uses("") == []
