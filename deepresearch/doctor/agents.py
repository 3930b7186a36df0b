"""`deepresearch doctor`: what this machine and this workspace can do, each problem with its fix.

Checks every supported agent CLI (installed, version, logged in — from the CLI's own status command
where it has one, or a one-line round trip with `ping`; for opencode and qwen also whether the
OpenAI-compatible server their model resolves to answers) and the permission profile a run gives it,
the OS sandbox (a real bubblewrap launch), Chromium for archiving (a real headless launch), the
search providers, and the workspace's run. Returns typed results; only
`cli/doctor_cmd.py` prints them. Subprocesses go through the one `ProcessRunner`.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from deepresearch.agents.base import (
    AgentBackend,
    AgentRequest,
    AgentResult,
    FailureKind,
    PermissionProfile,
    ToolProfile,
)
from deepresearch.agents.confine import call_environment
from deepresearch.agents.registry import BUILTIN, DETECTION_ORDER, get_backend
from deepresearch.core.config import Config, load_config
from deepresearch.core.errors import DeepResearchError
from deepresearch.core.process import ProcessRunner
from deepresearch.core.workspace import Workspace
from deepresearch.doctor.checks import (
    BrowserCheck,
    SearchCheck,
    WorkspaceCheck,
    check_browser,
    check_search,
    check_workspace,
)
from deepresearch.doctor.providers import ProviderCheck, check_provider
from deepresearch.doctor.security import (
    AgentEnvironment,
    SandboxCheck,
    agent_environments,
    base_names,
    check_sandbox,
    permission_profiles,
)

NODE_MAJOR = 20  # the agent CLIs are npm packages that need Node.js 20 or later
NODE_FIX = f"install Node.js {NODE_MAJOR} or later with npm (https://nodejs.org, or your package manager)"
PING_PROMPT = "This is a connectivity check. Reply with the single word OK. Do not use any tools."
VERSION_TIMEOUT = 30.0
PING_TIMEOUT = 60.0
_HTTP_STATUS = re.compile(r"HTTP \d{3}")
_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?")


@dataclass(frozen=True)
class AgentCheck:
    """One agent CLI: where it is, its version, and whether it is logged in (None: unknown)."""

    name: str
    path: str | None = None
    version: str | None = None
    logged_in: bool | None = None
    login: str = ""  # how the login answer was found, or why it is unknown
    fix: str = ""  # the command that fixes the problem, when there is one
    provider: ProviderCheck | None = None  # opencode, qwen: the endpoint their model resolves to

    @property
    def installed(self) -> bool:
        return self.path is not None

    @property
    def usable(self) -> bool:
        """Installed and not known to be logged out."""
        return self.installed and self.logged_in is not False


@dataclass
class DoctorReport:
    """Everything `deepresearch doctor` found."""

    workdir: Path
    agents: list[AgentCheck]
    browser: BrowserCheck
    search: SearchCheck
    workspace: WorkspaceCheck
    sandbox: SandboxCheck
    permissions: dict[str, PermissionProfile] = field(default_factory=dict)
    environments: list[AgentEnvironment] = field(default_factory=list)
    every_cli_env: tuple[str, ...] = ()  # what every CLI gets: the basics and `agent_env`
    config_problem: str = ""
    pinged: bool = False
    node: str | None = None  # Node.js's version ("" when `node` is not on PATH), which npm installs need

    @property
    def usable_agents(self) -> list[str]:
        """The agent CLIs a run could use now."""
        return [a.name for a in self.agents if a.usable]

    def problems(self) -> list[tuple[str, str]]:
        """Every problem found, as (what is wrong, the command that fixes it)."""
        found: list[tuple[str, str]] = []
        if self.config_problem:
            found.append((self.config_problem, "fix the named setting"))
        if any(not a.installed for a in self.agents) and self.node is not None and not node_ok(self.node):
            what = f"Node.js {self.node} is too old" if self.node else "Node.js is not installed"
            found.append(
                (f"{what}: the agent CLIs are npm packages that need Node.js {NODE_MAJOR}+", NODE_FIX)
            )
        for agent in self.agents:
            if not agent.installed and agent.fix:
                what = (
                    "is not installed" if agent.login == "not installed" else f"cannot be used: {agent.login}"
                )
                found.append((f"{agent.name} {what}", agent.fix))
            elif agent.logged_in is False:
                found.append((f"{agent.name} is not logged in ({agent.login})", agent.fix))
            if agent.provider is not None and agent.provider.problem:
                found.append((agent.provider.problem, agent.provider.fix))
        found += self.browser.problems() + self.search.problems() + self.sandbox.problems()
        return found + self.workspace.problems


def run_doctor(
    workdir: Path, environ: Mapping[str, str], ping: bool = False, runner: ProcessRunner | None = None
) -> DoctorReport:
    """Check the agent CLIs (and ping them), Chromium, search and the workspace in `workdir`."""
    env = dict(environ)
    config_problem = ""
    try:
        config = load_config(workdir, env)
    except DeepResearchError as exc:  # doctor still checks everything else with the defaults
        config, config_problem = Config(), str(exc)
    runner = runner or ProcessRunner()
    agents = check_agents(config, env, runner, ping)
    return DoctorReport(
        node=node_version(env, runner),
        workdir=workdir,
        agents=agents,
        browser=check_browser(config.chromium_path, env),
        search=check_search(config, env),
        workspace=check_workspace(Workspace(workdir)),
        sandbox=check_sandbox(config),
        permissions=permission_profiles(config),
        environments=agent_environments(config, env),
        every_cli_env=base_names(config),
        config_problem=config_problem,
        pinged=ping,
    )


def node_version(environ: Mapping[str, str], runner: ProcessRunner) -> str:
    """Node.js's version (`node --version`), "" when it is not on PATH or does not answer."""
    node = shutil.which("node", path=environ.get("PATH", os.defpath))
    if node is None:
        return ""
    outcome = runner.run([node, "--version"], Path.cwd(), environ, VERSION_TIMEOUT, Path(os.devnull))
    found = _VERSION.search(outcome.stdout) if outcome.exit_code == 0 else None
    return found.group(0) if found else ""


