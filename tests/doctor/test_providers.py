"""`deepresearch doctor` for opencode and qwen: which OpenAI-compatible server their model resolves
to (from the user's own config), whether it answers, whether it serves that model — a real HTTP
`GET /models` against a server on 127.0.0.1, no model call."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from deepresearch.doctor import DoctorReport, run_doctor
from tests.doctor.test_doctor import fake_cli, say


class ModelList:
    """`GET /v1/models` as Ollama's OpenAI-compatible API answers it (or a fixed error status)."""

    def __init__(self, models: list[str], status: int = 200) -> None:
        self.keys: list[str] = []  # the Authorization header of each request
        seen = self.keys

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append(self.headers.get("Authorization", ""))
                body = json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in models]})
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def served() -> Iterator[ModelList]:
    server = ModelList(["qwen3:14b", "llama3.1:8b"])
    yield server
    server.close()


@pytest.fixture
def env(clean_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """opencode and qwen (fake executables) on PATH, a fresh HOME, no API keys."""
    bin_dir, home = tmp_path / "bin", tmp_path / "home"
    bin_dir.mkdir()
    home.mkdir()
    fake_cli(bin_dir, "opencode", {"--version": say("1.18.33")})
    fake_cli(bin_dir, "qwen", {"--version": say("0.15.10"), "auth": say("✓ Authentication Method: OpenAI")})
    keep = {k: v for k, v in clean_env.items() if k in ("PYTHONPATH", "LANG")}
    return {
        **keep,
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }


def user_configs(home: Path, base_url: str, model: str = "qwen3:14b") -> None:
    """The user's own opencode.json and ~/.qwen/settings.json for one local server (README)."""
    provider = {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": base_url}, "models": {model: {}}}
    opencode = home / ".config" / "opencode" / "opencode.json"
    opencode.parent.mkdir(parents=True)
    opencode.write_text(json.dumps({"provider": {"ollama": provider}, "model": f"ollama/{model}"}))
    qwen = home / ".qwen" / "settings.json"
    qwen.parent.mkdir()
    entry = {"id": model, "baseUrl": base_url, "envKey": "OPENAI_API_KEY"}
    qwen.write_text(json.dumps({"modelProviders": {"openai": [entry]}, "model": {"name": model}}))


def agent_problems(report: DoctorReport) -> list[tuple[str, str]]:
    """The problems the provider checks of opencode and qwen found."""
    return [(what, fix) for what, fix in report.problems() if what.startswith(("opencode: ", "qwen: "))]


def provider(report: DoctorReport, name: str) -> tuple[str, str, str]:
    check = next(a for a in report.agents if a.name == name).provider
    assert check is not None
    return check.detail, check.problem, check.fix


def test_a_served_model_is_reachable(tmp_path: Path, env: dict[str, str], served: ModelList) -> None:
    user_configs(Path(env["HOME"]), served.url)
    report = run_doctor(tmp_path, {**env, "OPENAI_API_KEY": "local-key"})
    assert provider(report, "opencode") == (f"ollama at {served.url}: reachable, serves qwen3:14b", "", "")
    assert provider(report, "qwen") == (f"openai at {served.url}: reachable, serves qwen3:14b", "", "")
    assert not agent_problems(report)
    # opencode's config names no key; qwen's envKey does (doctor checks the CLIs at once: either order)
    assert sorted(served.keys) == ["", "Bearer local-key"]


def test_a_model_the_server_does_not_serve_is_a_problem_with_its_fix(
    tmp_path: Path, env: dict[str, str], served: ModelList
) -> None:
    user_configs(Path(env["HOME"]), served.url)
    (tmp_path / "deepresearch.yaml").write_text(
        yaml.safe_dump({"agent": "opencode", "model": "ollama/qwen3:32b"})
    )
    report = run_doctor(tmp_path, env)
    detail, problem, fix = provider(report, "opencode")
    assert detail == f"ollama at {served.url}: reachable, qwen3:32b not served"
    assert (
        problem
        == f"opencode: the provider ollama at {served.url} does not serve qwen3:32b (it serves: qwen3:14b, llama3.1:8b)"
    )
    assert fix.startswith("pull or load the model (Ollama: `ollama pull qwen3:32b`)")
    assert (problem, fix) in report.problems()


def test_a_server_that_is_not_running_is_a_problem_with_its_fix(tmp_path: Path, env: dict[str, str]) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    user_configs(Path(env["HOME"]), f"http://127.0.0.1:{port}/v1")
    report = run_doctor(tmp_path, env)
    for name in ("opencode", "qwen"):
        detail, problem, fix = provider(report, name)
        assert detail.endswith(": not reachable") and problem.startswith(f"{name}: the provider ")
        assert fix.startswith("start the model server (Ollama: `ollama serve`)")
    assert report.usable_agents == ["opencode", "qwen"], "reachability is a problem, not a logout"


def test_a_refused_key_is_a_problem(tmp_path: Path, env: dict[str, str]) -> None:
    server = ModelList([], status=401)
    try:
        user_configs(Path(env["HOME"]), server.url)
        report = run_doctor(tmp_path, env)
    finally:
        server.close()
    detail, problem, _ = provider(report, "qwen")
    assert detail == f"openai at {server.url}: key refused" and "refused the API key (HTTP 401)" in problem


def test_without_a_provider_it_says_what_to_configure(tmp_path: Path, env: dict[str, str]) -> None:
    report = run_doctor(tmp_path, env)
    assert (
        provider(report, "opencode")[0] == "no model chosen: set `model: provider/model` in deepresearch.yaml"
    )
    assert (
        provider(report, "qwen")[0] == "no model chosen: set `model` in deepresearch.yaml (or OPENAI_MODEL)"
    )
    assert not agent_problems(report)
