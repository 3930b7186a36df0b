"""The supported agent CLIs: a backend by name, the default one, and where each is installed."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable

from deepresearch.agents.base import AgentBackend
from deepresearch.agents.claude import ClaudeBackend
from deepresearch.agents.codex import CodexBackend
from deepresearch.agents.copilot import CopilotBackend
from deepresearch.agents.custom import EXAMPLE, CustomBackend
from deepresearch.agents.gemini import GeminiBackend
from deepresearch.agents.opencode import OpencodeBackend
from deepresearch.agents.qwen import QwenBackend
from deepresearch.core.config import Config
from deepresearch.core.errors import ConfigError, NoAgentError

Which = Callable[[str], str | None]

# The order of preference when no agent is configured: the vendor CLIs first (logged in to their
# own models), then the two that reach any provider their configuration names.
DETECTION_ORDER = ("copilot", "claude", "gemini", "codex", "opencode", "qwen")
BUILTIN: dict[str, Callable[[], AgentBackend]] = {
    "copilot": CopilotBackend,
    "claude": ClaudeBackend,
    "gemini": GeminiBackend,
    "codex": CodexBackend,
    "opencode": OpencodeBackend,
    "qwen": QwenBackend,
}


def _custom(config: Config) -> AgentBackend:
    if not config.custom_command:
        raise ConfigError(
            "custom_command",
            "configuration",
            "is not set, but the agent is `custom`",
            hint=f"set custom_command in deepresearch.yaml, e.g. custom_command: {EXAMPLE}",
        )
    return CustomBackend(config.custom_command)


def _builtin(make: Callable[[], AgentBackend]) -> Callable[[Config], AgentBackend]:
    def factory(config: Config) -> AgentBackend:
        return make()

    return factory


BACKENDS: dict[str, Callable[[Config], AgentBackend]] = {
    **{name: _builtin(make) for name, make in BUILTIN.items()},
    "custom": _custom,
}


def get_backend(name: str, config: Config) -> AgentBackend:
    """The backend called `name` (custom is built from `config.custom_command`)."""
    factory = BACKENDS.get(name)
    if factory is None:
        raise ConfigError(
            "agent", "configuration", f"unknown agent {name!r}; use one of {', '.join(BACKENDS)}"
        )
    return factory(config)


def detect_default(which: Which = shutil.which) -> str | None:
    """The first installed CLI in DETECTION_ORDER; None when none is."""
    for name in DETECTION_ORDER:
        if which(BUILTIN[name]().executable):
            return name
    return None


def install_hints() -> str:
    """One line per supported CLI with the command that installs it."""
    lines = ["Install one of these agent CLIs (Node.js 20+ with npm), then log in to it once:"]
    for name in DETECTION_ORDER:
        backend = BUILTIN[name]()
        lines.append(f"  {name:<8} {backend.install_hint}")
    lines.append("  custom   any other CLI: set custom_command in deepresearch.yaml")
    return "\n".join(lines)


def resolve_executable(backend: AgentBackend, which: Which = shutil.which) -> str:
    """The full path of the backend's program; NoAgentError with the install command if missing."""
    path = which(backend.executable)
    if path:
        return path
    if backend.name == "custom":
        raise NoAgentError(
            f"the custom agent command `{backend.executable}` was not found",
            hint=backend.install_hint,
        )
    raise NoAgentError(f"{backend.name} is not installed: {backend.install_hint}")


def check_installed(config: Config, roles: Iterable[str], which: Which = shutil.which) -> None:
    """Every agent CLI the `roles` use is configured and installed, or the error (with the command
    that installs it) is raised now: before a run creates anything."""
    for name in dict.fromkeys(config.role(role).agent for role in roles):
        if name is None:
            raise NoAgentError("no agent CLI chosen", hint=install_hints())
        resolve_executable(get_backend(name, config), which)
