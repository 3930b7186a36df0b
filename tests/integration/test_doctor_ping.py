"""`deepresearch doctor --ping` with the real CLIs: each one makes a one-line round trip to the
scripted model server through its backend (argv, environment, parsing); a 401 reads as logged out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from deepresearch.agents.registry import DETECTION_ORDER
from deepresearch.core.errors import ExitCode
from tests.integration.harness import (
    CLIS,
    PROVIDER_KEY,
    clis_to_test,
    codex_provider_args,
    endpoint_env,
    isolated_env,
    require_cli,
)
from tests.model_server import Fault, ModelServer, Script

pytestmark = pytest.mark.integration

INSTALLED = clis_to_test()
# The path each CLI's ping reaches (gemini without a configured model first asks which one to use).
PATHS = {
    "claude": "/v1/messages",
    "gemini": ":streamGenerateContent",
    "codex": "/v1/responses",
    "copilot": "/v1/chat/completions",
    "opencode": "/v1/chat/completions",
    "qwen": "/v1/chat/completions",
}


def doctor_ping(
    tmp_path: Path, clean_env: dict[str, str], faults: list[Fault]
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run `deepresearch doctor --ping` with every installed CLI aimed at one scripted server."""
    work, home = tmp_path / "ws", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    with ModelServer(Script(work, "http://127.0.0.1:9", faults)) as server:
        env = isolated_env(clean_env, home, [require_cli(name).parent for name in INSTALLED])
        for name in INSTALLED:
            env.update(endpoint_env(name, server.base_url, home))
        # One model name for every CLI (opencode, whose models are provider/model, uses the default
        # of its own config for a bare name).
        config = {
            "model": "test-model",
            "backend_args": {"codex": codex_provider_args(server.base_url)},
            "agent_env": [PROVIDER_KEY],  # codex's custom provider key, passed by name
        }
        (work / "deepresearch.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        proc = subprocess.run(
            [sys.executable, "-m", "deepresearch", "doctor", "--ping", "-o", str(work)],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    return proc, [seen.path for seen in server.requests]


def test_ping_reaches_the_model_through_every_cli(tmp_path: Path, clean_env: dict[str, str]) -> None:
    for name in CLIS:
        require_cli(name)
    proc, paths = doctor_ping(tmp_path, clean_env, [])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in INSTALLED:
        line = next(line for line in proc.stdout.splitlines() if line.startswith(f"  ✓ {name} "))
        assert "logged in: ping answered in" in line and line.endswith("'OK'"), line
        assert any(PATHS[name] in path for path in paths), (name, paths)
    assert "Usable agent CLIs: " + ", ".join(n for n in DETECTION_ORDER if n in INSTALLED) in proc.stdout


def test_ping_answered_401_is_not_logged_in(tmp_path: Path, clean_env: dict[str, str]) -> None:
    for name in CLIS:
        require_cli(name)
    proc, _ = doctor_ping(tmp_path, clean_env, [Fault(401)])
    assert proc.returncode == ExitCode.NO_AGENT, proc.stdout + proc.stderr
    for name in INSTALLED:
        assert f"✗ {name} is not logged in (ping refused (HTTP 401))" in proc.stdout, proc.stdout
    assert "Usable agent CLIs: none" in proc.stdout
