"""What the agent runner gives every call: an environment without the tools' secrets, the run's tool
service and the call's attribution, the tool scripts of its role, and the OS sandbox per the
`sandbox` setting (probed once; `auto` warns once without it, `bwrap` refuses)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from deepresearch.agents.runner import AgentCall, AgentRunner, install_roots
from deepresearch.core.agent_env import NEVER_PASSED, TOOL_SECRETS
from deepresearch.core.commands import script_text, tool_commands
from deepresearch.core.config import Config
from deepresearch.core.errors import ConfigError
from deepresearch.core.events import Event, Notice
from deepresearch.core.roles import Role
from deepresearch.core.sandbox import SandboxStatus
from deepresearch.core.workspace import Workspace
from deepresearch.search.providers import PROVIDER_CLASSES
from tests.helpers import skip_without_sandbox

# A "CLI" that writes its environment and what it could see into its output file.
AGENT = """
import json, os, sys
out = sys.argv[1]
seen = {"env": dict(os.environ), "home": sorted(os.listdir(os.environ["HOME"])) if os.path.isdir(os.environ["HOME"]) else None}
open(out, "w").write(json.dumps(seen))
print("done")
"""


class Sink:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)


class FakeService:
    def address(self) -> str:
        return "/run/the-socket"


def runner_for(tmp_path: Path, environ: dict[str, str], **settings: object) -> tuple[AgentRunner, Sink]:
    workspace = Workspace(tmp_path / "ws")
    workspace.ensure()
    script = workspace.root / "agent.py"  # inside the workspace: the sandbox hides the rest of /tmp
    script.write_text(AGENT)
    config = Config(agent="custom", custom_command=[sys.executable, str(script), "{output_file}"], retries=0)
    for key, value in settings.items():
        setattr(config, key, value)
    sink = Sink()
    return AgentRunner(workspace, config, sink, environ), sink


def call(runner: AgentRunner, role: Role = Role.EXECUTOR, label: str = "E1") -> dict[str, object]:
    output = runner.workspace.result_file(label)
    result = runner.call(
        AgentCall(role, label, label, "Role: executor\n", output, prompt_name=f"{label}.batch2")
    )
    assert result.ok, result.message
    seen: dict[str, object] = json.loads(output.read_text())
    return seen


def test_agents_never_get_the_tools_secrets_or_the_users_agent_sockets(tmp_path: Path) -> None:
    secrets = {name: f"secret-{name}" for name in NEVER_PASSED}
    environ = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MY_MODEL_KEY": "model-key", **secrets}
    # Even named in agent_env, the tools' keys and the agent sockets never pass.
    passed = ["MY_MODEL_KEY", "SERPER_API_KEY", "SSH_*"]
    runner, _ = runner_for(tmp_path, environ, sandbox="off", agent_env=passed)
    runner.tool_service = FakeService()
    env = call(runner)["env"]
    assert isinstance(env, dict)
    assert not set(secrets) & set(env)
    assert env["MY_MODEL_KEY"] == "model-key"  # what the custom CLI needs, named by the person
    assert env["DEEPRESEARCH_SERVICE"] == "/run/the-socket"
    assert (env["DEEPRESEARCH_TASK"], env["DEEPRESEARCH_CALL"]) == ("E1", "E1.batch2")
    assert env["DEEPRESEARCH_WORKDIR"] == str(runner.workspace.root)


class RestartingService:
    """A service that a retry finds restarted: each address() is a new socket."""

    def __init__(self) -> None:
        self.asked = 0

    def address(self) -> str:
        self.asked += 1
        return f"/run/socket-{self.asked}"


FAILS_ONCE = """
import json, os, sys
out, marker = sys.argv[1], sys.argv[1] + ".tried"
if not os.path.exists(marker):
    open(marker, "w").close()
    sys.stderr.write("Error: 429 Too Many Requests (rate limit)\\n")
    sys.exit(1)
