"""The run's tool service through its real interfaces: the Unix socket, and the real
`deepresearch search|archive` thin clients run as subprocesses with the agent environment.

One browser for many concurrent archives (launches counted, per-host limit observed at the web
server), a service that dies (clients fall back or fail with exit 12, nothing lost), a stale socket,
a live one, two workspaces, keys that agents never hold, the 0600 socket and long paths.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from deepresearch.core.budget import Budget
from deepresearch.core.config import Config, load_config
from deepresearch.core.errors import ExitCode, ToolServiceError
from deepresearch.core.events import Event, Notice
from deepresearch.core.workspace import Workspace
from deepresearch.service.client import ServiceUnreachable, ToolClient
from deepresearch.service.protocol import Caller, ProtocolError, ToolRequest, read_answer
from deepresearch.service.server import ToolService
from deepresearch.sources.registry import SourceRegistry
from tests.helpers import LOCAL_HOSTS, REPO, skip_without_browser
from tests.search.search_mock_server import MockProviders

BODY = """<!doctype html><html><head><meta charset="utf-8"><title>Page {n}</title></head>
<body><article><h1>Bulletin {n}</h1><p>The bulletin number {n} reports that the index reached {v}
points in 2025, according to the survey of the statistics bureau.</p><p>It covered twelve regions
and was conducted between January and March.</p></article></body></html>"""


class SlowPages:
    """Pages /p<N>.html on 127.0.0.1 that take `delay` seconds each; counts requests in flight."""

    def __init__(self, delay: float = 0.4) -> None:
        self.delay = delay
        self.in_flight = 0
        self.most = 0
        self.lock = threading.Lock()
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                name = self.path.strip("/").removesuffix(".html")
                if not (name.startswith("p") and name[1:].isdigit()):
                    self.send_error(404)
                    return
                with pages.lock:
                    pages.in_flight += 1
                    pages.most = max(pages.most, pages.in_flight)
                try:
                    time.sleep(pages.delay)
                    body = BODY.format(n=name[1:], v=100 + int(name[1:])).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                finally:
                    with pages.lock:
                        pages.in_flight -= 1

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, n: int) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/p{n}.html"

    def __enter__(self) -> SlowPages:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class Events:
    """An event sink that keeps what it got."""

    def __init__(self) -> None:
        self.got: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.got.append(event)


@pytest.fixture
def agent_env(tmp_path: Path) -> dict[str, str]:
    """What an agent's tool script runs with: no keys, no user config, the repository importable."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DEEPRESEARCH_") and not k.endswith("_API_KEY") and k != "REQUIRE_BROWSER_TESTS"
    }
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def workspace_at(root: Path, **settings: object) -> tuple[Workspace, Config]:
    workspace = Workspace(root)
    workspace.ensure()
    settings.setdefault("allow_private_hosts", LOCAL_HOSTS)  # the pages are served on 127.0.0.1
    lines = "".join(f"{key}: {json.dumps(value)}\n" for key, value in settings.items())
    (root / "deepresearch.yaml").write_text(lines, encoding="utf-8")
    return workspace, load_config(root, {"HOME": str(root)})


def service_for(workspace: Workspace, config: Config, environ: dict[str, str] | None = None) -> ToolService:
    return ToolService(workspace, config, Budget(workspace, config), dict(environ or {}), Events())


def tool(
    name: str,
    args: list[str],
    env: dict[str, str],
    workspace: Workspace,
    service: Path | None,
    task: str = "",
) -> subprocess.CompletedProcess[str]:
    """The tool script's command: `python -m deepresearch.cli.tools NAME ARGS` in an agent's env."""
    run_env = {**env, "DEEPRESEARCH_WORKDIR": str(workspace.root)}
    if service is not None:
        run_env["DEEPRESEARCH_SERVICE"] = str(service)
    if task:
        run_env.update(DEEPRESEARCH_TASK=task, DEEPRESEARCH_CALL=task)
    return subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.tools", name, *args],
        env=run_env, cwd=workspace.root, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def tools_log(workspace: Workspace) -> list[dict[str, object]]:
    return [json.loads(line) for line in workspace.tools_log.read_text(encoding="utf-8").splitlines()]


