"""The two commands research agents may run, as executables of their own.

Agents get `deepresearch search` and `deepresearch archive` as two small scripts in
`.deepresearch/bin/` (`deepresearch-search`, `deepresearch-archive`) that run this interpreter on
the matching subcommand. One executable per command is what lets every CLI's permission rules name
exactly these two: copilot matches shell rules on the command's name only, so a rule for
`deepresearch` would also allow `deepresearch -p` or `deepresearch doctor --ping`. The scripts
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
from deepresearch.core.workspace import Workspace

TOOLS = ("search", "archive")
# What the tool scripts read from an agent's environment: the run folder and the run's tool service.
WORKDIR_ENV = "DEEPRESEARCH_WORKDIR"
SERVICE_ENV = "DEEPRESEARCH_SERVICE"


@dataclass(frozen=True)
class ToolCommands:
    """The absolute paths of the search and archive scripts of one workspace."""

    search: Path
    archive: Path

    @property
    def all(self) -> tuple[Path, Path]:
        """Both scripts, search first."""
        return self.search, self.archive


def tool_commands(workspace: Workspace) -> ToolCommands:
    """Where the workspace's tool scripts are (written by `write_tool_commands`)."""
    folder = workspace.private.resolve() / "bin"
    return ToolCommands(folder / "deepresearch-search", folder / "deepresearch-archive")


def script_text(tool: str, python: str = sys.executable) -> str:
    """The body of one tool script: this interpreter running `deepresearch TOOL ARGS...`."""
    return (
        "#!/bin/sh\n"
        f"# Written by deepresearch for this run's research agents: `deepresearch {tool}`, nothing else.\n"
        f'exec {shlex.quote(python)} -m deepresearch.cli.tools {tool} "$@"\n'
    )


def write_tool_commands(workspace: Workspace, python: str = sys.executable) -> ToolCommands:
    """(Re)write both scripts, executable, and return their paths."""
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
