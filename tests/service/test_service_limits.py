"""The tool service checks what it is asked and cannot be stalled by one client: `k` and URL counts
within limits, a request size cap, a cap on connections, timeouts on reading a request and on
sending an answer; meanwhile other agents' calls go on. Its locks wait a bounded time."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from deepresearch.core.budget import Budget
from deepresearch.core.config import Config
from deepresearch.core.errors import ExitCode, LockTimeoutError
from deepresearch.core.files import file_lock
from deepresearch.core.workspace import Workspace
from deepresearch.service.client import ToolClient
from deepresearch.service.protocol import RemoteToolError, ToolRequest
from deepresearch.service.server import ServiceLimits, ToolService


class Events:
    def __call__(self, event: object) -> None:
        return None


def service_in(tmp_path: Path, **limits: Any) -> ToolService:
    workspace = Workspace(tmp_path / "ws")
    workspace.ensure()
    config = Config(chromium_path=str(tmp_path / "no-chromium"), archive_timeout=2.0)
    return ToolService(
        workspace, config, Budget(workspace, config), {}, Events(), limits=ServiceLimits(**limits)
    )


def ask(service: ToolService, request: ToolRequest, timeout: float = 20.0) -> dict[str, object]:
    """Send one raw request and read the raw answer (no client-side checks)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        conn.connect(str(service.path))
        conn.sendall(request.encode())
        conn.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    answer: dict[str, object] = json.loads(data)
    return answer


def error_of(answer: dict[str, object]) -> str:
    assert answer["ok"] is False, answer
    error = answer["error"]
    assert isinstance(error, dict) and error["exit_code"] == ExitCode.USAGE
    return str(error["message"])


def served(service: ToolService, count: int) -> None:
    """Wait (at most 10 s) until the service serves `count` connections."""
    deadline = time.monotonic() + 10
    while service.connections != count and time.monotonic() < deadline:
        time.sleep(0.02)
    assert service.connections == count


def a_quick_call_works(service: ToolService) -> None:
    """Another agent's call: a local search over the (empty) archives answers at once."""
    client = ToolClient(service.path)
    started = time.monotonic()
    result = client.local(service.workspace.root, "anything", 3)
    assert result["hits"] == [] and time.monotonic() - started < 5


@pytest.mark.parametrize("k", [0, -3, 10_000])
def test_a_k_out_of_range_is_refused_by_the_service(tmp_path: Path, k: int) -> None:
    with service_in(tmp_path) as service:
        for op in ("search", "local"):
            message = error_of(ask(service, ToolRequest(op, str(service.workspace.root), query="q", k=k)))
            assert "k must be between 1 and" in message, message


def test_ten_thousand_urls_are_refused_at_once(tmp_path: Path) -> None:
    urls = tuple(f"http://10.0.0.{n % 250}/page{n}" for n in range(10_000))
    with service_in(tmp_path) as service:
        started = time.monotonic()
        message = error_of(ask(service, ToolRequest("archive", str(service.workspace.root), urls=urls)))
        assert "at most" in message and "10000 URLs" in message, message
        assert time.monotonic() - started < 5
        assert not service.workspace.source_registry.exists()  # nothing was fetched or recorded


def test_a_request_over_the_size_cap_is_refused(tmp_path: Path) -> None:
    with service_in(tmp_path, max_request_bytes=10_000) as service:
        huge = ToolRequest("search", str(service.workspace.root), query="x" * 20_000)
        assert "larger than" in error_of(ask(service, huge))
        a_quick_call_works(service)


def test_a_client_that_never_sends_its_request_is_dropped(tmp_path: Path) -> None:
    with service_in(tmp_path, read_timeout=0.5) as service:
        idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        idle.connect(str(service.path))
        idle.sendall(b'{"v": 1, "op": "sea')  # and nothing more
        a_quick_call_works(service)
        idle.settimeout(5)
        assert idle.recv(65536) == b""  # closed by the service after its read timeout
        idle.close()


def test_a_client_that_never_reads_its_answer_does_not_hold_the_service(tmp_path: Path) -> None:
    # An answer far larger than the socket's buffer: 50 refused URLs of 8,000 characters each.
    urls = tuple(f"http://10.1.2.{n}/{'x' * 8000}" for n in range(50))
    with service_in(tmp_path, send_timeout=0.5) as service:
        greedy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        greedy.connect(str(service.path))
        greedy.sendall(ToolRequest("archive", str(service.workspace.root), urls=urls).encode())
        greedy.shutdown(socket.SHUT_WR)  # ... and never reads
        a_quick_call_works(service)
        served(service, 0)  # its handler gave up sending and closed the connection
        greedy.close()


def test_past_the_connection_cap_a_client_is_told_the_service_is_busy(tmp_path: Path) -> None:
    with service_in(tmp_path, max_connections=2, read_timeout=1.0) as service:
        idle = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(2)]
        for conn in idle:
            conn.connect(str(service.path))
        served(service, 2)
        with pytest.raises(RemoteToolError) as busy:
            ToolClient(service.path).local(service.workspace.root, "q", 3)
        assert "busy" in busy.value.message
        for conn in idle:
            conn.close()
        served(service, 0)
        a_quick_call_works(service)  # the idle ones gone, calls go on


def test_a_lock_held_elsewhere_is_waited_for_a_bounded_time(tmp_path: Path) -> None:
    lock = tmp_path / "registry.lock"
    held = threading.Event()
    release = threading.Event()

    def holder() -> None:
        with file_lock(lock):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(5)
    started = time.monotonic()
    with pytest.raises(LockTimeoutError) as raised, file_lock(lock, timeout=0.3):
        pass
    assert 0.3 <= time.monotonic() - started < 3
    assert str(lock) in raised.value.message
    release.set()
    thread.join()
