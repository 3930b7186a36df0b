"""What crosses the tool service's socket: one JSON line each way per connection.

A request names its operation (`search`, `archive`, `local`, `check`), the workspace it is for, who asks (the task,
its batch, the agent call: attribution for the tools log and the records) and the operation's
arguments. The answer is `{"ok": true, "result": {...}}` or `{"ok": false, "error": {...}}` with the
typed error's message, hint and exit code, so a client fails exactly as the command would have.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from deepresearch.core.attribution import BATCH_ENV, CALL_ENV, TASK_ENV, Attribution
from deepresearch.core.errors import DeepResearchError, ExitCode
from deepresearch.core.workspace import Workspace

if TYPE_CHECKING:  # only their shapes: a thin client must not load the search stack to start
    from deepresearch.search.engine import SearchOutcome
    from deepresearch.sources.record import SourceRecord

VERSION = 1
MAX_LINE = 16 * 1024 * 1024  # one answer; a run's largest is an archive of many records
MAX_K = 20  # results per search: the smallest per-request maximum among the providers (Brave, Tavily)
# local: `search --local` over the workspace's archives; check: the caller's own output file, by
# the orchestrator's checks (pipeline/selfcheck.py)
OPS = ("search", "archive", "local", "check")
_BATCH = re.compile(r"\.batch(\d+)\b")


class ProtocolError(ValueError):
    """A line that is not a request (or answer) of this protocol."""


@dataclass(frozen=True)
class Caller:
    """Who asks: the task, its batch and the agent call (from the agent's environment)."""

    task: str = ""
    batch: int | None = None
    call: str = ""

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Caller:
        """Attribution set by the agent runner (DEEPRESEARCH_TASK, DEEPRESEARCH_CALL) and the
        command's `--batch` (DEEPRESEARCH_BATCH); with `batch_calls: per_batch` a call named
        `E1.batch2` is batch 2. No batch is claimed when none is known."""
        call = environ.get(CALL_ENV, "")
        task = environ.get(TASK_ENV, "")
        given = environ.get(BATCH_ENV, "")
        found = _BATCH.search(call)
        if given.isdigit() and int(given) > 0:
            batch: int | None = int(given)
        else:
            batch = int(found.group(1)) if found else None
        return cls(task, batch, call)

    def attribution(self) -> Attribution:
        """The task and batch to record on search-log lines and source records."""
        return Attribution(self.task, self.batch)


@dataclass(frozen=True)
class ToolRequest:
    """One operation for the service."""

    op: str
    workdir: str
    caller: Caller = field(default_factory=Caller)
    query: str = ""
    k: int = 10
    urls: tuple[str, ...] = ()
    screenshot: bool = False
    pdf: bool = False

    def encode(self) -> bytes:
        """The request as one JSON line."""
        data = asdict(self)
        data["v"] = VERSION
        return (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")

    @classmethod
    def decode(cls, line: bytes) -> ToolRequest:
        """A request from its line; ProtocolError when it is not one."""
        data = _json_object(line)
        if data.get("v") != VERSION or data.get("op") not in OPS or not isinstance(data.get("workdir"), str):
            raise ProtocolError(f"not a version {VERSION} request for one of {', '.join(OPS)}")
        found = data.get("caller")
        caller: dict[str, Any] = found if isinstance(found, dict) else {}
        urls = data.get("urls") or []
        if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
            raise ProtocolError("urls must be a list of strings")
        try:
            return cls(
                op=data["op"],
                workdir=data["workdir"],
                caller=Caller(
                    str(caller.get("task", "")), _batch(caller.get("batch")), str(caller.get("call", ""))
                ),
                query=str(data.get("query", "")),
                k=int(data.get("k", 10)),
                urls=tuple(urls),
                screenshot=bool(data.get("screenshot")),
                pdf=bool(data.get("pdf")),
            )
        except (TypeError, ValueError) as exc:
            raise ProtocolError(f"bad request field: {exc}") from exc


def _batch(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_line(conn: socket.socket, limit: int = MAX_LINE, deadline: float | None = None) -> bytes:
    """One line from a connection (less when the peer closes first). ProtocolError past `limit`
    bytes; TimeoutError once `deadline` (time.monotonic) has passed, however slowly it trickles."""
    chunks: list[bytes] = []
    size = 0
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the line did not arrive in time")
            conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise ProtocolError(f"larger than {limit} bytes")
        if chunk.endswith(b"\n"):
            break
    return b"".join(chunks)


def answer(result: Mapping[str, Any]) -> bytes:
    """A successful answer as one JSON line."""
    return (json.dumps({"ok": True, "result": dict(result)}, ensure_ascii=False) + "\n").encode("utf-8")


def failure(error: DeepResearchError) -> bytes:
    """A typed error as one JSON line (message, hint, exit code)."""
    data = {"message": error.message, "hint": error.hint, "exit_code": int(error.exit_code)}
    return (json.dumps({"ok": False, "error": data}, ensure_ascii=False) + "\n").encode("utf-8")


class RemoteToolError(DeepResearchError):
    """An error the tool service reported: raised by the client with the service's exit code."""

    def __init__(self, message: str, hint: str | None, exit_code: int) -> None:
        super().__init__(message, hint)
        try:
            self.exit_code = ExitCode(exit_code)
        except ValueError:
            self.exit_code = ExitCode.FAILURE


def read_answer(line: bytes) -> dict[str, Any]:
    """The result of an answer line; RemoteToolError for a failure, ProtocolError for garbage."""
    data = _json_object(line)
    if data.get("ok") is True and isinstance(data.get("result"), dict):
        return dict(data["result"])
    error = data.get("error")
    if data.get("ok") is False and isinstance(error, dict):
        return _raise(error)
    raise ProtocolError("not an answer of the tool service")


def _raise(error: Mapping[str, Any]) -> dict[str, Any]:
    hint = error.get("hint")
    raise RemoteToolError(
        str(error.get("message") or "the tool service failed"),
        str(hint) if hint else None,
        int(error.get("exit_code") or ExitCode.FAILURE),
    )


def _json_object(line: bytes) -> dict[str, Any]:
    try:
        data = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ProtocolError("not a JSON object")
    return data


# --- results, shared by the service and the commands' local path ---------------------------------


def search_result(outcome: SearchOutcome) -> dict[str, Any]:
    """What `deepresearch search` prints, from a search outcome."""
    return {
        "query": outcome.query,
        "results": [r.to_dict() for r in outcome.results],
        "cached": outcome.cached,
        "skipped": [a.describe() for a in outcome.attempts if not a.ok],
        "searches_used": outcome.searches_used,
        "max_searches": outcome.max_searches,
    }


def local_result(query: str, k: int, workspace: Workspace) -> dict[str, Any]:
    """What `deepresearch search --local` prints: the passages found in the workspace's archives."""
    from deepresearch.sources.localsearch import local_search  # sqlite3 and the index: only here

    outcome = local_search(workspace, query, k=k)
    return {
        "query": outcome.query,
        "hits": [h.to_dict() for h in outcome.hits],
        "indexed_now": outcome.indexed_now,
        "documents": outcome.documents,
    }


def archive_result(records: list[SourceRecord], warnings: list[str]) -> dict[str, Any]:
    """What `deepresearch archive` prints: the records, in the order asked, and warnings."""
    return {"records": [r.to_dict() for r in records], "warnings": list(warnings)}