def node_ok(version: str) -> bool:
    """Whether `version` (20.11.1) is a Node.js the agent CLIs run on."""
    return version.split(".")[0].isdigit() and int(version.split(".")[0]) >= NODE_MAJOR


def check_agents(
    config: Config, environ: dict[str, str], runner: ProcessRunner, ping: bool
) -> list[AgentCheck]:
    """Every supported CLI (and the custom command, when configured), checked in parallel: each
    check starts a few short processes."""
    backends = [BUILTIN[name]() for name in DETECTION_ORDER]
    broken: list[AgentCheck] = []
    if config.custom_command:
        try:
            backends.append(get_backend("custom", config))
        except DeepResearchError as exc:
            broken.append(AgentCheck("custom", login=exc.message, fix=exc.hint or "fix custom_command"))
    with ThreadPoolExecutor(max_workers=len(backends)) as pool:
        futures = [pool.submit(check_agent, b, config, environ, runner, ping) for b in backends]
        return [future.result() for future in futures] + broken


def check_agent(
    backend: AgentBackend, config: Config, environ: dict[str, str], runner: ProcessRunner, ping: bool
) -> AgentCheck:
    """One CLI: path, version, then login from its status command, and from a ping when asked."""
    path = shutil.which(backend.executable, path=environ.get("PATH", os.defpath))
    if path is None:
        return AgentCheck(backend.name, login="not installed", fix=backend.install_hint)
    version = _version(backend, environ, runner)
    if version is None:
        fix = f"reinstall it: {backend.install_hint}"
        return AgentCheck(backend.name, path, None, False, f"`{backend.executable} --version` failed", fix)
    logged_in, login = _login_status(backend, environ, runner)
    if logged_in is False and config.backend_args.get(backend.name):
        # Its status knows only its own login; backend_args may select a provider keyed otherwise.
        logged_in, login = None, f"logged out {login}, but backend_args may select another provider"
    provider = check_provider(backend, ping_model(backend, config), environ)
    if ping and logged_in is not False:  # a status that says "logged out" needs no round trip
        logged_in, login = ping_agent(backend, config, environ, runner)
    fix = backend.login_hint if logged_in is False else ""
    return AgentCheck(backend.name, path, version, logged_in, login, fix, provider)


