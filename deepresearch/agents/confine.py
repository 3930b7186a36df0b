"""What one agent call may see and change: its environment, its own folder, and inside the OS
sandbox a private copy of its CLI's configuration.

- Environment: core.agent_env's allowlist for the call's backend (what any CLI needs, the
  backend's declared variables, the `agent_env` setting); the runner then adds its own
  `DEEPRESEARCH_*` variables.
- Writable: `logs/calls/<label>/` only, where the call's output file is. Prompts, the search and tool
  logs and other calls' folders stay read-only.
- The CLI's config folders and files (`~/.claude`, `~/.claude.json`, `~/.codex`, `~/.gemini`,
  `~/.copilot`): copied for the call into a private scratch folder and mounted in their place, so
  the CLI can write its sessions but nothing it (or a hijacked agent) changes there — a hook in
  settings.json, a line in config.toml, a policy file — outlives the call. Session histories and
  logs are not copied. Its credential files are the real ones (a refreshed token is kept; they hold
  no code). The scratch folder is removed when the call ends.
- The run's private folder `.deepresearch/` is hidden but for what agents use: the tool scripts,
  the tool service's socket and gemini's per-call policies.
"""

from __future__ import annotations

import shutil
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from deepresearch.agents.base import AgentBackend, declared_env
from deepresearch.core import sandbox
from deepresearch.core.agent_env import agent_environment
from deepresearch.core.workspace import Workspace

# Top-level entries of the CLIs' config folders that a new non-interactive session does not need:
# session histories, logs, caches (they can be large; a call gets empty ones).
NOT_COPIED = frozenset({
    "projects", "todos", "shell-snapshots", "statsig", "debug", "file-history", "session-env", "ide",
    "sessions", "archived_sessions", "log", "logs", "tmp", "history", "session-state", "cache", ".cache",
})  # fmt: skip


def call_environment(
    environ: Mapping[str, str], backend: AgentBackend, extra: Sequence[str]
) -> dict[str, str]:
    """The person's environment as one call of `backend` may see it."""
    return agent_environment(environ, declared_env(backend), extra)


def own_folder(workspace: Workspace, output_file: Path) -> Path:
    """The call's writable folder (created): its output file's folder, which must be one of the
    workspace's call folders, so no call can ever be given `logs/` or the workspace."""
    folder = output_file.parent
    if folder.resolve().parent != workspace.calls.resolve():
        raise ValueError(
            f"an agent's output file must be in its own folder under {workspace.calls}: {output_file}"
        )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@dataclass
class PrivateConfig:
    """Private copies of one call's CLI configuration, in a scratch folder removed by `close`."""

    copies: list[tuple[Path, Path]] = field(default_factory=list)  # (copy, where it appears)
    credentials: list[Path] = field(default_factory=list)  # real files, kept writable
    scratch: Path | None = None

    def close(self) -> None:
        """Remove the copies (whatever the call changed in them goes with them)."""
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


def private_config(backend: AgentBackend, env: Mapping[str, str]) -> PrivateConfig:
    """Copy each of the backend's config folders and files that exist (see the module docstring)."""
    found = [p for p in backend.config_paths(env) if p.exists()]
    config = PrivateConfig()
    if not found:
        return config
    config.scratch = Path(tempfile.mkdtemp(prefix="deepresearch-call-"))
    for n, original in enumerate(found):
        copy = config.scratch / f"{n}-{original.name}"
        if original.is_dir():
            _copy_folder(original, copy)
            config.credentials += [
                original / name for name in backend.credential_files if (original / name).is_file()
            ]
        else:
            shutil.copy2(original, copy)
        config.copies.append((copy, original))
    return config


def _copy_folder(source: Path, target: Path) -> None:
    """Folders, regular files and symbolic links (as links); sockets and the like are left out."""
    target.mkdir(mode=0o700)
    for entry in source.iterdir():
        if entry.name in NOT_COPIED and entry.is_dir() and not entry.is_symlink():
            continue
        mode = entry.lstat().st_mode
        if stat.S_ISLNK(mode):
            (target / entry.name).symlink_to(entry.readlink())
        elif stat.S_ISDIR(mode):
            shutil.copytree(entry, target / entry.name, symlinks=True, ignore_dangling_symlinks=True)
        elif stat.S_ISREG(mode):
            shutil.copy2(entry, target / entry.name)


def confinement(
    workspace: Workspace,
    folder: Path,
    env: Mapping[str, str],
    config: PrivateConfig,
    shown: Sequence[Path],
    writable: Sequence[Path] = (),
) -> sandbox.Confinement:
    """The sandbox of one call: `folder` writable, the private config in place, `shown` (the CLI's
    install, the tool scripts' interpreter, the command's own files) visible, `writable` (the
    `sandbox_paths` setting) writable."""
    home = Path(env["HOME"]) if env.get("HOME") else None
    private = workspace.private.resolve()
    revealed = [private / "bin", workspace.tool_socket.resolve(), workspace.gemini_private.resolve()]
    return sandbox.Confinement(
        workspace=workspace.root.resolve(),
        home=home,
        writable=(folder.resolve(), *writable, *config.credentials),
        readable=sandbox.kept_visible(env, home, shown),
        copies=tuple(config.copies),
        concealed=(private,),
        revealed=tuple(revealed),
        tmpdir=Path(env["TMPDIR"]) if env.get("TMPDIR") else None,
    )