# --- one browser for the run ----------------------------------------------------------------------


def test_concurrent_archives_from_several_executors_share_one_browser(
    tmp_path: Path, agent_env: dict[str, str]
) -> None:
    workspace, config = workspace_at(tmp_path / "run", archive_timeout=20)
    with SlowPages(delay=0.4) as pages, service_for(workspace, config) as service:
        service.warm_browser()  # the execute phase starts: Chromium launches in the background, once
        service.warm_browser()
        # Four executors at once, three pages each, as four separate agent processes.
        jobs = {f"E{t}": [pages.url(3 * t + i) for i in range(3)] for t in range(1, 5)}
        with ThreadPoolExecutor(max_workers=4) as pool:
            done = dict(
                zip(
                    jobs,
                    pool.map(
                        lambda item: tool(
                            "archive",
                            ["--batch", "2", "--json", *item[1]],
                            agent_env,
                            workspace,
                            workspace.tool_socket,
                            item[0],
                        ),
                        jobs.items(),
                    ),
                    strict=True,
                )
            )
        launches = service.browser_launches
    if "no Chromium could be launched" in "".join(p.stderr for p in done.values()):
        skip_without_browser("no Chromium can be launched here")
    for proc in done.values():
        assert proc.returncode == 0, proc.stderr
        records = json.loads(proc.stdout)
        assert [r["status"] for r in records] == ["archived"] * 3 and not any(r["fallback"] for r in records)
    ids = [r["id"] for proc in done.values() for r in json.loads(proc.stdout)]
    assert len(set(ids)) == 12  # one registry, one allocator: twelve distinct IDs
    assert launches == 1  # one Chromium for all four executors
    log = tools_log(workspace)
    assert sum(1 for e in log if e.get("event") == "browser_launched") == 1
    assert sorted(e["task"] for e in log if e.get("op") == "archive") == ["E1", "E2", "E3", "E4"]
    assert all(e["batch"] == 2 and e["ok"] for e in log if e.get("op") == "archive")
    # The records carry who asked too: code checks an executor's batch log against them.
    records = {r["id"]: r for proc in done.values() for r in json.loads(proc.stdout)}
    assert {(r["task"], r["batch"]) for r in records.values()} == {("E1", 2), ("E2", 2), ("E3", 2), ("E4", 2)}
    assert 1 <= pages.most <= 2  # one host: at most PER_HOST pages at once, across all executors


# --- the service goes away ------------------------------------------------------------------------


def test_a_dead_service_makes_archive_fall_back_and_search_fail_clearly(
    tmp_path: Path, agent_env: dict[str, str]
) -> None:
    workspace, config = workspace_at(tmp_path / "run", chromium_path=str(tmp_path / "no-chromium"))
    with SlowPages(delay=0) as pages:
        service = service_for(workspace, config)
        service.start()
        first = tool("archive", ["--json", pages.url(1)], agent_env, workspace, workspace.tool_socket, "E1")
        assert first.returncode == 0, first.stderr
        service.stop()  # the service is gone mid-run: its socket removed, nothing listens
        assert not workspace.tool_socket.exists()
        later = tool("archive", ["--json", pages.url(2)], agent_env, workspace, workspace.tool_socket, "E2")
        search = tool("search", ["heat pumps"], agent_env, workspace, workspace.tool_socket, "E2")
    assert later.returncode == 0, later.stderr
    assert "the run's tool service is not answering" in later.stderr and "archiving here" in later.stderr
    assert search.returncode == ExitCode.SERVICE, search.stderr
    assert "the run's tool service is not answering" in search.stderr
    assert "search providers' keys" in search.stderr and "Traceback" not in search.stderr
    # Nothing lost: the record archived through the service and the one archived here, one registry.
    archived = SourceRegistry(workspace).archived()
    assert [r.id for r in archived] == ["S01", "S02"]
    assert all((workspace.root / r.archive).is_file() for r in archived)


