"""The commands agents may run, as executables of their own.

Research agents get `deepresearch search` and `deepresearch archive`, and every agent whose output
code checks (executors, the analyst, the synthesizer: `self_check` in core/roles.py) gets `deepresearch
check`, the self-check: small scripts in `.deepresearch/bin/` (`deepresearch-search`,
`deepresearch-archive`, `deepresearch-check`) that run this interpreter on the matching subcommand.
One executable per command is what lets every CLI's permission rules name exactly these: copilot
matches shell rules on the command's name only, so a rule for `deepresearch` would also allow
`deepresearch -p` or `deepresearch doctor --ping`. The scripts
are rewritten before every researcher call (an agent that could change them would run its own code
under the next agent's rules), and pin the interpreter, so they work whether or not `deepresearch`
is on PATH.
"""

from __future__ import annotations

import shlex
import site
import sys
from dataclasses import dataclass
from pathlib import Path

from deepresearch.core.files import write_if_changed
from deepresearch.core.roles import Role, ToolProfile, self_checks, tools_for
from deepresearch.core.workspace import Workspace

TOOLS = ("search", "archive", "check")
# What the tool scripts read from an agent's environment: the run folder and the run's tool service.
WORKDIR_ENV = "DEEPRESEARCH_WORKDIR"
SERVICE_ENV = "DEEPRESEARCH_SERVICE"


@dataclass(frozen=True)
class ToolCommands:
    """The absolute paths of the tool scripts of one workspace."""

    search: Path
    archive: Path
    check: Path

    @property
    def all(self) -> tuple[Path, Path, Path]:
        """Every script, in TOOLS order."""
        return self.search, self.archive, self.check

    def for_role(self, role: Role | str) -> tuple[Path, ...]:
        """The scripts an agent of `role` may run: a researcher's search and archive, and the
        self-check for the roles whose output code checks."""
        found = (self.search, self.archive) if tools_for(role) is ToolProfile.RESEARCHER else ()
        return (*found, self.check) if self_checks(role) else found


def tool_commands(workspace: Workspace) -> ToolCommands:
    """Where the workspace's tool scripts are (written by `write_tool_commands`)."""
    folder = workspace.private.resolve() / "bin"
    return ToolCommands(*(folder / f"deepresearch-{tool}" for tool in TOOLS))


def script_text(tool: str, python: str = sys.executable) -> str:
    """The body of one tool script: this interpreter running `deepresearch TOOL ARGS...`."""
    return (
        "#!/bin/sh\n"
        f"# Written by deepresearch for this run's research agents: `deepresearch {tool}`, nothing else.\n"
        f'exec {shlex.quote(python)} -m deepresearch.cli.tools {tool} "$@"\n'
    )


def write_tool_commands(workspace: Workspace, python: str = sys.executable) -> ToolCommands:
    """(Re)write every script, executable, and return their paths."""
    commands = tool_commands(workspace)
    for tool, path in zip(TOOLS, commands.all, strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_if_changed(path, script_text(tool, python))
        path.chmod(0o755)
    return commands


def client_roots() -> tuple[Path, ...]:
    """The folders the tool scripts read when they run: the interpreter, its environment, this
    package's source tree and the user's site-packages (for confining agents to what they need), as
    real paths: a sandbox cannot mount a path through a symbolic link."""
    package = Path(__file__).resolve().parent.parent
    found = [
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(sys.executable).resolve().parent.parent,
        package.parent,
        Path(site.getusersitepackages()),
    ]
    return tuple(dict.fromkeys(p.resolve() for p in found if p.exists()))
