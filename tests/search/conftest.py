"""Fixtures for the search tests: the mock provider server, an offline environment, the CLI runner."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from tests.inprocess import run_in_process
from tests.search.search_mock_server import KEY_VARS, PROVIDERS, MockProviders, closed_port

REPO = Path(__file__).resolve().parents[2]


def _scrubbed(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` without real API keys or deepresearch settings, so nothing leaks into a test."""
    return {
        k: v for k, v in environ.items() if not k.startswith("DEEPRESEARCH_") and k not in KEY_VARS.values()
    }


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No real keys, no user config, and every provider pointed at a closed local port by default:
    a test that forgets to set a base URL fails to connect instead of reaching the internet."""
    for name in list(os.environ):
        if name.startswith("DEEPRESEARCH_") or name in KEY_VARS.values():
            monkeypatch.delenv(name)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    port = closed_port()
    for provider in PROVIDERS:
        monkeypatch.setenv(f"DEEPRESEARCH_{provider.upper()}_BASE_URL", f"http://127.0.0.1:{port}/{provider}")


@pytest.fixture
def server() -> Iterator[MockProviders]:
    """A fresh mock provider server per test: requests a test abandons (race) cannot reach the next."""
    mock = MockProviders().start()
    yield mock
    mock.stop()


@pytest.fixture
def cli_env(server: MockProviders) -> dict[str, str]:
    """Environment for a `python -m deepresearch` subprocess: all providers keyed and local."""
    env = _scrubbed(os.environ)
    env.update(server.env())
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_cli(cli_env: dict[str, str], tmp_path: Path) -> RunCli:
    """Run `deepresearch ARGS` (env: `cli_env` plus `extra_env`; cwd: tmp_path) through the command's
    entry point in this process (tests/inprocess.py); the tests that need processes (several at
    once, an agent's tool script) start them themselves."""

    def run(*args: str, extra_env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return run_in_process(list(args), {**cli_env, **(extra_env or {})}, tmp_path)

    return run
