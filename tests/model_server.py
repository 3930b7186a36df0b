"""A scripted model server for integration tests: the real agent CLIs talk to it instead of a model.

It binds 127.0.0.1 on a free port and speaks the four wire protocols of `tests/model_wire.py`. Each
request carries our short prompt ("Read the file logs/prompts/X.md ..."); the server reads that
prompt file from the workspace it serves, finds the role from its header, and answers step by step
with tool calls of whatever tools the CLI offered:

- writers (planner, supervisor, reflector, verifier, synthesizer): write the output file, then a
  final text;
- executors: run the prompt's archive command on `<page_base>/<TASK>.html` through the CLI's shell
  tool, read the source ID from the tool's output, write the findings quoting the page, then a
  final text. With `scenario["attacks"]` (a list of `("shell", command)` / `("write", path, text)`),
  a hijacked executor: between the archive and the findings it makes each of those calls.

The file contents come from `tests/scripted_roles.py`, the same builders the fake agent uses.
`Fault`s make it answer an HTTP error status, or never answer, for chosen roles. Every request is
recorded in `requests`, and every tool result a CLI sent back in `tool_results` (by prompt label).
With MODEL_SERVER_DUMP=DIR set, each request body is also saved there.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests import scripted_roles as roles
from tests import scripted_stages as stages
from tests.model_tools import poll_call, shell_call, write_call
from tests.model_wire import ToolCall, Turn, Wire, wire_for

PROMPT_FILE = re.compile(r"Read the file (\S+?\.md) in the current directory")
SOURCE_ID = re.compile(r"""\\?["']id\\?["']\s*:\s*\\?["'](S\d+)""")
HANG_SECONDS = 600.0
RETRY_SOON = {"retry-after": "0", "retry-after-ms": "50"}
RUNAWAY = 12  # requests of one agent call that mean the CLI is looping


@dataclass
class Fault:
    """Answer `status` (None: never answer) to the requests of `role` (None: every role), or of
    the one call `label` (E1, reflector ...) — for good, or with `until_retried` only until
    deepresearch has logged a retry of that role (of that label, when given)."""

    status: int | None
    role: str | None = None
    until_retried: bool = False
    # As a busy API says it: retry soon. The CLIs' own retries stay real but quick (copilot
    # otherwise spends ~60 s retrying a 429 six times before it gives up).
    headers: dict[str, str] = field(default_factory=lambda: dict(RETRY_SOON))
    label: str | None = None


@dataclass(frozen=True)
class Seen:
    """One request the server received."""

    path: str
    role: str  # "" for requests that carry no deepresearch prompt (CLI housekeeping)
    label: str  # the prompt file's name: planner, E1, synthesizer ...
    status: int  # the HTTP status answered; 0 when the server never answered
    step: int  # tool results in the conversation so far
    answer: str  # "text", a tool name, or "error"
    at: float = field(default_factory=time.monotonic)


@dataclass
class Answer:
    """What the server sends back: status (None: nothing, ever), SSE chunks or a JSON body, headers."""

    status: int | None
    body: Iterator[bytes] | dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Script:
    """What the server answers: where the workspace and the pages are, faults, role overrides."""

    workdir: Path
    page_base: str
    faults: list[Fault] = field(default_factory=list)
    scenario: dict[str, Any] = field(default_factory=dict)  # like the fake agent's: planner, reflector


class ModelServer:
    """The scripted model server, run in a thread while used as a context manager."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[Seen] = []
        self.tool_results: dict[str, list[str]] = {}  # label → the tool results of its latest turn
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._ids = itertools.count(1)
        self._dump = Path(os.environ["MODEL_SERVER_DUMP"]) if os.environ.get("MODEL_SERVER_DUMP") else None
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """http://127.0.0.1:PORT"""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing.set()  # releases handlers that were told to never answer
        self.server.shutdown()
        self.server.server_close()

    def seen(self, role: str | None = None, label: str | None = None) -> list[Seen]:
        """The requests that carried a deepresearch prompt (of `role` / `label` when given)."""
        with self._lock:
            return [
                s for s in self.requests if s.role and role in (None, s.role) and label in (None, s.label)
            ]

    def answer(self, wire: Wire, path: str, body: dict[str, Any]) -> Answer:
        """The status (None: never answer), SSE chunks or an error body, and extra headers."""
        n = next(self._ids)
        if self._dump:
            self._dump.mkdir(parents=True, exist_ok=True)
            (self._dump / f"{n:03d}-{wire.name}.json").write_text(
                json.dumps(body, indent=1), encoding="utf-8"
            )
        turn = wire.read(body)
        found = PROMPT_FILE.search(turn.text) if turn.tools else None
        role = label = ""  # a request without our prompt: a ping, or the CLI's own housekeeping
        if found:
            prompt = (self.script.workdir / found.group(1)).read_text(encoding="utf-8")
            role, label = roles.header(prompt, "Role"), Path(found.group(1)).stem
        fault = self._fault(role, label)
        if fault is not None:
            status = fault.status or 0
            self._record(Seen(path, role, label, status, len(turn.results), "error"))
            return Answer(fault.status, wire.error(status) if status else {}, fault.headers)
        if not found:
            self._record(Seen(path, "", "", 200, len(turn.results), "text"))
            return Answer(200, wire.text("OK", turn.model))
        with self._lock:
            self.tool_results[label] = list(turn.results)
        attacks = self.script.scenario.get("attacks") or []
        if len(self.seen(label=label)) >= RUNAWAY + len(attacks):
            self._record(Seen(path, role, label, 400, len(turn.results), "error"))
            return Answer(400, wire.error(400))  # a CLI looping on our answers: fail fast, visibly
        step = self._step(role, prompt, turn)
        if isinstance(step, ToolCall):
            step = replace(step, call_id=f"call_{n}")  # ids must differ within a conversation
        answered = step.name if isinstance(step, ToolCall) else "text"
        self._record(Seen(path, role, label, 200, len(turn.results), answered))
        if isinstance(step, ToolCall):
            return Answer(200, wire.tool_call(step, turn.model))
        return Answer(200, wire.text(step, turn.model))

    def _record(self, seen: Seen) -> None:
        with self._lock:
            self.requests.append(seen)

    def _fault(self, role: str, label: str) -> Fault | None:
        """The first fault for this role and label ("" for requests without our prompt: faults for all)."""
        for fault in self.script.faults:
            if fault.role not in (None, role) or fault.label not in (None, label):
                continue
            key, value = ("label", label) if fault.label else ("role", role)
            if fault.until_retried and self._retried(key, value):
                continue
            return fault
        return None

    def _retried(self, key: str, value: str) -> bool:
        """Whether deepresearch has logged a retry whose `key` ("role" or "label") is `value`."""
        events = self.script.workdir / "logs" / "events.jsonl"
        try:
            lines = events.read_text(encoding="utf-8").splitlines()
        except OSError:
            return False
        return any('"agent_retry"' in line and json.loads(line).get(key) == value for line in lines)

    def _step(self, role: str, prompt: str, turn: Turn) -> ToolCall | str:
        """The next move of a well-behaved model: a tool call, or the final text."""
        done = len(turn.results)
        output = roles.header(prompt, "Output file")
        if role != "executor":
            return write_call(turn, self._path(output), self._content(role, prompt)) if done == 0 else "Done."
        task = roles.header(prompt, "Task")
        url = f"{self.script.page_base}/{task}.html"
        command = roles.archive_command(prompt)
        if command is None:
            return "The prompt names no archive command."
        if done == 0:
            return shell_call(turn, shlex.join([*command, "--json", url]))
        found = [SOURCE_ID.search(result) for result in turn.results]
        archived = next((i for i, match in enumerate(found) if match is not None), None)
        attacks = self.script.scenario.get("attacks") or []
        if archived is not None and done - archived - 1 < len(attacks):  # hijacked: do what the page said
            kind, *args = attacks[done - archived - 1]
            return shell_call(turn, args[0]) if kind == "shell" else write_call(turn, args[0], args[1])
        if archived is not None and done - archived - 1 == len(attacks):  # write the findings
            sources, facts = roles.default_findings(task, self.script.page_base)
            text = roles.executor_document(task, sources, facts, {"A": found[archived][1]})
            return write_call(turn, self._path(output), text)
        if archived is not None:
            return "Done."
        # codex: the command outlived its first wait, so wait for the rest of its output
        return poll_call(turn) or f"The archive command printed no source ID: {turn.results[-1][:500]}"

    def _path(self, output: str) -> str:
        return str(self.script.workdir / output)

    def _content(self, role: str, prompt: str) -> str:
        """The role's output file, built as the fake agent builds it (tests/fake_agent)."""
        scenario, workdir = self.script.scenario, self.script.workdir
        spec = scenario.get(role) or {}
        repair = "Your previous output was not accepted" in prompt
        if role == "planner" and Path(roles.header(prompt, "Output file")).name.startswith("clarify"):
            return roles.clarify_output(spec)
        if role == "planner":
            return roles.plan_output(spec)
        if role == "supervisor":
            return roles.briefs_output(prompt)
        if role == "reflector":
            return roles.reflector_output(spec, int(roles.header(prompt, "Round") or 0))
        if role == "verifier":
            return roles.verifier_output(spec, prompt)
        if role == "synthesizer":
            return stages.report_output(spec, workdir, repair, prompt)
        if role == "analyst":
            return stages.analyst_output(spec, workdir, repair)
        if role == "charts":
            return stages.charts_output(spec, workdir, repair)
        raise ValueError(f"no scripted output for role {role!r}")


def _handler(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            return None

        def do_HEAD(self) -> None:  # claude: HEAD /api/hello before its first call
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:  # model lists
            self._json(200, {"object": "list", "data": [{"id": "test-model", "object": "model"}]})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            wire = wire_for("POST", self.path)
            if wire is None:
                self._json(404, {"error": {"message": f"no scripted answer for {self.path}"}})
                return
            try:
                answer = server.answer(wire, self.path, json.loads(raw or b"{}"))
            except Exception as exc:  # the failure shows in the CLI's output and the test's assertion
                self._json(500, {"error": {"message": f"model server: {type(exc).__name__}: {exc}"}})
                raise
            if answer.status is None:
                server._closing.wait(HANG_SECONDS)
                self.close_connection = True
                return
            if isinstance(answer.body, dict):
                self._json(answer.status, answer.body, answer.headers)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream" if wire.stream else "application/json")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in answer.body:
                self.wfile.write(chunk)
            self.wfile.flush()
            self.close_connection = True

        def _json(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
