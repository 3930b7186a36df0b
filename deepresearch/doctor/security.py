"""The doctor's security checks: whether the OS sandbox works here, what each CLI's own permission
rules allow its roles (and what they cannot express), and what of this environment passes to each
CLI (names only, never values)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from deepresearch.agents.base import AgentBackend, PermissionProfile, declared_env
from deepresearch.agents.custom import PERMISSIONS as CUSTOM_PERMISSIONS
from deepresearch.agents.registry import BUILTIN, DETECTION_ORDER, get_backend
from deepresearch.core import sandbox
from deepresearch.core.agent_env import BASE, agent_environment
from deepresearch.core.config import Config
from deepresearch.core.errors import ConfigError, DeepResearchError


@dataclass(frozen=True)
class SandboxCheck:
    """The `sandbox` setting, what bubblewrap can do here, and what a run would do."""

    mode: str
    status: sandbox.SandboxStatus
    used: bool  # a run would confine its agents
    error: str = ""  # `sandbox: bwrap` that a run would refuse
    fix: str = ""  # what to do about `error`

    def problems(self) -> list[tuple[str, str]]:
        """(problem, fix) pairs."""
        if self.error:
            return [(self.error, self.fix or sandbox.INSTALL_HINT)]
        warning = sandbox.auto_warning(self.mode, self.status)
        return [warning] if warning is not None else []

    @property
    def summary(self) -> str:
        """One line: on, off, or why not."""
        if self.used:
            return f"agents run in bubblewrap ({self.status.detail}; sandbox: {self.mode})"
        if self.mode == sandbox.SandboxMode.OFF:
            return "off (sandbox: off): agents run unconfined, behind their CLIs' own rules only"
        if self.error:
            return f"not available ({self.status.detail}): a run refuses to start (sandbox: {self.mode})"
        return f"not available ({self.status.detail}): agents run behind their CLIs' own rules only"


def check_sandbox(config: Config, probe: Callable[[], sandbox.SandboxStatus] = sandbox.probe) -> SandboxCheck:
    """Probe bubblewrap with a real launch and decide as a run would."""
    status = probe()
    try:
        used = sandbox.decide(config.sandbox, status)
    except ConfigError as exc:
        return SandboxCheck(config.sandbox, status, False, exc.message, exc.hint or "")
    return SandboxCheck(config.sandbox, status, used)


def permission_profiles(config: Config) -> dict[str, PermissionProfile]:
    """Each supported CLI's permission profile (and the custom command's, when configured)."""
    profiles = {name: BUILTIN[name]().permissions for name in DETECTION_ORDER}
    if config.custom_command:
        profiles["custom"] = CUSTOM_PERMISSIONS
    return profiles


@dataclass(frozen=True)
class AgentEnvironment:
    """What of the environment passes to one CLI's agents (names only)."""

    name: str
    declared: tuple[str, ...]  # the backend's own names and prefixes (besides BASE and agent_env)
    passed: tuple[str, ...]  # the variables set here that it gets
    withheld: tuple[str, ...]  # the variables set here that it does not get


def agent_environments(config: Config, environ: Mapping[str, str]) -> list[AgentEnvironment]:
    """For each supported CLI (and the custom command, when configured): what passes to it."""
    backends: list[AgentBackend] = [BUILTIN[name]() for name in DETECTION_ORDER]
    if config.custom_command:
        with contextlib.suppress(DeepResearchError):  # a broken custom_command: the agent checks say so
            backends.append(get_backend("custom", config))
    found = []
    for backend in backends:
        passed = agent_environment(environ, declared_env(backend), config.agent_env)
        withheld = tuple(sorted(name for name in environ if name not in passed))
        found.append(AgentEnvironment(backend.name, declared_env(backend), tuple(sorted(passed)), withheld))
    return found


def base_names(config: Config) -> tuple[str, ...]:
    """What every CLI gets besides its own: the basics and the `agent_env` setting."""
    return (*BASE, *config.agent_env)