def ping_model(backend: AgentBackend, config: Config) -> str | None:
    """The model a check of `backend` uses: the configured one when the run would give it to this
    CLI; opencode's models are `provider/model`, so a bare name is another CLI's and it uses its own
    configured default instead."""
    if config.agent not in (None, backend.name) or not config.model:
        return None
    if backend.name == "opencode" and config.agent is None and "/" not in config.model:
        return None
    return config.model


def ping_agent(
    backend: AgentBackend, config: Config, environ: dict[str, str], runner: ProcessRunner
) -> tuple[bool | None, str]:
    """A one-line round trip through the backend (its real argv, environment and parsing)."""
    with tempfile.TemporaryDirectory(prefix="deepresearch-ping-") as tmp:
        root = Path(tmp)
        request = AgentRequest(
            role="doctor",
            label="ping",
            prompt=PING_PROMPT,
            prompt_file=root / "ping.md",
            workdir=root,
            output_file=root / "ping.txt",
            tools=ToolProfile.WRITER,
            model=ping_model(backend, config),
            extra_args=tuple(config.backend_args.get(backend.name, [])),
        )
        outcome = runner.run(
            backend.build_argv(request),
            cwd=root,
            env=backend.build_env(request, call_environment(environ, backend, config.agent_env)),
            timeout=min(config.agent_timeout, PING_TIMEOUT),
            log_path=Path(os.devnull),
        )
        result = backend.parse(outcome)
    return _ping_answer(result, outcome.duration)


def _ping_answer(result: AgentResult, duration: float) -> tuple[bool | None, str]:
    if result.ok:
        said = " ".join(result.text.split())[:40] or "(empty answer)"
        return True, f"ping answered in {duration:.1f}s: {said!r}"
    if result.failure is FailureKind.NOT_LOGGED_IN:
        status = _HTTP_STATUS.search(result.message)
        return False, "ping refused" + (f" ({status.group(0)})" if status else "")
    return None, f"ping failed: {result.message}"


def _version(backend: AgentBackend, environ: dict[str, str], runner: ProcessRunner) -> str | None:
    argv = backend.version_argv()
    if argv is None:
        return "unknown"
    outcome = runner.run(argv, Path.cwd(), environ, VERSION_TIMEOUT, Path(os.devnull))
    if outcome.exit_code != 0:
        return None
    said = f"{outcome.stdout}\n{outcome.stderr}"
    found = _VERSION.search(said)
    return found.group(0) if found else (said.strip().splitlines() or ["unknown"])[0]


def _login_status(
    backend: AgentBackend, environ: dict[str, str], runner: ProcessRunner
) -> tuple[bool | None, str]:
    argv = backend.login_check_argv()
    if argv is None:
        names = backend.credential_env
        found = [name for name in names or () if environ.get(name, "").strip()]
        if found:
            return None, f"unknown — {' and '.join(found)} set; run with --ping to check"
        if names is None:  # the custom command: nothing to go on
            return None, "unknown — run with --ping"
        return (
            None,
            "unknown — no API key or token in the environment; run with --ping to check its own login",
        )
    command = " ".join(argv[:1] + [a for a in argv[1:] if not a.startswith("-")])
    outcome = runner.run(argv, Path.cwd(), environ, VERSION_TIMEOUT, Path(os.devnull))
    answer = backend.read_login_check(outcome)
    if answer is None:
        return None, f"unknown (`{command}` said nothing readable) — run with --ping"
    return bool(answer), f"from `{command}`"