open(out, "w").write(json.dumps({"env": dict(os.environ)}))
"""


def test_a_retry_asks_the_service_again_so_a_service_that_died_is_restarted_first(tmp_path: Path) -> None:
    runner, _ = runner_for(
        tmp_path, {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, sandbox="off", retries=1
    )
    (runner.workspace.root / "agent.py").write_text(FAILS_ONCE)
    runner.sleep = lambda _seconds: None  # the backoff (the clock is the one thing mocked)
    service = runner.tool_service = RestartingService()
    env = call(runner)["env"]
    assert isinstance(env, dict)
    assert service.asked == 2 and env["DEEPRESEARCH_SERVICE"] == "/run/socket-2"


def test_every_search_provider_key_is_kept_from_agents() -> None:
    keys = {cls.key_env for cls in PROVIDER_CLASSES.values() if cls.key_env}
    assert keys <= set(TOOL_SECRETS)


def test_researchers_get_their_tool_scripts_self_checking_writers_the_check_and_others_none(
    tmp_path: Path,
) -> None:
    runner, _ = runner_for(tmp_path, {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, sandbox="off")
    commands = tool_commands(runner.workspace)
    assert commands.for_role(Role.EXECUTOR) == commands.all
    assert commands.for_role(Role.SYNTHESIZER) == commands.for_role(Role.ANALYST) == (commands.check,)
    assert all(
        commands.for_role(r) == () for r in (Role.PLANNER, Role.SUPERVISOR, Role.REFLECTOR, Role.CHARTS)
    )
    call(runner, Role.PLANNER, "planner")
    assert not commands.search.exists() and not commands.check.exists()
    call(runner)
    for tool, path in zip(("search", "archive", "check"), commands.all, strict=True):
        assert path.read_text() == script_text(tool) and path.stat().st_mode & 0o111
        # The lean entry (no typer, no other command): `-m deepresearch` would load the whole CLI.
        assert f"{sys.executable} -m deepresearch.cli.tools {tool} " in path.read_text()
    commands.search.write_text("#!/bin/sh\ncat ~/.ssh/id_rsa\n")  # an agent that rewrote it...
    call(runner)
    assert commands.search.read_text() == script_text("search")  # ...is undone before the next call


def test_auto_without_a_working_bubblewrap_warns_once_and_runs_unconfined(tmp_path: Path) -> None:
    runner, sink = runner_for(tmp_path, {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, sandbox="auto")
    probes: list[int] = []

    def missing() -> SandboxStatus:
        probes.append(1)
        return SandboxStatus(None, False, "bwrap not found on PATH")

    runner.probe_sandbox = missing
    call(runner)
    call(runner, label="E2")
    warnings = [e for e in sink.events if isinstance(e, Notice) and e.level == "warning"]
    assert len(probes) == 1 and len(warnings) == 1
    assert (
        "bubblewrap is not installed" in warnings[0].message
        and "apt-get install bubblewrap" in warnings[0].message
    )
    assert "bwrap" not in runner.workspace.log_file("E1").read_text().splitlines()[0]


def test_bwrap_without_bubblewrap_refuses_before_any_agent_starts(tmp_path: Path) -> None:
    runner, _ = runner_for(tmp_path, {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, sandbox="bwrap")
    runner.probe_sandbox = lambda: SandboxStatus(
        "/usr/bin/bwrap", False, "setting up uid map: Permission denied"
    )
    with pytest.raises(ConfigError) as raised:
        runner.sandbox_state()
    assert "uid map" in str(raised.value)


def test_with_bubblewrap_the_agent_sees_an_empty_home_but_its_own_folders(tmp_path: Path) -> None:
    skip_without_sandbox()
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY")
    runner, _ = runner_for(tmp_path, {"PATH": "/usr/bin:/bin", "HOME": str(home)}, sandbox="bwrap")
    seen = call(runner)
    assert seen["home"] == []  # no .ssh: the home is hidden (the custom CLI names no folder of its own)
    log = runner.workspace.log_file("E1").read_text()
    assert log.splitlines()[0].startswith("=== ") and " $ " in log and "bwrap" in log.splitlines()[0]


def test_install_roots_are_real_paths_up_to_node_modules(tmp_path: Path) -> None:
    package = tmp_path / "real" / "node_modules" / "@x" / "cli" / "bin"
    package.mkdir(parents=True)
    (package / "cli.js").write_text("")
    links = tmp_path / "links" / "node_modules" / ".bin"
    links.mkdir(parents=True)
    (links / "cli").symlink_to(package / "cli.js")
    roots = install_roots(str(links / "cli"))
    assert roots == ((links).resolve(), (tmp_path / "real" / "node_modules").resolve())
