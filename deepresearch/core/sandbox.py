"""The OS sandbox around every agent process (bubblewrap on Linux): the second wall.

The CLIs' own permission rules are the first wall; this one holds even when a CLI's rules are loose
(a custom command) or wrong. Inside it an agent sees:

- the root file system read-only, a private `/tmp` (and `$TMPDIR`), a fresh `/proc` with only its
  own processes (`--unshare-pid`), no IPC with the host, and an empty `/run` (no docker, D-Bus or
  ssh-agent sockets; the DNS resolver's files stay);
- the user's home replaced by an empty folder, except the CLI's own config and credential folders
  (read-write: the CLI keeps its sessions there) and the folders the CLI and the tool scripts run
  from (read-only);
- the workspace read-only, except `logs/` (where its one output file goes) and what the CLI needs
  writable there (gemini's workspace home): task.md, the archives and `.deepresearch/` cannot be
  changed from inside;
- the network as outside: the CLI must reach its model (the tools reach the web through the run's
  tool service, over its Unix socket).

`sandbox: auto` uses bubblewrap when it works here and warns once when it does not; `bwrap` makes
its absence a configuration error; `off` runs agents unconfined. macOS's equivalent would be
`sandbox-exec` (not implemented).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from deepresearch.core.errors import ConfigError
from deepresearch.core.process import ProcessOutcome, run_captured

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: `sudo apt-get install bubblewrap`)"
PROBE_TIMEOUT = 10.0
# /run is emptied; these keep name resolution working where /etc/resolv.conf points into /run.
RUN_KEPT = ("/run/systemd/resolve", "/run/resolvconf", "/run/NetworkManager", "/run/nscd")

Runner = Callable[..., ProcessOutcome]


class SandboxMode(StrEnum):
    """The `sandbox` setting."""

    AUTO = "auto"
    BWRAP = "bwrap"
    OFF = "off"


@dataclass(frozen=True)
class SandboxStatus:
    """Whether bubblewrap can confine a process on this machine, and why not."""

    executable: str | None  # the bwrap found on PATH
    works: bool
    detail: str  # its version, or what failed

    def problem(self) -> tuple[str, str] | None:
        """(what is wrong, fix) when the sandbox cannot be used; what follows depends on the mode."""
        if self.executable is None:
            return "bubblewrap is not installed", INSTALL_HINT
        if not self.works:
            return (
                f"bubblewrap cannot create a sandbox here ({self.detail})",
                "allow unprivileged user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1, "
                "or an AppArmor profile for bwrap on Ubuntu 24.04+), or set sandbox: off to silence this",
            )
        return None


@dataclass(frozen=True)
class Confinement:
    """What one agent process may see and change inside the sandbox."""

    workspace: Path
    home: Path | None
    writable: tuple[Path, ...] = ()  # read-write (the CLI's config, the workspace's logs/)
    readable: tuple[Path, ...] = ()  # kept visible read-only under the hidden home
    tmpdir: Path | None = None  # a $TMPDIR outside /tmp gets a private folder too
    hidden: tuple[Path, ...] = field(default_factory=lambda: (Path("/run"),))


def probe(which: Callable[[str], str | None] = shutil.which, run: Runner = run_captured) -> SandboxStatus:
    """Find bwrap and run `true` in the same kind of sandbox agents get (a real launch)."""
    executable = which("bwrap")
    if executable is None:
        return SandboxStatus(None, False, "bwrap not found on PATH")
    argv = [executable, *_system_args(Confinement(Path("/"), None)), "--", "true"]
    try:
        outcome = run(argv, timeout=PROBE_TIMEOUT)
    except OSError as exc:
        return SandboxStatus(executable, False, str(exc))
    if outcome.exit_code != 0:
        said = (outcome.stderr or outcome.stdout).strip().splitlines()
        return SandboxStatus(executable, False, said[-1] if said else f"exit {outcome.exit_code}")
    version = run([executable, "--version"], timeout=PROBE_TIMEOUT).stdout.strip()
    return SandboxStatus(executable, True, version or "bubblewrap")


def decide(mode: str, status: SandboxStatus) -> bool:
    """Whether agents run in bubblewrap: `auto` when it works, `bwrap` or a ConfigError, `off` never."""
    if mode == SandboxMode.OFF:
        return False
    if status.works:
        return True
    if mode == SandboxMode.BWRAP:
        problem = status.problem()
        assert problem is not None
        raise ConfigError("sandbox", "configuration", f"is bwrap, but {problem[0]}", hint=problem[1])
    return False


def auto_warning(mode: str, status: SandboxStatus) -> tuple[str, str] | None:
    """(problem, fix) to warn about when `sandbox: auto` runs agents unconfined, else None."""
    problem = status.problem() if mode == SandboxMode.AUTO else None
    return (f"{problem[0]}: agents run without an OS sandbox", problem[1]) if problem else None


def confine(bwrap: str, confinement: Confinement, argv: Sequence[str]) -> list[str]:
    """`argv` wrapped in bubblewrap as the module docstring describes."""
    return [bwrap, *_system_args(confinement), *_file_args(confinement), "--", *argv]


def _system_args(confinement: Confinement) -> list[str]:
    args = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for hidden in confinement.hidden:
        if hidden.is_dir():
            args += ["--tmpfs", str(hidden)]
    for kept in RUN_KEPT:
        args += ["--ro-bind-try", kept, kept]
    return args


def _file_args(confinement: Confinement) -> list[str]:
    args: list[str] = []
    home = confinement.home
    if confinement.tmpdir is not None and confinement.tmpdir != Path("/tmp"):
        args += ["--tmpfs", str(confinement.tmpdir)]
    if home is not None and home.is_dir() and home != Path("/"):
        args += ["--tmpfs", str(home)]
    # Parents before children: a later mount inside an earlier one refines it.
    mounts = [(p, "--ro-bind") for p in confinement.readable] + [(confinement.workspace, "--ro-bind")]
    mounts += [(p, "--bind") for p in confinement.writable]
    for path, how in sorted(_existing(mounts), key=lambda m: (len(m[0].parts), m[1] == "--bind")):
        args += [how, str(path), str(path)]
    args += ["--chdir", str(confinement.workspace)]
    return args


def _existing(mounts: Iterable[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """Mounts of paths that exist, each path once (read-write wins over read-only)."""
    chosen: dict[Path, str] = {}
    for path, how in mounts:
        if path.exists():
            chosen[path] = "--bind" if chosen.get(path) == "--bind" else how
    return list(chosen.items())


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def program_folders(argv: Sequence[str]) -> list[Path]:
    """The folders of the files a command line names by absolute path (a custom command's script
    and what it imports beside it): kept visible when they lie where the sandbox hides things."""
    return [Path(item).parent for item in argv if item.startswith("/") and Path(item).is_file()]


def kept_visible(
    environ: Mapping[str, str], home: Path | None, extra: Iterable[Path] = ()
) -> tuple[Path, ...]:
    """What must stay readable where the sandbox hides things (the home, /tmp, $TMPDIR): `extra`
    (the tool scripts' interpreter, the CLI's install) and each PATH folder there with the `lib/`
    beside it (npm and pip installs: `prefix/bin` links into `prefix/lib`)."""
    hidden = [Path("/tmp")] + ([home] if home is not None and home != Path("/") else [])
    if environ.get("TMPDIR"):
        hidden.append(Path(environ["TMPDIR"]))

    def in_hidden(path: Path) -> bool:
        return any(_under(path, area) or _under(path.resolve(), area) for area in hidden)

    found: list[Path] = []
    for entry in environ.get("PATH", "").split(os.pathsep):
        folder = Path(entry).expanduser() if entry else None
        if folder is not None and folder.is_dir() and in_hidden(folder):
            real = folder.resolve()
            found += [folder, real, real.parent / "lib"]
    found += [p for p in extra if in_hidden(p)]
    return tuple(dict.fromkeys(p for p in found if p.exists()))