def test_an_agents_archive_never_reads_local_files_with_or_without_the_service(
    tmp_path: Path, agent_env: dict[str, str]
) -> None:
    workspace, config = workspace_at(tmp_path / "run")
    secret = tmp_path / "id_rsa"  # outside the workspace, as a page might ask an agent to archive
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nplanted\n")
    service = service_for(workspace, config)
    service.start()
    through = tool("archive", [secret.as_uri()], agent_env, workspace, workspace.tool_socket, "E1")
    service.stop()
    alone = tool("archive", [secret.as_uri()], agent_env, workspace, workspace.tool_socket, "E1")
    for proc in (through, alone):
        assert proc.returncode == ExitCode.ARCHIVE, proc.stdout + proc.stderr
        assert "local files are not archived during research" in proc.stdout
    assert "archiving here" in alone.stderr  # the fallback ran, and refused the file too
    assert SourceRegistry(workspace).archived() == []
    assert not any(
        "planted" in p.read_text(errors="replace") for p in workspace.assets.rglob("*") if p.is_file()
    )


def test_a_service_that_stopped_answering_is_restarted_for_the_next_agent(tmp_path: Path) -> None:
    workspace, config = workspace_at(tmp_path / "run")
    with service_for(workspace, config) as service:
        assert service.healthy()
        workspace.tool_socket.unlink()  # someone cleaned .deepresearch/: agents cannot connect
        assert not service.healthy()
        with pytest.raises(ServiceUnreachable):
            ToolClient(workspace.tool_socket).search(workspace.root, "q", 3)
        assert service.address() == str(workspace.tool_socket)
        assert service.healthy()
        notices = [e for e in service.sink.got if isinstance(e, Notice)]  # type: ignore[attr-defined]
        assert any("restarted" in n.message for n in notices)
        # It answers again (a search with no provider is a typed error, sent back as one).
        with pytest.raises(Exception) as raised:
            ToolClient(workspace.tool_socket).search(tmp_path / "elsewhere", "q", 3)
        assert "serves" in str(raised.value)


def test_a_stale_socket_is_replaced_and_a_live_one_is_not(tmp_path: Path) -> None:
    workspace, config = workspace_at(tmp_path / "run")
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(workspace.tool_socket))  # a run killed with -9 leaves its socket file behind
    stale.close()
    assert workspace.tool_socket.exists()
    with service_for(workspace, config) as service:
        assert service.healthy()
        mode = stat.S_IMODE(workspace.tool_socket.stat().st_mode)
        assert mode == 0o600, oct(mode)  # only the user's own processes can connect
        with pytest.raises(ToolServiceError) as raised:
            service_for(workspace, config).start()  # a second service in the same workspace
        assert "another tool service is listening" in str(raised.value)
        assert service.healthy()  # the live one was left alone
    assert not workspace.tool_socket.exists()


