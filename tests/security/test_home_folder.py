"""The home folder stays hidden from agents whatever the workspace and the person's PATH: a run in
the home folder (or in a folder that contains it) is refused before anything is created there, and
neither a `.` on PATH nor a custom agent's script sitting in the home brings the home back into the
sandbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from deepresearch.agents.runner import AgentCall, AgentRunner
from deepresearch.core.config import Config
from deepresearch.core.roles import Role
from deepresearch.core.workspace import Workspace
from tests.helpers import skip_without_sandbox

KEY = "-----BEGIN FAKE PRIVATE KEY----- planted in the home"
# A custom agent that tries to print the planted key.
LEAK = ["sh", "-c", 'cat "$HOME/.ssh/id_rsa"; echo; ls -a "$HOME"']


def plant(home: Path) -> None:
    (home / ".ssh").mkdir(parents=True, exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text(KEY + "\n")


def run_in(
    work: Path, home: Path, tmp_path: Path, clean_env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """`deepresearch -p Q -o WORK` with HOME at `home` and the leaking agent, in bubblewrap."""
    xdg = Path(clean_env["XDG_CONFIG_HOME"]) / "deepresearch"
    xdg.mkdir(parents=True, exist_ok=True)
    config = {"agent": "custom", "custom_command": LEAK, "sandbox": "bwrap", "retries": 0}
    (xdg / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    env = {**clean_env, "HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "deepresearch", "-p", "What is in the home folder?", "-o", str(work)],
        env=env, cwd=work, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def leaked(folder: Path) -> list[Path]:
    """Files under `folder` (but .ssh) that hold the planted key."""
    found = []
    for path in folder.rglob("*"):
        if path.is_file() and ".ssh" not in path.parts and KEY in path.read_text(errors="replace"):
            found.append(path)
    return found


@pytest.mark.parametrize("where", ["home", "parent of home"])
def test_a_run_in_the_home_folder_or_above_it_is_refused_before_anything_is_written(
    tmp_path: Path, clean_env: dict[str, str], where: str
) -> None:
    skip_without_sandbox()
    work = tmp_path / "people"
    home = work / "me" if where == "parent of home" else work
    plant(home)
    before = sorted(p.relative_to(work) for p in work.rglob("*"))
    proc = run_in(work, home, tmp_path, clean_env)
    assert leaked(work) == [] and KEY not in proc.stdout + proc.stderr
    assert proc.returncode == 3, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "home folder" in proc.stderr and "-o research/" in proc.stderr
    assert sorted(p.relative_to(work) for p in work.rglob("*")) == before  # no task.md, logs/, assets/


def runner_in(tmp_path: Path, command: list[str], environ: dict[str, str]) -> AgentRunner:
    workspace = Workspace(tmp_path / "ws")
    workspace.ensure()
    config = Config(agent="custom", custom_command=command, retries=0, sandbox="bwrap")
    return AgentRunner(workspace, config, lambda event: None, environ)


def call(runner: AgentRunner) -> str:
    output = runner.workspace.result_file("E1")
    result = runner.call(AgentCall(Role.EXECUTOR, "E1", "E1", "Role: executor\n", output))
    assert result.ok, result.message
    return result.text


def test_a_dot_on_path_in_the_home_folder_does_not_bring_the_home_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skip_without_sandbox()
    home = tmp_path / "home"
    plant(home)
    monkeypatch.chdir(home)  # where the person started deepresearch, with `.` on PATH
    runner = runner_in(tmp_path, LEAK, {"PATH": ".:/usr/bin:/bin", "HOME": str(home)})
    said = call(runner)
    assert KEY not in said and ".ssh" not in said, said


def test_a_custom_agents_script_in_the_home_folder_runs_without_showing_the_rest_of_it(
    tmp_path: Path,
) -> None:
    skip_without_sandbox()
    home = tmp_path / "home"
    plant(home)
    script = home / "my-agent.sh"
    script.write_text('cat "$HOME/.ssh/id_rsa"; echo "agent ran"; ls -a "$HOME"\n')
    runner = runner_in(tmp_path, ["sh", str(script)], {"PATH": "/usr/bin:/bin", "HOME": str(home)})
    said = call(runner)
    assert "agent ran" in said and KEY not in said and ".ssh" not in said, said
