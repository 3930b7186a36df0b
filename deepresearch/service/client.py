"""The thin client: what `deepresearch search`, `archive` and `check` do inside an agent of a run.

The agent runner puts the run's socket in `DEEPRESEARCH_SERVICE`. A service that cannot be reached
(the socket is gone, nothing listens, the connection closes without an answer) is a
`ServiceUnreachable`; the commands then fall back or fail clearly (see cli/search_cmd.py,
cli/archive_cmd.py). An error the service reports comes back as the typed error it was.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from deepresearch.core.commands import SERVICE_ENV
from deepresearch.service.address import reachable
from deepresearch.service.protocol import Caller, ProtocolError, ToolRequest, read_answer, read_line

CONNECT_TIMEOUT = 5.0
ANSWER_TIMEOUT = 3600.0  # an archive of many slow pages; the agent's own timeout comes first


class ServiceUnreachable(Exception):
    """The tool service did not answer: the message says what happened."""


def service_address(environ: Mapping[str, str]) -> Path | None:
    """The run's socket when this process runs inside one of its agents, else None."""
    value = environ.get(SERVICE_ENV, "").strip()
    return Path(value) if value else None


class ToolClient:
    """Sends requests to one tool service."""

    def __init__(self, address: Path, caller: Caller | None = None) -> None:
        self.address = address
        self.caller = caller or Caller()

    def search(self, workdir: Path, query: str, k: int) -> dict[str, Any]:
        """The service's search result (protocol.search_result) for `query`."""
        return self.send(ToolRequest("search", str(workdir), self.caller, query=query, k=k))

    def local(self, workdir: Path, query: str, k: int) -> dict[str, Any]:
        """The service's local-search result (protocol.local_result): the index lives in the
        workspace's private folder, which agents may not write."""
        return self.send(ToolRequest("local", str(workdir), self.caller, query=query, k=k))

    def archive(self, workdir: Path, urls: list[str], screenshot: bool, pdf: bool) -> dict[str, Any]:
        """The service's archive result (protocol.archive_result) for `urls`."""
        request = ToolRequest(
            "archive", str(workdir), self.caller, urls=tuple(urls), screenshot=screenshot, pdf=pdf
        )
        return self.send(request)

    def check(self, workdir: Path) -> dict[str, Any]:
        """The orchestrator's checks of the caller's own output file (pipeline/selfcheck.py)."""
        return self.send(ToolRequest("check", str(workdir), self.caller))

    def send(self, request: ToolRequest) -> dict[str, Any]:
        """One request, one answer; ServiceUnreachable when there is no answer."""
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.settimeout(CONNECT_TIMEOUT)
            try:
                with reachable(self.address) as path:
                    conn.connect(path)
            except OSError as exc:
                raise ServiceUnreachable(f"cannot connect to {self.address}: {exc.strerror or exc}") from exc
            conn.settimeout(ANSWER_TIMEOUT)
            try:
                try:
                    conn.sendall(request.encode())
                    conn.shutdown(socket.SHUT_WR)
                except BrokenPipeError:
                    pass  # it answered without reading (busy) and closed: the answer is there to read
                line = read_line(conn)
            except OSError as exc:
                raise ServiceUnreachable(f"lost the connection to {self.address}: {exc}") from exc
            except ProtocolError as exc:
                raise ServiceUnreachable(f"{self.address} answered something else: {exc}") from exc
        finally:
            conn.close()
        if not line:
            raise ServiceUnreachable(f"{self.address} closed the connection without an answer")
        try:
            return read_answer(line)
        except ProtocolError as exc:
            raise ServiceUnreachable(f"{self.address} answered something else: {exc}") from exc