def test_two_workspaces_never_share_a_service(tmp_path: Path, agent_env: dict[str, str]) -> None:
    a, config_a = workspace_at(tmp_path / "a", chromium_path=str(tmp_path / "no-chromium"))
    b, config_b = workspace_at(tmp_path / "b", chromium_path=str(tmp_path / "no-chromium"))
    with SlowPages(delay=0) as pages, service_for(a, config_a), service_for(b, config_b):
        assert a.tool_socket != b.tool_socket
        to_a = tool("archive", ["--json", pages.url(1)], agent_env, a, a.tool_socket, "E1")
        to_b = tool("archive", ["--json", pages.url(2)], agent_env, b, b.tool_socket, "E1")
        # An agent of run A pointed at workspace B is refused, not served from A's registry.
        crossed = tool("archive", ["-o", str(b.root), "--json", pages.url(3)], agent_env, a, a.tool_socket)
    assert to_a.returncode == 0 and to_b.returncode == 0, to_a.stderr + to_b.stderr
    assert [r.url for r in SourceRegistry(a).archived()] == [pages.url(1)]
    assert [r.url for r in SourceRegistry(b).archived()] == [pages.url(2)]
    assert crossed.returncode == ExitCode.USAGE, crossed.stderr
    assert f"this tool service serves {a.root}, not {b.root}" in crossed.stderr
    assert [e["urls"] for e in tools_log(a) if e.get("op")] == [[pages.url(1)], [pages.url(3)]]
    assert [e["urls"] for e in tools_log(b) if e.get("op")] == [[pages.url(2)]]


# --- search: the keys stay in the service ---------------------------------------------------------


def test_search_runs_in_the_service_with_keys_the_agent_never_holds(
    tmp_path: Path, agent_env: dict[str, str]
) -> None:
    with _providers() as server:
        keyed = server.env(("serper",))
        settings = {"search_providers": ["serper"], "search_base_urls": {"serper": server.base_url("serper")}}
        workspace, config = workspace_at(tmp_path / "run", max_searches=1, **settings)
        with service_for(workspace, config, {**agent_env, **keyed}) as service:
            assert "SERPER_API_KEY" not in agent_env
            found = tool(
                "search",
                ["--json", "heat pumps", "-k", "2"],
                agent_env,
                workspace,
                workspace.tool_socket,
                "E3",
            )
            spent = tool("search", ["other query"], agent_env, workspace, workspace.tool_socket, "E3")
            alone = tool("search", ["other query"], agent_env, workspace, None)
            assert service.healthy()
            assert service.browser_launches == 0  # a service that only searches starts no Chromium
    assert found.returncode == 0, found.stderr
    assert [r["provider"] for r in json.loads(found.stdout)] == ["serper", "serper"]
    assert "searches used: 1 of 1" in found.stderr
    assert spent.returncode == ExitCode.BUDGET, spent.stderr  # the run's budget, counted by the service
    assert "search budget spent" in spent.stderr
    # Without the service and without keys the command searches itself and finds no keyed provider.
    assert alone.returncode != 0 and "SERPER_API_KEY" in alone.stderr
    searches = [e for e in tools_log(workspace) if e.get("op") == "search"]
    assert [(e["task"], e["ok"]) for e in searches] == [("E3", True), ("E3", False)]


class _providers:
    """The mock search providers as a context manager."""

    def __enter__(self) -> MockProviders:
        self.server = MockProviders().start()
        return self.server

    def __exit__(self, *exc: object) -> None:
        self.server.stop()


# --- the protocol and the socket ----------------------------------------------------------------


def test_requests_round_trip_and_garbage_is_refused() -> None:
    request = ToolRequest("archive", "/w", Caller("E2", 3, "E2.batch3"), urls=("http://x/1",), pdf=True)
    assert ToolRequest.decode(request.encode()) == request
    for line in (b"not json\n", b"[1]\n", b'{"v": 1, "op": "rm", "workdir": "/w"}\n', b'{"op": "search"}\n'):
        with pytest.raises(ProtocolError):
            ToolRequest.decode(line)
    with pytest.raises(ProtocolError):
        read_answer(b'{"ok": "maybe"}\n')


