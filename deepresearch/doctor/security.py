"""The doctor's security checks: whether the OS sandbox works here, and what each CLI's own
permission rules allow its roles (and what they cannot express)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from deepresearch.agents.base import PermissionProfile
from deepresearch.agents.custom import PERMISSIONS as CUSTOM_PERMISSIONS
from deepresearch.agents.registry import BUILTIN, DETECTION_ORDER
from deepresearch.core import sandbox
from deepresearch.core.config import Config
from deepresearch.core.errors import ConfigError


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
