"""The command line as a user meets it: help, version, first-run errors, and the installed wheel."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from deepresearch.core.errors import ExitCode
from tests.helpers import REPO, PageServer, write_scenario, write_workspace_config

OPTIONS = ["-p", "--prompt", "-f", "--file", "-o", "--workdir", "--agent", "--model", "--max-rounds",
           "--concurrency", "--agent-timeout", "--version", "--debug", "--help", "--resume", "--new"]  # fmt: skip


def cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deepresearch", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_help_lists_every_option_and_examples(tmp_path: Path, clean_env: dict[str, str]) -> None:
    proc = cli(["--help"], {**clean_env, "COLUMNS": "200"}, tmp_path)
    assert proc.returncode == 0
    for option in OPTIONS:
        assert option in proc.stdout, option
    assert "Examples:" in proc.stdout and "Exit codes:" in proc.stdout
    for command in ("archive", "search", "check", "batch", "doctor"):
        assert command in proc.stdout
    codes = " ".join(proc.stdout.split("Exit codes:")[1].split())  # rich may wrap the paragraph
    for code in ExitCode:
        assert f" {code.value} " in f" {codes}", f"exit code {code.value} ({code.name}) is not explained"


# What `deepresearch --help` must not pay for: each is imported by the command that uses it.
HEAVY_MODULES = ("playwright", "trafilatura", "matplotlib", "pypdf", "ray", "lxml", "docx",
                 "deepresearch.pipeline", "deepresearch.service.server", "deepresearch.sources.archive")  # fmt: skip


def _heavy_imports(modules: str, heavy: tuple[str, ...], cwd: Path, env: dict[str, str]) -> str:
    """The heavy modules a fresh interpreter has loaded after importing `modules`."""
    code = (
        f"import sys, {modules}\n"
        f"heavy = {heavy!r}\n"
        "print(sorted({m for m in sys.modules for h in heavy if m == h or m.startswith(h + '.')}))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_the_cli_app_imports_no_heavy_module(clean_env: dict[str, str], tmp_path: Path) -> None:
    found = _heavy_imports("deepresearch.cli.app", HEAVY_MODULES, tmp_path, clean_env)
    assert found == "[]", f"imported at start-up: {found}"


def test_status_and_check_import_no_page_reading_library(clean_env: dict[str, str], tmp_path: Path) -> None:
    """`status` and `check` read task.md, report.md and archives: no browser, extractor or PDF reader."""
    modules = "deepresearch.pipeline.status, deepresearch.report.finalize, deepresearch.report.check"
    heavy = ("playwright", "trafilatura", "pypdf", "matplotlib", "ray", "docx")
    found = _heavy_imports(modules, heavy, tmp_path, clean_env)
    assert found == "[]", f"imported by status or check: {found}"


def test_status_imports_no_report_checks(clean_env: dict[str, str], tmp_path: Path) -> None:
    """`status` only reads: it loads neither the report's checks nor the number reader (compiled unit
    tables), which a finished run's status once paid ~1 s for through the follow-up modules."""
    heavy = ("deepresearch.report.finalize", "deepresearch.report.check", "deepresearch.evidence")
    found = _heavy_imports("deepresearch.pipeline.status, deepresearch.ui.render", heavy, tmp_path, clean_env)
    assert found == "[]", f"imported by status: {found}"


def test_version(tmp_path: Path, clean_env: dict[str, str]) -> None:
    proc = cli(["--version"], clean_env, tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("deepresearch 0.")


def test_no_agent_cli_installed_lists_how_to_install_each(tmp_path: Path, clean_env: dict[str, str]) -> None:
    env = {**clean_env, "PATH": str(tmp_path / "empty-bin")}
    proc = cli(["-p", "What is the tallest tree?"], env, tmp_path)
    assert proc.returncode == 6, proc.stderr
    for install in ("npm install -g @github/copilot", "npm install -g @anthropic-ai/claude-code",
                    "npm install -g @google/gemini-cli", "npm install -g @openai/codex"):  # fmt: skip
        assert install in proc.stderr
    assert not (tmp_path / "task.md").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-p", "   "], "the question given with -p is empty"),
        (["-f", "missing.md"], "request file not found: missing.md"),
        ([], "no question given and no terminal to ask one on"),
        (["--max-rounds", "0", "-p", "q"], "command line: max_rounds: must be greater than 0, got 0"),
    ],
)
def test_bad_input_gets_a_clear_error(
    tmp_path: Path, clean_env: dict[str, str], args: list[str], message: str
) -> None:
    write_workspace_config(tmp_path)
    proc = cli(args, clean_env, tmp_path)
    assert proc.returncode in (2, 3), proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_built_wheel_runs_a_research_outside_the_checkout(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(REPO)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    wheel = next(dist.glob("deepresearch-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        timeout=300,
    )
    # The dependencies come from this environment; deepresearch itself only from the wheel.
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(site, "test-deps.pth").write_text("\n".join(sorted(ours)) + "\n")
    env = {k: v for k, v in clean_env.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    where = subprocess.run([str(py), "-c", "import deepresearch.pipeline.prompts as p; print(p.prompts_dir())"],
                           cwd=outside, env=env, capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert where.startswith(str(venv)), where
    write_workspace_config(outside, analysis="never", max_figures=0)
    scenario = write_scenario(tmp_path / "s.yaml", {"page_base": pages.base_url})
    proc = subprocess.run(
        [str(venv / "bin" / "deepresearch"), "-p", "What do the indexes say?"],
        cwd=outside, env={**env, "FAKE_AGENT_SCENARIO": str(scenario)}, capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (outside / "report.md").is_file() and "research completed" in proc.stdout
    # The archive command agents ran: the workspace's tool script, running the wheel's interpreter.
    script = outside / ".deepresearch" / "bin" / "deepresearch-archive"
    assert str(script) in (outside / "logs" / "prompts" / "E1.md").read_text()
    assert str(venv) in script.read_text()
    # The demo ships in the wheel: its scripted agent, script and pages run from the installed package.
    demo = subprocess.run(
        [str(venv / "bin" / "deepresearch"), "demo", "-q", "-o", "demo"],
        cwd=outside, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "verified: every check passed" in demo.stdout
    assert str(venv) in (outside / "demo" / "deepresearch.yaml").read_text()  # the wheel's interpreter


def test_ctrl_c_in_a_subcommand_exits_130_with_the_message(tmp_path: Path, clean_env: dict[str, str]) -> None:
    """typer hands Ctrl-C back as an exit code when not standalone; it must not become exit 0."""
    import signal
    import socket
    import time

    silent = socket.socket()  # a search provider that accepts and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)
    silent.settimeout(60)
    env = {
        **clean_env,
        "DEEPRESEARCH_SEARCH_PROVIDERS": "duckduckgo",
        "DEEPRESEARCH_DUCKDUCKGO_BASE_URL": f"http://127.0.0.1:{silent.getsockname()[1]}",
        "DEEPRESEARCH_SEARCH_TIMEOUT": "60",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "deepresearch", "search", "anything", "--workdir", str(tmp_path)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        connection, _ = silent.accept()  # the search is under way
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        silent.close()
    assert proc.returncode == 130, err
    assert "interrupted" in err
    connection.close()
