"""The OS sandbox around every agent process (bubblewrap on Linux): the second wall.

The CLIs' own permission rules are the first wall; this one holds even when a CLI's rules are loose
(a custom command) or wrong. Inside it an agent sees:

- the root file system read-only, a private `/tmp` (and `$TMPDIR`), a fresh `/proc` with only its
  own processes (`--unshare-pid`), no IPC with the host, no capabilities (run as root, the agent
  is `nobody` in a user namespace),
  and an empty `/run` (no docker, D-Bus or ssh-agent sockets; the DNS resolver's files stay);
- the user's home replaced by an empty folder, except a private copy of the CLI's own config
  (writable for this call only: what it changes there is gone afterwards; its credential files are
  the real ones, so a refreshed token is kept) and the folders the CLI and the tool scripts run
  from (read-only). No mount ever shows the home itself or a folder that holds it: a workspace
  that is the home or holds it is refused (`check_workspace`), and a program or PATH folder that is
  the home is kept visible as the one file needed, or not at all;
- the workspace read-only, except the call's own folder under `logs/calls/` (where its one output
  file goes), with the run's private folder `.deepresearch/` hidden but for the tool scripts, the
  tool service's socket and gemini's per-call policies: task.md, the archives, the logs code
  trusts, other calls' prompts and outputs cannot be changed, and no lock can be held from inside;
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
NOBODY = 65534  # the user a sandboxed agent runs as when deepresearch runs as root
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
    writable: tuple[Path, ...] = ()  # read-write: the call's own folder, `sandbox_paths`, credentials
    readable: tuple[Path, ...] = ()  # kept visible read-only under the hidden home, /tmp, $TMPDIR
    # (private copy, where it appears): the CLI's config, writable for this call only
    copies: tuple[tuple[Path, Path], ...] = ()
    # Inside the workspace: folders hidden (the run's private folder), and what stays visible in them.
    concealed: tuple[Path, ...] = ()
    revealed: tuple[Path, ...] = ()
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
    args = ["--die-with-parent", "--cap-drop", "ALL", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    args.append("--unshare-cgroup-try")
    if os.geteuid() == 0:
        # Run as root (a container, CI), bubblewrap would keep every capability, and the agent could
        # unmount the empty home to read what lies beneath, or remount / writable. It runs as
        # `nobody` in a user namespace instead, without capabilities, like an ordinary user's agents
        # (on disk it is still root: it writes its own folder, and a CLI's own sandbox still nests).
        args += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for hidden in confinement.hidden:
        if hidden.is_dir():
            args += ["--tmpfs", str(hidden)]
    for kept in RUN_KEPT:
        args += ["--ro-bind-try", kept, kept]
    return args


# Mount kinds in the order they apply to one depth: hide, then show read-only, then writable.
_HIDE, _READ, _WRITE = 0, 1, 2


def _file_args(confinement: Confinement) -> list[str]:
    home = confinement.home
    mounts: list[tuple[Path, int, Path]] = []  # (where, kind, source)
    if confinement.tmpdir is not None and confinement.tmpdir != Path("/tmp"):
        mounts.append((confinement.tmpdir, _HIDE, confinement.tmpdir))
    if home is not None and home.is_dir() and home != Path("/"):
        mounts.append((home, _HIDE, home))
    shown = [*confinement.readable, *confinement.revealed]
    mounts += [(p, _READ, p) for p in (*shown, confinement.workspace) if _never_home(p, home)]
    mounts += [(p, _HIDE, p) for p in confinement.concealed if p.is_dir()]
    mounts += [(p, _WRITE, p) for p in confinement.writable if _never_home(p, home)]
    mounts += [(where, _WRITE, copy) for copy, where in confinement.copies if _never_home(where, home)]
    args: list[str] = []
    # Parents before children: a later mount inside an earlier one refines it.
    for where, kind, source in sorted(_existing(mounts), key=lambda m: (len(m[0].parts), m[1])):
        how = "--tmpfs" if kind == _HIDE else "--ro-bind" if kind == _READ else "--bind"
        args += [how, str(where)] if kind == _HIDE else [how, str(source), str(where)]
    args += ["--chdir", str(confinement.workspace)]
    return args


def _existing(mounts: list[tuple[Path, int, Path]]) -> list[tuple[Path, int, Path]]:
    """Mounts of sources that exist, each place once (writable wins over read-only)."""
    chosen: dict[Path, tuple[int, Path]] = {}
    for where, kind, source in mounts:
        if (kind == _HIDE or source.exists()) and (where not in chosen or kind > chosen[where][0]):
            chosen[where] = (kind, source)
    return [(where, kind, source) for where, (kind, source) in chosen.items()]


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _never_home(path: Path, home: Path | None) -> bool:
    """False for the home folder itself and every folder that holds it: mounting one of those would
    bring the whole home back into the sandbox."""
    if home is None or home == Path("/"):
        return True
    return not (_under(home, path) or _under(home.resolve(), path.resolve()))


def holds_home(path: Path, home: Path | None) -> bool:
    """Whether `path` is the home folder or a folder that contains it."""
    return not _never_home(path, home)


def check_workspace(workspace: Path, home: Path | None) -> None:
    """A ConfigError when the workspace is the home folder or holds it: its agents would see all of
    it (`~/.ssh`, `~/.aws`, the person's documents), with or without the sandbox."""
    if not holds_home(workspace, home):
        return
    what = (
        "is your home folder"
        if workspace.resolve() == (home or workspace).resolve()
        else "holds your home folder"
    )
    raise ConfigError(
        "-o",
        "command line",
        f"the workspace {workspace} {what}: agents read their workspace, so they would see everything "
        "in it (~/.ssh, ~/.aws, your documents)",
        hint="give the run a folder of its own, e.g. `-o research/NAME` (created if missing)",
    )


def check_writable(paths: Iterable[str], home: Path | None) -> None:
    """A ConfigError for a `sandbox_paths` folder that is the home folder or holds it."""
    for entry in paths:
        if holds_home(Path(entry).expanduser(), home):
            raise ConfigError(
                "sandbox_paths",
                "configuration",
                f"{entry} would make your whole home folder writable to agents",
                hint="name the one folder the agent CLI needs (for instance ~/.mycli)",
            )


def program_paths(argv: Sequence[str], home: Path | None) -> list[Path]:
    """What to keep visible of the files a command line names by absolute path (a custom command's
    script): their folder (for what they import beside them), or only the file when that folder is
    the home or holds it."""
    files = [Path(item) for item in argv if item.startswith("/") and Path(item).is_file()]
    return [path.parent if _never_home(path.parent, home) else path for path in files]


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
        # A relative entry (`.`) names the workspace inside the sandbox, not where it was typed.
        if folder is not None and folder.is_absolute() and folder.is_dir() and in_hidden(folder):
            real = folder.resolve()
            found += [folder, real, real.parent / "lib"]
    found += [p for p in extra if in_hidden(p)]
    return tuple(dict.fromkeys(p for p in found if p.exists() and _never_home(p, home)))
