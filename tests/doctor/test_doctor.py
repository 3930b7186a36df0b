"""`deepresearch doctor` against fake agent CLIs: small scripts on a temporary PATH that print
versions, login states and ping answers in each real CLI's format, or fail."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from deepresearch.core.errors import ExitCode
from deepresearch.doctor import DoctorReport, run_doctor
from deepresearch.doctor.checks import CHROMIUM_FIX
from deepresearch.sources.chromiums import playwright_chromium
from tests.helpers import REPO, skip_without_browser
from tests.search.search_mock_server import MockProviders, closed_port

CLAUDE_OK = json.dumps(
    {"type": "result", "subtype": "success", "is_error": False, "result": "OK", "session_id": "s1"}
)
CLAUDE_401 = json.dumps(
    {
        "type": "result",
        "subtype": "success",
        "is_error": True,
        "api_error_status": 401,
        "result": "Invalid API key",
    }
)
CODEX_OK = "\n".join(
    json.dumps(e)
    for e in (
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "OK"}},
        {"type": "turn.completed", "usage": {"input_tokens": 5, "output_tokens": 1}},
    )
)


def fake_cli(bin_dir: Path, name: str, cases: dict[str, str], default: str = "exit 9") -> None:
    """An executable `name` whose behaviour is picked by its first argument (a shell `case`)."""
    branches = "".join(f"  {pattern}) {body} ;;\n" for pattern, body in cases.items())
    script = f'#!/bin/sh\ncase "$1" in\n{branches}  *) {default} ;;\nesac\n'
    path = bin_dir / name
    path.write_text(script, encoding="utf-8")
    path.chmod(0o755)


def say(text: str, code: int = 0) -> str:
    """A shell branch body that prints `text` and exits with `code`."""
    quoted = text.replace("'", "'\\''")
    return f"printf '%s\\n' '{quoted}'; exit {code}"


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


@pytest.fixture
def env(clean_env: dict[str, str], bin_dir: Path, tmp_path: Path) -> dict[str, str]:
    """Only the fake CLIs on PATH (and sh for their scripts), a fresh HOME, no API keys."""
    keep = ("XDG_CONFIG_HOME", "PYTHONPATH", "LANG")
    environ = {k: v for k, v in clean_env.items() if k in keep}
    home = tmp_path / "home"
    home.mkdir()
    # doctor tries the keyless search for real: here it finds nothing listening (never the internet).
    offline = f"http://127.0.0.1:{closed_port()}"
    return {
        **environ,
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(home),
        "DEEPRESEARCH_DUCKDUCKGO_BASE_URL": offline,
    }


def install_mixed(bin_dir: Path) -> None:
    """claude logged out, codex logged in, copilot broken, gemini absent."""
    fake_cli(bin_dir, "claude", {
        "--version": say("2.1.329 (Claude Code)"),
        "auth": say('{"loggedIn": false, "authMethod": "none"}', 1),
        "-p": say(CLAUDE_401, 1),
    })  # fmt: skip
    fake_cli(bin_dir, "codex", {
        "--version": say("codex-cli 0.169.0"),
        "login": say("Logged in using an API key - sk-***"),
        "exec": say(CODEX_OK),
    })  # fmt: skip
    fake_cli(bin_dir, "copilot", {"--version": say("Segmentation fault", 139)})


def agent(report: DoctorReport, name: str) -> tuple[str | None, bool | None, str]:
    found = next(a for a in report.agents if a.name == name)
    return found.version, found.logged_in, found.login


def test_each_cli_is_found_with_its_version_and_login_state(
    tmp_path: Path, bin_dir: Path, env: dict[str, str]
) -> None:
    install_mixed(bin_dir)
    report = run_doctor(tmp_path, env)
    assert agent(report, "claude") == ("2.1.329", False, "from `claude auth status`")
    assert agent(report, "codex") == ("0.169.0", True, "from `codex login status`")
    assert agent(report, "gemini") == (None, None, "not installed")
    copilot = next(a for a in report.agents if a.name == "copilot")
    assert copilot.installed and not copilot.usable and copilot.fix.startswith("reinstall it: npm install")
    assert report.usable_agents == ["codex"]
    problems = dict(report.problems())
    assert problems["gemini is not installed"] == "npm install -g @google/gemini-cli"
    assert problems["claude is not logged in (from `claude auth status`)"].startswith("run `claude` once")


def test_ping_is_a_round_trip_through_each_backend(
    tmp_path: Path, bin_dir: Path, env: dict[str, str]
) -> None:
    install_mixed(bin_dir)
    fake_cli(
        bin_dir,
        "claude",
        {"--version": say("2.1.329"), "auth": say('{"loggedIn": true}'), "-p": say(CLAUDE_401, 1)},
    )
    report = run_doctor(tmp_path, env, ping=True)
    _, logged_in, login = agent(report, "claude")
    assert (logged_in, login) == (False, "ping refused (HTTP 401)"), "the status said yes, the API said no"
    _, logged_in, login = agent(report, "codex")
    assert logged_in is True and login.startswith("ping answered in") and login.endswith("'OK'")


def test_status_command_that_says_logged_out_needs_no_ping(
    tmp_path: Path, bin_dir: Path, env: dict[str, str]
) -> None:
    marker = tmp_path / "pinged"
    fake_cli(bin_dir, "codex", {"--version": say("codex-cli 0.169.0"), "login": say("Not logged in", 1),
                                "exec": f"touch {marker}; sleep 30"})  # fmt: skip
    report = run_doctor(tmp_path, env, ping=True)
    assert agent(report, "codex")[1:] == (False, "from `codex login status`")
    assert not marker.exists()


def test_clis_without_a_status_command_say_what_credentials_they_see(
    tmp_path: Path, bin_dir: Path, env: dict[str, str]
) -> None:
    fake_cli(bin_dir, "gemini", {"--version": say("0.61.0")})
    fake_cli(bin_dir, "copilot", {"--version": say("GitHub Copilot CLI 1.0.102.")})
    report = run_doctor(tmp_path, {**env, "GH_TOKEN": "ghp_x"})
    assert agent(report, "copilot") == ("1.0.102", None, "unknown — GH_TOKEN set; run with --ping to check")
    assert agent(report, "gemini")[2].startswith("unknown — no API key or token in the environment")
    assert report.usable_agents == ["copilot", "gemini"], "unknown is not known to be logged out"


def test_search_providers_follow_config_order_and_keys(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "deepresearch.yaml").write_text(yaml.safe_dump({"search_providers": ["tavily", "serper"]}))
    report = run_doctor(tmp_path, {**env, "SERPER_API_KEY": "k"})
    assert report.search.providers == [
        ("tavily", "TAVILY_API_KEY", False),
        ("serper", "SERPER_API_KEY", True),
    ]
    assert report.search.problems() == []
    report = run_doctor(tmp_path, env)
    assert report.search.problems() == [
        (
            "no search provider can be used: agents can only use their own web search",
            "set TAVILY_API_KEY or SERPER_API_KEY",
        )
    ]


@pytest.mark.browser
def test_chromium_is_launched_for_real(tmp_path: Path, env: dict[str, str]) -> None:
    if not shutil.which("chromium") and playwright_chromium(env) is None:
        skip_without_browser("no Chromium on this machine")
    browser = run_doctor(tmp_path, env).browser
    assert browser.launched and browser.detail.endswith("launched headless") and browser.problems() == []


def test_a_chromium_that_does_not_start_is_a_problem_with_its_fix(
    tmp_path: Path, env: dict[str, str]
) -> None:
    if playwright_chromium(env) is not None:
        pytest.skip("Playwright's own Chromium is installed and would be launched first")
    broken = tmp_path / "not-chromium"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    (tmp_path / "deepresearch.yaml").write_text(yaml.safe_dump({"chromium_path": str(broken)}))
    browser = run_doctor(tmp_path, env).browser
    assert not browser.launched and str(broken) in browser.detail
    assert browser.problems()[0][1] == CHROMIUM_FIX


def test_workspace_state_lock_and_report(tmp_path: Path, env: dict[str, str]) -> None:
    shutil.copy(REPO / "task.md.example", tmp_path / "task.md")
    (tmp_path / ".deepresearch").mkdir()
    (tmp_path / ".deepresearch" / "lock").write_text(json.dumps({"pid": 999_999_999, "host": ""}))
    (tmp_path / "report.md").write_text("# Report\n\nThe market doubled in 2024 [S99].\n", encoding="utf-8")
    check = run_doctor(tmp_path, env).workspace
    assert check.has_run and check.question and check.status
    assert check.lock == "stale, from pid 999999999 (the next run takes it over)"
    assert check.report.endswith("verification problems")
    fixes = [fix for _, fix in check.problems]
    assert f"deepresearch check {tmp_path}" in fixes


def test_a_broken_task_md_is_named_with_its_line(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "task.md").write_text("---\nid: x\nquestion: [unclosed\n---\n", encoding="utf-8")
    check = run_doctor(tmp_path, env).workspace
    (what, fix), *_ = check.problems
    assert what.startswith("task.md does not load: ") and "--new" in fix


def doctor_cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deepresearch", "doctor", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_command_exits_6_when_no_cli_is_usable(tmp_path: Path, bin_dir: Path, env: dict[str, str]) -> None:
    fake_cli(bin_dir, "claude", {"--version": say("2.1.329"), "auth": say('{"loggedIn": false}', 1)})
    proc = doctor_cli(["-o", str(tmp_path)], env, tmp_path)
    assert proc.returncode == ExitCode.NO_AGENT, proc.stdout + proc.stderr
    assert "✗ claude   2.1.329   not logged in: from `claude auth status`" in proc.stdout
    assert "→ npm install -g @openai/codex" in proc.stdout
    assert "Usable agent CLIs: none" in proc.stdout
    assert "no usable agent CLI" in proc.stderr


def test_command_exits_0_with_one_usable_cli(tmp_path: Path, bin_dir: Path, env: dict[str, str]) -> None:
    install_mixed(bin_dir)
    proc = doctor_cli(["--ping", "-o", str(tmp_path)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Agent CLIs (pinged)" in proc.stdout and "Usable agent CLIs: codex" in proc.stdout
    assert "Workspace " + str(tmp_path) in proc.stdout and f"no run in {tmp_path} (no task.md)" in proc.stdout


def test_a_configured_custom_command_is_checked_and_pinged(
    tmp_path: Path, bin_dir: Path, env: dict[str, str]
) -> None:
    fake_cli(bin_dir, "mycli", {"--prompt": say('{"text": "OK", "input_tokens": 3}')})
    config = {"agent": "custom", "custom_command": ["mycli", "--prompt", "{prompt}"]}
    (tmp_path / "deepresearch.yaml").write_text(yaml.safe_dump(config))
    assert agent(run_doctor(tmp_path, env), "custom") == ("unknown", None, "unknown — run with --ping")
    _, logged_in, login = agent(run_doctor(tmp_path, env, ping=True), "custom")
    assert logged_in is True and login.endswith("'OK'")


def test_a_broken_custom_command_is_a_problem(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "deepresearch.yaml").write_text(yaml.safe_dump({"custom_command": ["{prompt}"]}))
    report = run_doctor(tmp_path, env)
    (what, fix), *_ = [p for p in report.problems() if p[0].startswith("custom")]
    assert what.startswith("custom cannot be used: ") and "custom_command" in what + fix


def test_doctor_shows_each_clis_permission_profile_and_the_sandbox(
    tmp_path: Path, bin_dir: Path, env: dict[str, str]
) -> None:
    install_mixed(bin_dir)
    proc = doctor_cli(["-o", str(tmp_path)], env, tmp_path)
    out = proc.stdout
    assert "Permission profiles (each installed CLI's own rules, as a run sets them; --verbose" in out
    for name in ("copilot", "claude", "codex"):  # installed (copilot's --version fails, but it is there)
        assert re.search(rf"^  {name} +researchers: ", out, re.M), name
    assert not re.search(r"^  gemini +researchers: ", out, re.M), "gemini is not installed"
    assert "--permission-mode dontAsk" in out and "--allow-tool=shell(" in out
    assert "? cannot express: cannot limit which commands run" in out  # codex
    verbose = doctor_cli(["-o", str(tmp_path), "--verbose"], env, tmp_path).stdout
    assert re.search(r"^  gemini +researchers: ", verbose, re.M) and "commandPrefix" in verbose
    assert "OS sandbox (bubblewrap around every agent process)" in out
    from deepresearch.core.sandbox import probe

    if probe().works:
        assert "✓ agents run in bubblewrap (bubblewrap" in out and "sandbox: auto" in out
    else:
        assert "not available" in out


def test_without_bubblewrap_doctor_says_how_to_get_it(
    tmp_path: Path, bin_dir: Path, env: dict[str, str]
) -> None:
    install_mixed(bin_dir)
    bare = {**env, "PATH": str(bin_dir)}  # no bwrap (the fake CLIs need only /bin/sh)
    proc = doctor_cli(["-o", str(tmp_path)], bare, tmp_path)
    assert "✗ not available (bwrap not found on PATH)" in proc.stdout
    assert "✗ bubblewrap is not installed: agents run without an OS sandbox" in proc.stdout
    assert "→ install bubblewrap (Debian/Ubuntu: `sudo apt-get install bubblewrap`)" in proc.stdout
    (tmp_path / "deepresearch.yaml").write_text(yaml.safe_dump({"sandbox": "bwrap"}))
    strict = doctor_cli(["-o", str(tmp_path)], bare, tmp_path)
    assert "sandbox: is bwrap, but bubblewrap is not installed" in strict.stdout  # what a run would refuse


def test_a_bubblewrap_that_cannot_create_namespaces_gets_the_namespace_fix_not_an_install_hint(
    tmp_path: Path, bin_dir: Path, env: dict[str, str]
) -> None:
    install_mixed(bin_dir)
    bwrap = bin_dir / "bwrap"  # installed, but the kernel refuses it user namespaces
    bwrap.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    bwrap.chmod(0o755)
    bare = {**env, "PATH": str(bin_dir)}
    (tmp_path / "deepresearch.yaml").write_text(yaml.safe_dump({"sandbox": "bwrap"}))
    out = doctor_cli(["-o", str(tmp_path)], bare, tmp_path).stdout
    assert "sandbox: is bwrap, but bubblewrap cannot create a sandbox here" in out
    assert "unprivileged user namespaces" in out and "install bubblewrap" not in out
    assert "agents run without" not in out and "their CLIs' own rules only" not in out
    assert "a run refuses to start (sandbox: bwrap)" in out  # what a run does instead


def test_the_keyless_search_is_tried_for_real(tmp_path: Path, bin_dir: Path, env: dict[str, str]) -> None:
    install_mixed(bin_dir)
    down = doctor_cli(["-o", str(tmp_path)], env, tmp_path).stdout  # nothing listens at its address
    assert re.search(r"✗ duckduckgo +keyless: unreachable", down)
    assert "✗ duckduckgo did not answer a test search: unreachable" in down
    assert "→ check this machine's internet connection" in down
    server = MockProviders().start()
    try:
        answering = {**env, "DEEPRESEARCH_DUCKDUCKGO_BASE_URL": server.base_url("duckduckgo")}
        up = doctor_cli(["-o", str(tmp_path)], answering, tmp_path).stdout
        assert server.hits["duckduckgo"] == 1
    finally:
        server.stop()
    assert re.search(r"✓ duckduckgo +keyless: answered a test search \(3 results, [\d.]+ s\)", up)
    assert "did not answer a test search" not in up


def test_with_no_agent_cli_doctor_points_to_the_demo(tmp_path: Path, env: dict[str, str]) -> None:
    proc = doctor_cli(["-o", str(tmp_path)], env, tmp_path)
    assert proc.returncode == ExitCode.NO_AGENT
    assert "Permission profiles" in proc.stdout and "none: no agent CLI is installed" in proc.stdout
    assert "deepresearch demo" in proc.stderr
    assert proc.stderr.count("install one") == 1, proc.stderr


def test_node_js_is_checked_when_a_cli_is_missing(tmp_path: Path, bin_dir: Path, env: dict[str, str]) -> None:
    bare = {**env, "PATH": str(bin_dir)}  # no node at all
    problems = dict(run_doctor(tmp_path, bare).problems())
    fix = problems["Node.js is not installed: the agent CLIs are npm packages that need Node.js 20+"]
    assert fix.startswith("install Node.js 20 or later with npm")
    fake_cli(bin_dir, "node", {"--version": say("v18.19.1")})
    report = run_doctor(tmp_path, bare)
    assert report.node == "18.19.1"
    assert "Node.js 18.19.1 is too old: the agent CLIs are npm packages that need Node.js 20+" in dict(
        report.problems()
    )
    fake_cli(bin_dir, "node", {"--version": say("v20.11.1")})
    assert not any("Node.js" in what for what, _ in run_doctor(tmp_path, bare).problems())


def test_doctor_says_what_of_the_environment_passes_to_each_cli_by_name_only(
    tmp_path: Path, bin_dir: Path, env: dict[str, str]
) -> None:
    install_mixed(bin_dir)
    (tmp_path / "deepresearch.yaml").write_text(yaml.safe_dump({"agent_env": ["MY_PROXY_TOKEN"]}))
    planted = {
        "GITHUB_TOKEN": "ghp-value",
        "AWS_SECRET_ACCESS_KEY": "aws-value",
        "ANTHROPIC_API_KEY": "sk-value",
    }
    proc = doctor_cli(["-o", str(tmp_path)], {**env, **planted, "MY_PROXY_TOKEN": "mine"}, tmp_path)
    out = proc.stdout
    section = out.split("Agent environments", 1)[1].split("OS sandbox", 1)[0]
    assert "every CLI  PATH, HOME" in section and "MY_PROXY_TOKEN" in section.split("copilot")[0]
    claude = section.split("  claude ")[1].split("  gemini ")[0]
    assert "set here and passed: ANTHROPIC_API_KEY" in claude and "MY_PROXY_TOKEN" in claude
    assert (
        "AWS_SECRET_ACCESS_KEY" in claude.split("withheld")[1]
        and "GITHUB_TOKEN" in claude.split("withheld")[1]
    )
    copilot = section.split("  copilot ")[1].split("  claude ")[0]
    assert "GITHUB_TOKEN" in copilot.split("withheld")[0]  # one of copilot's own credentials
    for value in planted.values():
        assert value not in out  # names only
