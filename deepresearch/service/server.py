"""The tool service of one run: a Unix socket in `.deepresearch/`, served by threads of the run.

    with ToolService(workspace, config, budget, environ, sink) as service:
        runner.tool_service = service          # agents get DEEPRESEARCH_SERVICE = service.address()
        records = service.archive(urls)         # the orchestrator's own archiving, same browser

The socket is created private (mode 0600, bound under a temporary name and renamed into place), so
only the user's own processes can connect. A socket file left by a run that was killed (nothing
listens) is replaced; one that answers belongs to a live service and is an error. Each connection
carries one request and one answer (service/protocol.py); a `check` is handed to the run's checker
(the orchestrator's own checks of the caller's output file); every operation is written to
`logs/tools.jsonl` with the task, batch and call that asked. `address()` restarts a service that
stopped answering (its socket file removed, its thread gone), so the next agent gets a working one.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import date, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from deepresearch.core.attribution import BY_HAND, Attribution
from deepresearch.core.budget import Budget
from deepresearch.core.config import Config
from deepresearch.core.errors import DeepResearchError, ToolServiceError, UsageError
from deepresearch.core.events import EventSink, Notice
from deepresearch.core.files import append_jsonl
from deepresearch.core.workspace import Workspace
from deepresearch.search.engine import run_search
from deepresearch.service.address import reachable
from deepresearch.service.archiving import SharedArchiver
from deepresearch.service.limits import Gate, ServiceLimits, check
from deepresearch.service.protocol import (
    Caller,
    ProtocolError,
    ToolRequest,
    answer,
    archive_result,
    failure,
    local_result,
    read_line,
    search_result,
)
from deepresearch.sources.record import SourceRecord

# The self-check: (task, call) → findings. Set by the orchestrator (the checks live above this layer).
Checker = Callable[[str, str], dict[str, Any]]
ACCEPT_POLL = 0.2  # seconds between checks of the stop flag while waiting for connections
BUSY_TIMEOUT = 1.0  # to tell a connection past the cap that the service is busy


class ToolService:
    """Search and archive for the agents of one run (see the module docstring)."""

    def __init__(
        self,
        workspace: Workspace,
        config: Config,
        budget: Budget,
        environ: dict[str, str],
        sink: EventSink,
        research_date: date | None = None,
        renew_before: datetime | None = None,
        limits: ServiceLimits | None = None,
    ) -> None:
        self.workspace = workspace
        self.limits = limits or ServiceLimits()
        self._gate = Gate(self.limits.max_connections)
        self.config = config
        self.budget = budget
        self.environ = environ  # with the search keys: they stay in this process
        self.sink = sink
        self.research_date = research_date
        self.renew_before = renew_before  # a follow-up's freshness cutoff (sources.archive.Archiver)
        self.path = workspace.tool_socket
        self._listener: socket.socket | None = None
        self._inode: int | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # start/stop/restart and the archiver's creation
        self._log_lock = threading.Lock()
        self._archiver: SharedArchiver | None = None
        self._launches_logged = 0
        self.checker: Checker | None = None

    # --- lifecycle -------------------------------------------------------------------------------

    def __enter__(self) -> ToolService:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Listen on the workspace's socket (replacing a stale one); ToolServiceError when a live
        service already listens there or the socket cannot be made. The browser starts with the
        first archive."""
        with self._lock:
            self._listen()

    def stop(self) -> None:
        """Stop listening, remove the socket, close the browser."""
        with self._lock:
            self._close_listener()
            if self._archiver is not None:
                self._archiver.close()
                self._archiver = None

    def healthy(self) -> bool:
        """Listening, and the socket file is still ours."""
        if self._thread is None or not self._thread.is_alive():
            return False
        try:
            return self.path.stat().st_ino == self._inode
        except OSError:
            return False

    def address(self) -> str:
        """The socket path agents connect to, after restarting a service that stopped answering."""
        with self._lock:
            if not self.healthy():
                self._close_listener()
                self._listen()
                self.sink(
                    Notice(f"the tool service had stopped answering; restarted it at {self.path}", "warning")
                )
        return str(self.path)

    def _listen(self) -> None:
        self.workspace.private.mkdir(parents=True, exist_ok=True)
        self._remove_stale()
        temporary = self.path.with_name(f".tools-{secrets.token_hex(4)}.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with reachable(temporary) as where:
                listener.bind(where)
            os.chmod(temporary, 0o600)  # before anyone can find it under its real name
            listener.listen(64)
            os.replace(temporary, self.path)
        except OSError as exc:
            listener.close()
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise ToolServiceError(
                f"cannot create the run's tool service socket {self.path}: {exc}",
                hint="the workspace must be on a local file system that supports Unix sockets",
            ) from exc
        listener.settimeout(ACCEPT_POLL)
        self._listener, self._inode = listener, self.path.stat().st_ino
        self._stopping.clear()
        self._thread = threading.Thread(
            target=self._serve, args=(listener,), name="tool-service", daemon=True
        )
        self._thread.start()

    def _remove_stale(self) -> None:
        if not self.path.exists() and not self.path.is_symlink():
            return
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.settimeout(2.0)
            with reachable(self.path) as where:
                probe.connect(where)
        except OSError:
            self.path.unlink(missing_ok=True)  # left by a run that was killed: nothing listens
            return
        finally:
            probe.close()
        raise ToolServiceError(
            f"another tool service is listening at {self.path}",
            hint="another deepresearch run is using this workspace; wait for it or use -o another folder",
        )

    def _close_listener(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._listener is not None:
            self._listener.close()
        with contextlib.suppress(OSError):
            if self.path.stat().st_ino == self._inode:
                self.path.unlink()
        self._listener, self._thread, self._inode = None, None, None

    # --- serving ---------------------------------------------------------------------------------

    def _serve(self, listener: socket.socket) -> None:
        while not self._stopping.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # the listener was closed
            if not self._gate.enter():
                self._refuse(conn)
                continue
            threading.Thread(target=self._handle, args=(conn,), name="tool-request", daemon=True).start()

    @property
    def connections(self) -> int:
        """Connections being served now."""
        return self._gate.active

    def _refuse(self, conn: socket.socket) -> None:
        """Past the connection cap: say so at once and close."""
        busy = ToolServiceError(
            f"the tool service is busy ({self.limits.max_connections} requests at once)",
            hint="wait a few seconds and run the command again",
        )
        with conn, contextlib.suppress(OSError):
            conn.settimeout(BUSY_TIMEOUT)
            conn.sendall(failure(busy))

    def _handle(self, conn: socket.socket) -> None:
        try:
            with conn:
                try:
                    deadline = time.monotonic() + self.limits.read_timeout
                    line = read_line(conn, self.limits.max_request_bytes, deadline)
                except ProtocolError as exc:
                    answer_bytes = failure(UsageError(f"the tool service refused the request: {exc}"))
                else:
                    answer_bytes = self._answer(line)
                conn.settimeout(self.limits.send_timeout)  # the whole answer, however slowly read
                conn.sendall(answer_bytes)
        except OSError:
            return  # the client went away, or took too long to send or to read: nothing to answer
        finally:
            self._gate.leave()

    def _answer(self, line: bytes) -> bytes:
        try:
            request = ToolRequest.decode(line)
        except ProtocolError as exc:
            return failure(UsageError(f"the tool service could not read the request: {exc}"))
        started = time.monotonic()
        entry: dict[str, Any] = {"op": request.op, **asdict(request.caller)}
        if request.op in ("search", "local"):
            entry["query"] = request.query
        elif request.op == "archive":
            entry["urls"] = list(request.urls)
        try:
            self._check_workspace(request)
            check(request, self.limits)
            if request.op == "search":
                outcome = run_search(
                    self.workspace,
                    self.config,
                    request.query,
                    k=request.k,
                    environ=self.environ,
                    budget=self.budget,
                    sink=self.sink,
                    attribution=request.caller.attribution(),
                )
                result = search_result(outcome)
                entry.update(results=len(outcome.results), cached=outcome.cached)
            elif request.op == "local":
                result = local_result(request.query, request.k, self.workspace)
                entry["results"] = len(result["hits"])
            elif request.op == "check":
                result = self._check(request.caller)
                entry["problems"] = len(result["problems"])
            else:
                who = request.caller.attribution()
                records, warnings = self._archive(list(request.urls), request.screenshot, request.pdf, who)
                result = archive_result(records, warnings)
                entry["ids"] = [r.id or f"failed: {r.error}" for r in records]
        except DeepResearchError as exc:
            self._log({**entry, "ok": False, "error": exc.message, "seconds": _since(started)})
            return failure(exc)
        except Exception as exc:  # a bug must answer the agent, not leave it waiting
            error = DeepResearchError(f"the tool service failed: {type(exc).__name__}: {exc}")
            self._log({**entry, "ok": False, "error": error.message, "seconds": _since(started)})
            return failure(error)
        self._log({**entry, "ok": True, "seconds": _since(started)})
        return answer(result)

    def _check_workspace(self, request: ToolRequest) -> None:
        asked = Path(request.workdir).resolve()
        if asked != self.workspace.root.resolve():
            raise UsageError(
                f"this tool service serves {self.workspace.root}, not {asked}",
                hint="each run has its own service; run the command in that run's workspace",
            )

    def _check(self, caller: Caller) -> dict[str, Any]:
        if self.checker is None:
            raise UsageError(
                "the self-check runs only during a run", hint="use `deepresearch check` on a report"
            )
        return self.checker(caller.task, caller.call)

    # --- the orchestrator's own use --------------------------------------------------------------

    def archive(self, urls: list[str]) -> list[SourceRecord]:
        """Archive `urls` with the run's browser (the orchestrator's cited-but-not-archived URLs)."""
        started = time.monotonic()
        records, _ = self._archive(urls, False, False)
        ids = [r.id or f"failed: {r.error}" for r in records]
        entry = {"op": "archive", **asdict(Caller(call="orchestrator")), "urls": urls, "ids": ids}
        self._log({**entry, "ok": True, "seconds": _since(started)})
        return records

    def warm_browser(self) -> None:
        """Start launching Chromium in the background, once: executors are about to archive, and
        their first page should not wait for it. A service never asked to (or to archive) never
        starts one."""
        with self._lock:
            archiver = self._shared_archiver()
        archiver.warm()

    def _shared_archiver(self) -> SharedArchiver:
        """The run's archiver (created, and its browser started, once); call under `_lock`."""
        if self._archiver is None:
            self._archiver = SharedArchiver(
                self.workspace, self.config, self.sink, self.research_date, self.renew_before
            )
        return self._archiver

    def _archive(
        self, urls: list[str], screenshot: bool, pdf: bool, who: Attribution = BY_HAND
    ) -> tuple[list[SourceRecord], list[str]]:
        with self._lock:
            archiver = self._shared_archiver()
        found = archiver.archive(urls, screenshot, pdf, who)
        with self._log_lock:
            launched, self._launches_logged = archiver.launches - self._launches_logged, archiver.launches
        for _ in range(launched):
            self._log({"event": "browser_launched"})
        return found

    @property
    def browser_launches(self) -> int:
        """How many times this service launched Chromium (one for a whole run)."""
        return self._archiver.launches if self._archiver is not None else 0

    def _log(self, entry: dict[str, Any]) -> None:
        with self._log_lock:
            self.workspace.tools_log.parent.mkdir(parents=True, exist_ok=True)
            append_jsonl(self.workspace.tools_log, {"ts": round(time.time(), 3), **entry})


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)
