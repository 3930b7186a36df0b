"""The OS sandbox: the decision per `sandbox` setting, the bubblewrap command line, and real confined
processes (what they can and cannot see or change)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from deepresearch.core import sandbox
from deepresearch.core.errors import ConfigError
from deepresearch.core.process import ProcessOutcome
from deepresearch.core.sandbox import Confinement, SandboxStatus
from tests.helpers import skip_without_sandbox

WORKS = SandboxStatus("/usr/bin/bwrap", True, "bubblewrap 0.8.0")
MISSING = SandboxStatus(None, False, "bwrap not found on PATH")
BROKEN = SandboxStatus("/usr/bin/bwrap", False, "setting up uid map: Permission denied")


@pytest.mark.parametrize(
    ("mode", "status", "used"),
    [("auto", WORKS, True), ("auto", MISSING, False), ("auto", BROKEN, False), ("off", WORKS, False),
     ("bwrap", WORKS, True)],
)  # fmt: skip
def test_each_mode_decides_as_documented(mode: str, status: SandboxStatus, used: bool) -> None:
    assert sandbox.decide(mode, status) is used


@pytest.mark.parametrize("status", [MISSING, BROKEN])
def test_bwrap_without_a_working_bubblewrap_is_a_configuration_error(status: SandboxStatus) -> None:
    with pytest.raises(ConfigError) as raised:
        sandbox.decide("bwrap", status)
    assert raised.value.key == "sandbox"
    problem = status.problem()
    assert problem is not None and problem[0] in str(raised.value)


def test_probe_reports_a_missing_or_failing_bubblewrap() -> None:
    assert sandbox.probe(which=lambda name: None) == MISSING

    def failing(argv: list[str], **kwargs: object) -> ProcessOutcome:
        return ProcessOutcome(1, "", "bwrap: setting up uid map: Permission denied\n", 0.01)

    status = sandbox.probe(which=lambda name: "/usr/bin/bwrap", run=failing)
    assert not status.works and status.detail == "bwrap: setting up uid map: Permission denied"
    problem = status.problem()
    assert problem is not None and "cannot create a sandbox here" in problem[0]


def test_the_command_line_hides_home_and_keeps_the_workspace_read_only_but_logs(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    for folder in (home / ".claude", ws / "logs", tmp_path / "venv"):
        folder.mkdir(parents=True)
    confinement = Confinement(
        workspace=ws,
        home=home,
        writable=(ws / "logs", home / ".claude", home / ".missing"),
        readable=(tmp_path / "venv",),
        tmpdir=tmp_path / "tmpdir",
    )
    argv = sandbox.confine("/usr/bin/bwrap", confinement, ["claude", "-p", "x"])
    assert argv[0] == "/usr/bin/bwrap" and argv[-4:] == ["--", "claude", "-p", "x"]
    pairs = [(argv[i], argv[i + 1]) for i in range(len(argv) - 1) if argv[i].startswith("--")]
    assert ("--ro-bind", "/") in pairs and ("--tmpfs", "/tmp") in pairs and ("--tmpfs", "/run") in pairs
    assert "--unshare-pid" in argv and "--die-with-parent" in argv and "--unshare-net" not in argv
    order = [argv[i + 1] for i in range(len(argv) - 1) if argv[i] in ("--tmpfs", "--bind", "--ro-bind")]
    # The home is emptied first, then what stays is mounted back: parents before children.
    assert order.index(str(home)) < order.index(str(home / ".claude"))
    assert order.index(str(ws)) < order.index(str(ws / "logs"))
    assert argv[argv.index(str(ws)) - 1] == "--ro-bind"
    assert argv[argv.index(str(ws / "logs")) - 1] == "--bind"
    assert argv[argv.index(str(home / ".claude")) - 1] == "--bind"
    assert str(home / ".missing") not in argv  # nothing to keep: the CLI writes into the empty home
    assert ("--tmpfs", str(tmp_path / "tmpdir")) in pairs
    assert ("--chdir", str(ws)) in pairs


def test_kept_visible_names_path_folders_in_the_home_and_their_lib(tmp_path: Path) -> None:
    home = tmp_path / "home"
    npm_bin = home / ".npm-global" / "bin"
    (home / ".npm-global" / "lib").mkdir(parents=True)
    npm_bin.mkdir()
    elsewhere = tmp_path.parent / "usr-bin-like"
    env = {"PATH": os.pathsep.join([str(npm_bin), "/usr/bin", str(elsewhere)])}
    kept = sandbox.kept_visible(env, home, [home / ".npm-global"])
    assert npm_bin in kept and home / ".npm-global" / "lib" in kept and home / ".npm-global" in kept
    assert Path("/usr/bin") not in kept  # visible anyway: the root is mounted read-only


# --- real processes in the sandbox -----------------------------------------------------------------


def confined(tmp_path: Path, script: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`sh -c SCRIPT` inside the sandbox an agent gets, with a planted key in its home."""
    skip_without_sandbox()
    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / ".ssh").mkdir(parents=True, exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text("PLANTED KEY\n")
    (home / ".gemini").mkdir(exist_ok=True)
    (ws / "logs" / "calls" / "E1").mkdir(parents=True, exist_ok=True)
    (ws / "task.md").write_text("the run's state\n")
    status = sandbox.probe()
    assert status.executable is not None
    confinement = Confinement(ws, home, writable=(ws / "logs" / "calls" / "E1", home / ".gemini"))
    argv = sandbox.confine(status.executable, confinement, ["sh", "-c", script])
    return subprocess.run(
        argv,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_confined_process_cannot_change_the_run_or_read_the_home(tmp_path: Path) -> None:
    proc = confined(
        tmp_path,
        "echo PWNED > task.md; echo $?; touch /etc/x 2>&1; cat ~/.ssh/id_rsa 2>&1; "
        "echo ok > logs/calls/E1/E1_result.md && echo wrote; echo no > logs/x 2>&1; echo kept > ~/.gemini/state && echo gemini; pwd",
    )
    said = proc.stdout + proc.stderr
    assert "Read-only file system" in said and "PLANTED KEY" not in said
    assert "No such file or directory" in said  # the home is empty but for the CLI's folder
    assert "wrote" in said and "gemini" in said
    assert (tmp_path / "ws" / "task.md").read_text() == "the run's state\n"
    assert (tmp_path / "ws" / "logs" / "calls" / "E1" / "E1_result.md").read_text() == "ok\n"
    assert not (tmp_path / "ws" / "logs" / "x").exists()  # only the call's own folder is writable
    assert (tmp_path / "home" / ".gemini" / "state").read_text() == "kept\n"  # the CLI's folder is kept
    assert proc.stdout.strip().splitlines()[-1] == str(tmp_path / "ws")  # it starts in the workspace


def test_a_confined_process_sees_no_other_process_and_a_private_tmp(tmp_path: Path) -> None:
    marker = tmp_path / "host-file"
    marker.write_text("host")
    private = Path("/tmp") / f"deepresearch-sandbox-test-{os.getpid()}"
    script = f"kill -0 {os.getpid()} 2>&1; ls /proc | grep -c '^[0-9]'; ls {marker} 2>&1; touch {private} && echo tmp-ok"
    proc = confined(tmp_path, script)
    lines = proc.stdout.splitlines()
    assert any("No such process" in line for line in lines + proc.stderr.splitlines())
    assert int(next(line for line in lines if line.isdigit())) < 10  # its own few processes only
    assert any("No such file" in line for line in lines)  # the host's /tmp is not there
    assert "tmp-ok" in lines and not private.exists()  # written in its own /tmp, gone with it


# --- the home folder never comes back ------------------------------------------------------------


def test_no_mount_shows_the_home_or_a_folder_that_holds_it(tmp_path: Path) -> None:
    home, ws = tmp_path / "people" / "me", tmp_path / "ws"
    for folder in (home / ".npm" / "bin", ws / "logs" / "calls" / "E1"):
        folder.mkdir(parents=True)
    confinement = Confinement(
        workspace=ws,
        home=home,
        writable=(ws / "logs" / "calls" / "E1", home, tmp_path / "people"),
        readable=(home / ".npm" / "bin", home, tmp_path),
    )
    argv = sandbox.confine("/usr/bin/bwrap", confinement, ["true"])
    shown = [argv[i + 1] for i in range(len(argv) - 1) if argv[i] in ("--bind", "--ro-bind")]
    assert str(home / ".npm" / "bin") in shown and str(ws) in shown
    assert not {str(home), str(tmp_path / "people"), str(tmp_path)} & set(shown)
    assert ("--cap-drop", "ALL") in [(argv[i], argv[i + 1]) for i in range(len(argv) - 1)]


def test_a_workspace_that_is_or_holds_the_home_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home" / "me"
    home.mkdir(parents=True)
    for workspace in (home, tmp_path / "home", Path("/")):
        with pytest.raises(ConfigError) as raised:
            sandbox.check_workspace(workspace, home)
        assert "-o research/NAME" in (raised.value.hint or "")
    sandbox.check_workspace(home / "research" / "q1", home)  # a folder of its own inside the home
    sandbox.check_workspace(tmp_path / "elsewhere", home)
    with pytest.raises(ConfigError) as raised:
        sandbox.check_writable(["~/.mycli", str(home)], home)
    assert raised.value.key == "sandbox_paths"


def test_a_program_in_the_home_is_kept_as_its_file_and_relative_path_entries_are_not_kept(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (home / "tools").mkdir(parents=True)
    for script in (home / "agent.sh", home / "tools" / "agent.py"):
        script.write_text("")
    argv = ["sh", str(home / "agent.sh"), str(home / "tools" / "agent.py"), "--flag"]
    assert sandbox.program_paths(argv, home) == [home / "agent.sh", home / "tools"]
    kept = sandbox.kept_visible({"PATH": f".:bin:{home}:{home / 'tools'}"}, home)
    assert kept == (home / "tools",)


def test_the_private_folder_is_hidden_but_for_what_agents_use(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for folder in (
        ws / ".deepresearch" / "bin",
        ws / ".deepresearch" / "locks",
        ws / "logs" / "calls" / "E1",
    ):
        folder.mkdir(parents=True)
    copy = tmp_path / "scratch" / "0-.claude"
    copy.mkdir(parents=True)
    confinement = Confinement(
        workspace=ws,
        home=tmp_path / "home",
        writable=(ws / "logs" / "calls" / "E1",),
        copies=((copy, tmp_path / "home" / ".claude"),),
        concealed=(ws / ".deepresearch",),
        revealed=(ws / ".deepresearch" / "bin",),
    )
    argv = sandbox.confine("/usr/bin/bwrap", confinement, ["true"])
    pairs = [(argv[i], argv[i + 1]) for i in range(len(argv) - 1)]
    assert pairs.index(("--ro-bind", str(ws))) < pairs.index(("--tmpfs", str(ws / ".deepresearch")))
    assert pairs.index(("--tmpfs", str(ws / ".deepresearch"))) < pairs.index(
        ("--ro-bind", str(ws / ".deepresearch" / "bin"))
    )
    assert ("--bind", str(copy)) in pairs and argv[argv.index(str(copy)) + 1] == str(
        tmp_path / "home" / ".claude"
    )
    assert str(ws / ".deepresearch" / "locks") not in argv


def test_a_confined_root_cannot_remount_the_file_system_writable(tmp_path: Path) -> None:
    proc = confined(tmp_path, "mount -o remount,rw / 2>&1; touch /usr/deepresearch-pwned 2>&1; echo done")
    assert "done" in proc.stdout and not Path("/usr/deepresearch-pwned").exists()


def test_a_confined_process_cannot_unmount_the_empty_home_to_see_beneath(tmp_path: Path) -> None:
    home = tmp_path / "home"
    proc = confined(tmp_path, f"umount -l {home} 2>&1; cat {home}/.ssh/id_rsa 2>&1; echo done")
    assert "done" in proc.stdout and "PLANTED KEY" not in proc.stdout + proc.stderr
