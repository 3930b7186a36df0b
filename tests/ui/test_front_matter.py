"""input.md front matter: every setting documented and effective; errors name the key and the line."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deepresearch.cli.request import front_matter_line, read_request, run_config
from deepresearch.core.config import Config, RoleConfig
from deepresearch.core.errors import ConfigError
from deepresearch.core.workspace import Workspace
from deepresearch.state.store import StateStore
from tests.helpers import REPO, PageServer, write_scenario, write_workspace_config

EXAMPLE = REPO / "input.md.example"
REFERENCE_DOC = REPO / "docs" / "input-reference.md"


def no_user_config(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), **extra}


@pytest.fixture
def reference(tmp_path: Path) -> Path:
    """The full input.md of docs/input-reference.md (its one ```markdown block), as a file."""
    block = REFERENCE_DOC.read_text(encoding="utf-8").split("```markdown\n", 1)[1].split("\n```", 1)[0]
    path = tmp_path / "input.md"
    path.write_text(block + "\n", encoding="utf-8")
    return path


def front_matter_of(path: Path) -> dict[str, object]:
    request = read_request(None, path)
    assert request is not None
    return request.front_matter


def test_the_input_reference_documents_every_setting_with_a_comment(reference: Path) -> None:
    documented = front_matter_of(reference)
    assert set(documented) == {f.name for f in dataclasses.fields(Config)}
    lines = reference.read_text(encoding="utf-8").splitlines()
    for key in documented:
        line = front_matter_line(reference.read_text(encoding="utf-8"), key)
        assert line is not None and lines[line - 1].startswith(f"{key}:"), key
        assert "#" in lines[line - 1], f"{key} has no comment on its line"


def test_each_key_of_the_input_reference_takes_effect(tmp_path: Path, reference: Path) -> None:
    request = read_request(None, reference)
    assert request is not None and request.text.startswith("How did heat-pump sales")
    config = run_config(tmp_path, no_user_config(tmp_path), request, {})
    defaults = Config()
    for key, value in front_matter_of(reference).items():
        if key == "roles":
            continue
        assert getattr(config, key) == value, key
        assert getattr(config, key) != getattr(defaults, key), f"{key}: the example should change the default"
    assert config.roles == {
        "executor": RoleConfig(agent="gemini", model="gemini-2.5-flash"),
        "reflector": RoleConfig(model="haiku", timeout=600.0),
    }
    assert config.role("executor").agent == "gemini" and config.role("planner").model == "sonnet"
    assert config.role("reflector").timeout == 600.0 and config.role("planner").timeout == 1200.0


def test_input_md_example_runs_as_copied(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    """The starter file, copied as it is, runs a research to a verified report (a fake agent CLI
    configured in the workspace, as a person's logged-in CLI would be found)."""
    shutil.copy(EXAMPLE, tmp_path / "input.md")
    work = tmp_path / "research"
    work.mkdir()
    write_workspace_config(work, analysis="never", max_figures=0)
    scenario = write_scenario(tmp_path / "s.yaml", {"page_base": pages.base_url})
    proc = subprocess.run(
        [sys.executable, "-m", "deepresearch", "-f", "input.md", "-o", "research"],
        cwd=tmp_path, env={**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}, capture_output=True, text=True,
        timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verified: every check passed" in proc.stdout
    doc = StateStore(Workspace(work)).load()
    assert doc.front.question.startswith("How did heat-pump sales in the European Union")
    assert doc.front.settings["max_rounds"] == 3 and doc.front.settings["time_scope"] == "2022-2025"
    assert len(front_matter_of(EXAMPLE)) <= 6, (
        "the starter stays short: every key is in docs/input-reference.md"
    )


def test_front_matter_beats_config_files_and_loses_to_environment_and_flags(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "deepresearch.yaml").write_text("max_rounds: 9\nconcurrency: 7\nbreadth: 2\nmode: fixed\n")
    request_file = tmp_path / "input.md"
    request_file.write_text("---\nmax_rounds: 3\nconcurrency: 5\nbreadth: 6\n---\nWhat is alpha?\n")
    request = read_request(None, request_file)
    env = no_user_config(tmp_path, DEEPRESEARCH_BREADTH="1")
    config = run_config(work, env, request, {"concurrency": 2, "model": None})
    assert config.max_rounds == 3  # front matter over the workspace config file
    assert config.mode == "fixed"  # the config file still applies where the front matter is silent
    assert config.breadth == 1  # environment over front matter
    assert config.concurrency == 2  # flags over everything


@pytest.mark.parametrize(
    ("front", "key", "line", "problem"),
    [
        ("model: sonnet\nmax_round: 3\n", "max_round", 3, "unknown setting"),
        ("max_rounds: many\n", "max_rounds", 2, "expected a whole number, got 'many'"),
        ("agent: claude\n\nmode: sometimes\n", "mode", 4, "must be one of adaptive, fixed"),
        ("quality_threshold: 11\n", "quality_threshold", 2, "must be between 0 and 10"),
        ("concurrency: 0\n", "concurrency", 2, "must be greater than 0"),
        ("roles:\n  executor:\n    agnt: claude\n", "roles.executor.agnt", 4, "unknown key"),
        ("roles:\n  reflector: {agent: chatgpt}\n", "roles.reflector.agent", 3, "must be one of"),
        ("roles:\n  writer: {agent: claude}\n", "roles.writer", 3, "unknown role"),
        ("max_rounds: 2\nmin_rounds: 3\n", "min_rounds", 3, "must not exceed max_rounds"),
        ("search_providers: [bing]\n", "search_providers", 2, "unknown provider bing"),
    ],
)
def test_a_bad_key_or_value_names_the_key_and_its_line(
    tmp_path: Path, front: str, key: str, line: int, problem: str
) -> None:
    path = tmp_path / "input.md"
    path.write_text(f"---\n{front}---\nWhat is alpha?\n")
    with pytest.raises(ConfigError) as info:
        run_config(tmp_path, no_user_config(tmp_path), read_request(None, path), {})
    assert f"{path}:{line}: {key}: {problem}" in str(info.value)


def test_broken_yaml_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "input.md"
    path.write_text("---\nmodel: sonnet\nroles: [executor\n---\nWhat is alpha?\n")
    with pytest.raises(ConfigError, match=r"input\.md:3: \(front matter\): not valid YAML"):
        read_request(None, path)


def test_the_command_reports_a_front_matter_error_with_exit_code_3(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    (tmp_path / "input.md").write_text("---\nmodel: sonnet\ncolour: blue\n---\nWhat is alpha?\n")
    proc = subprocess.run(
        [sys.executable, "-m", "deepresearch", "-f", "input.md", "-o", "ws", "--agent", "custom"],
        cwd=tmp_path, env=clean_env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    assert "input.md:3: colour: unknown setting" in proc.stderr
    assert not (tmp_path / "ws" / "task.md").exists()