def test_the_caller_comes_from_the_agent_environment() -> None:
    assert Caller.from_environ({"DEEPRESEARCH_TASK": "E4", "DEEPRESEARCH_CALL": "E4.batch2"}) == Caller(
        "E4", 2, "E4.batch2"
    )
    # With the batches inside one call, the batch is what the command was given (`--batch N`) ...
    given = {"DEEPRESEARCH_TASK": "E4", "DEEPRESEARCH_CALL": "E4.call2", "DEEPRESEARCH_BATCH": "5"}
    assert Caller.from_environ(given) == Caller("E4", 5, "E4.call2")
    # ... and none is claimed when none was given: code then counts the search for any batch.
    assert Caller.from_environ({"DEEPRESEARCH_TASK": "E4", "DEEPRESEARCH_CALL": "E4"}).batch is None
    assert Caller.from_environ({"DEEPRESEARCH_BATCH": "0"}) == Caller()
    assert Caller.from_environ({}) == Caller()


def test_a_garbage_request_gets_a_typed_error_and_the_service_keeps_serving(tmp_path: Path) -> None:
    workspace, config = workspace_at(tmp_path / "run")
    with service_for(workspace, config) as service:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(str(workspace.tool_socket))
        conn.sendall(b"GET / HTTP/1.0\n")
        answer = conn.recv(65536)
        conn.close()
        with pytest.raises(Exception) as raised:
            read_answer(answer)
        assert "could not read the request" in str(raised.value)
        assert service.healthy()


def test_a_workspace_deeper_than_a_socket_path_allows_still_gets_its_service(
    tmp_path: Path, agent_env: dict[str, str]
) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    workspace, config = workspace_at(deep, chromium_path=str(tmp_path / "no-chromium"))
    assert len(str(workspace.tool_socket)) > 108
    with SlowPages(delay=0) as pages, service_for(workspace, config):
        proc = tool("archive", ["--json", pages.url(5)], agent_env, workspace, workspace.tool_socket)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)[0]["status"] == "archived"


def test_the_self_check_goes_through_the_service_to_the_runs_checker(
    tmp_path: Path, agent_env: dict[str, str]
) -> None:
    workspace, config = workspace_at(tmp_path / "run")
    asked: list[tuple[str, str]] = []

    def checker(task: str, call: str) -> dict[str, object]:
        asked.append((task, call))
        problems = (
            ["logs/E1_result.md:7: ungrounded_number: facts item 1 states 9.9"] if len(asked) == 1 else []
        )
        return {"file": "logs/E1_result.md", "problems": problems, "notes": ["batch 1: new: values"]}

    with service_for(workspace, config) as service:
        first = tool("check", [], agent_env, workspace, workspace.tool_socket, task="E1")
        service.checker = checker
        second = tool("check", [], agent_env, workspace, workspace.tool_socket, task="E1")
        third = tool("check", [], agent_env, workspace, workspace.tool_socket, task="E1")
    assert first.returncode == ExitCode.USAGE and "the self-check runs only during a run" in first.stderr
    assert second.returncode == ExitCode.CHECK_FAILED, second.stderr
    assert second.stdout.splitlines() == [
        "logs/E1_result.md:7: ungrounded_number: facts item 1 states 9.9",
        "batch 1: new: values",
    ]
    assert "1 problem in logs/E1_result.md" in second.stderr
    assert third.returncode == 0 and third.stdout.splitlines()[-1] == "no problems in logs/E1_result.md"
    assert asked == [("E1", "E1"), ("E1", "E1")]
    checks = [entry for entry in tools_log(workspace) if entry.get("op") == "check"]
    assert [(c["ok"], c.get("problems")) for c in checks] == [(False, None), (True, 1), (True, 0)]
    # Outside a run's agent there is no service to ask.
    alone = tool("check", [], agent_env, workspace, None, task="E1")
    assert alone.returncode == ExitCode.SERVICE and "only inside an agent of a run" in alone.stderr


@pytest.fixture(autouse=True)
def _no_leftover_threads() -> Iterator[None]:
    before = {t.name for t in threading.enumerate()}
    yield
    time.sleep(0.1)
    left = {t.name for t in threading.enumerate() if t.is_alive()} - before
    assert not {n for n in left if n.startswith("tool-")}, left
