"""Running the real agent CLIs through `deepresearch -p` against the scripted model server.

Where the CLIs are: `.ci/agent-clis/node_modules/.bin` (installed by `.ci/install-agent-clis`), else
on PATH. Each CLI is pointed at the model server the way a user points it at a proxy or a local
model: environment variables for claude, gemini and copilot, a custom provider in `backend_args`
for codex (it ignores OPENAI_BASE_URL), and an OpenAI-compatible provider in the user's own config
for opencode (`~/.config/opencode/opencode.json`) and qwen (`~/.qwen/settings.json`), as the README's
"With a local model" sets up Ollama. HOME is a fresh folder, so no user login or setting leaks in.

With REQUIRE_AGENT_CLI_TESTS=1 (as `.ci/run` sets it) a missing CLI fails its tests instead of
skipping them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import LOCAL_HOSTS, REPO

CLI_BIN = REPO / ".ci" / "agent-clis" / "node_modules" / ".bin"
CLIS = ("claude", "gemini", "codex", "copilot", "opencode", "qwen")
MODELS = {
    "claude": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "codex": "gpt-5-codex",
    "copilot": "gpt-4.1",
    "opencode": "scripted/test-model",  # provider/model, as opencode names it
    "qwen": "test-model",
}
API_KEY = "scripted-test-key"
PROVIDER_KEY = "SCRIPTED_MODEL_KEY"  # the environment variable codex's custom provider reads its key from


# Set by .ci/run, which installs the CLIs: a test whose CLI is missing then fails instead of skipping,
# so a broken install cannot hide behind "skipped".
REQUIRE_CLIS = "REQUIRE_AGENT_CLI_TESTS"


def require_cli(name: str) -> Path:
    """The CLI's executable; skips the test without it (fails instead when REQUIRE_AGENT_CLI_TESTS=1)."""
    found = find_cli(name)
    if found is not None:
        return found
    reason = f"{name} is not installed: run .ci/install-agent-clis (or put {name} on PATH)"
    if os.environ.get(REQUIRE_CLIS, "") not in ("", "0"):
        pytest.fail(f"{reason}, and {REQUIRE_CLIS} is set")
    pytest.skip(reason)


def cli_param(name: str, *values: object, id: str | None = None) -> object:
    """A test parameter for the CLI `name`: skipped with a reason when it is not installed, unless
    REQUIRE_AGENT_CLI_TESTS is set (then the test runs and fails on the missing CLI)."""
    required = os.environ.get(REQUIRE_CLIS, "") not in ("", "0")
    reason = f"{name} is not installed: run .ci/install-agent-clis (or put {name} on PATH)"
    marks = [] if required else [pytest.mark.skipif(find_cli(name) is None, reason=reason)]
    return pytest.param(name, *values, marks=marks, id=id or name)


def clis_to_test() -> list[str]:
    """The CLIs a test over every installed CLI covers: all of them when they are required."""
    if os.environ.get(REQUIRE_CLIS, "") not in ("", "0"):
        return list(CLIS)
    return [name for name in CLIS if find_cli(name) is not None]


def find_cli(name: str) -> Path | None:
    """The CLI's executable: the CI install first, else PATH; None when neither has it."""
    local = CLI_BIN / name
    if local.exists():
        return local
    found = shutil.which(name)
    return Path(found) if found else None


def cli_env(name: str, server_url: str, home: Path, base: dict[str, str]) -> dict[str, str]:
    """`base` with HOME at `home`, the CLI's folder first on PATH, and the CLI aimed at the server."""
    cli = require_cli(name)
    return {**isolated_env(base, home, [cli.parent]), **endpoint_env(name, server_url, home)}


def isolated_env(base: dict[str, str], home: Path, bin_dirs: list[Path]) -> dict[str, str]:
    """`base` without any model credentials, with HOME at `home` and `bin_dirs` first on PATH."""
    env = {
        k: v for k, v in base.items() if not k.startswith(("ANTHROPIC_", "GEMINI_", "GOOGLE_", "COPILOT_"))
    }
    for name in ("OPENAI_API_KEY", "GH_TOKEN", "GITHUB_TOKEN"):
        env.pop(name, None)
    path = os.pathsep.join([*dict.fromkeys(str(d) for d in bin_dirs), base.get("PATH", "")])
    env.update(HOME=str(home), PATH=path, NO_COLOR="1")
    return env


def endpoint_env(name: str, server_url: str, home: Path) -> dict[str, str]:
    """The variables that aim one CLI at the server (codex also needs `codex_provider_args`)."""
    if name == "claude":
        return {"ANTHROPIC_BASE_URL": server_url, "ANTHROPIC_API_KEY": API_KEY}
    if name == "gemini":
        # A user's own setting, which the backend keeps: one attempt inside gemini instead of two
        # (each of its retries waits ~5 s), so our backoff does all the retrying.
        settings = home / ".gemini" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps({"general": {"maxAttempts": 1}}), encoding="utf-8")
        return {"GOOGLE_GEMINI_BASE_URL": server_url, "GEMINI_API_KEY": API_KEY}
    if name == "copilot":
        return {
            "COPILOT_PROVIDER_BASE_URL": f"{server_url}/v1",
            "COPILOT_PROVIDER_API_KEY": API_KEY,
            "COPILOT_OFFLINE": "true",
        }
    if name == "opencode":
        write_json(home / ".config" / "opencode" / "opencode.json", opencode_user_config(server_url))
        return {"XDG_CONFIG_HOME": str(home / ".config"), "OPENAI_API_KEY": API_KEY}
    if name == "qwen":
        write_json(home / ".qwen" / "settings.json", qwen_user_settings(server_url))
        return {"OPENAI_API_KEY": API_KEY}
    # codex: the custom provider's env_key. Its sandbox links a helper under its home, which it
    # refuses to do inside the temp folder; the test home is in /tmp, so the temp folder moves.
    tmpdir = home.parent / "codex-tmp"
    tmpdir.mkdir(exist_ok=True)
    return {PROVIDER_KEY: API_KEY, "TMPDIR": str(tmpdir)}


def opencode_user_config(server_url: str) -> dict[str, Any]:
    """A user's opencode.json with the server as an OpenAI-compatible provider (as for Ollama)."""
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Scripted model server",
        "options": {"baseURL": f"{server_url}/v1", "apiKey": "{env:OPENAI_API_KEY}"},
        "models": {"test-model": {"name": "Test model", "cost": {"input": 1.0, "output": 2.0}}},
    }
    return {
        "$schema": "https://opencode.ai/config.json",
        "provider": {"scripted": provider},
        "model": "scripted/test-model",
    }


def qwen_user_settings(server_url: str) -> dict[str, Any]:
    """A user's ~/.qwen/settings.json with the server as an OpenAI-compatible provider."""
    provider = {
        "id": "test-model",
        "name": "Test model",
        "baseUrl": f"{server_url}/v1",
        "envKey": "OPENAI_API_KEY",
    }
    return {
        "$version": 4,
        "modelProviders": {"openai": [provider]},
        "security": {"auth": {"selectedType": "openai"}},
        "model": {"name": "test-model"},
    }


def write_json(path: Path, value: dict[str, Any]) -> None:
    """Write `value` as JSON, creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def codex_provider_args(server_url: str) -> list[str]:
    """`-c` options that give codex a custom provider at the server (Responses API over HTTP SSE)."""
    provider = (
        f'{{name="scripted",base_url="{server_url}/v1",env_key="{PROVIDER_KEY}",wire_api="responses",'
        "supports_websockets=false,request_max_retries=0,stream_max_retries=0}"
    )
    return ["-c", 'model_provider="scripted"', "-c", f"model_providers.scripted={provider}"]


def write_config(workdir: Path, name: str, server_url: str, **settings: Any) -> None:
    """deepresearch.yaml for one quick run with the real CLI `name`."""
    config: dict[str, Any] = {
        "agent": name,
        "model": MODELS[name],
        "max_rounds": 1,
        "concurrency": 1,
        "agent_timeout": 120,
        "retries": 1,
        "backoff_base": 0.2,
        "max_batches": 1,
        # The analyst and chart roles are writers like the reflector: the fake-agent tests cover them.
        "analysis": "never",
        "max_figures": 0,
        "allow_private_hosts": LOCAL_HOSTS,  # the test pages are on 127.0.0.1
    }
    if name == "codex":
        config["backend_args"] = {"codex": codex_provider_args(server_url)}
        config["agent_env"] = [PROVIDER_KEY]  # a custom provider's key passes only by name
    config.update(settings)
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "deepresearch.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def run_deepresearch(
    args: list[str], env: dict[str, str], cwd: Path, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    """`python -m deepresearch ARGS` as a real subprocess. Past `timeout` it gets SIGTERM, which
    makes it stop its agents (each in its own process group) and exit 130, as Ctrl-C would."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "deepresearch", *args],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        err += f"\n(test harness: stopped after {timeout:.0f}s)"
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def events(workdir: Path) -> list[dict[str, Any]]:
    """logs/events.jsonl of a run."""
    path = workdir / "logs" / "events.jsonl"
    return (
        [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []
    )


def attempts(workdir: Path, who: str) -> list[dict[str, Any]]:
    """The agent_finished events of a role, or of one call by its label (E1), in order."""
    return [e for e in events(workdir) if e["event"] == "agent_finished" and who in (e["role"], e["label"])]


@dataclass(frozen=True)
class Leftover:
    """A process that is still alive and belongs to a finished run."""

    pid: int
    pgid: int
    cmdline: str


def leftovers(workdir: Path, groups: set[int]) -> list[Leftover]:
    """Live processes in one of `groups` or running in `workdir`, after a short grace period."""
    deadline = time.monotonic() + 5
    while True:
        found = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                pgid = os.getpgid(int(proc.name))
                cwd = os.readlink(proc / "cwd")
                cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, ProcessLookupError):
                continue
            if state != "Z" and (pgid in groups or cwd == str(workdir) or cwd.startswith(f"{workdir}/")):
                found.append(Leftover(int(proc.name), pgid, cmdline.strip()))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)
