"""Agent calls: pick the role's backend, save the prompt, run the CLI, retry what is transient.

`AgentRunner.call` is how the pipeline talks to any agent CLI. It writes the rendered prompt to
`logs/prompts/`, runs the CLI through the one `ProcessRunner`, parses the output with the backend,
records usage in the run's `Budget` (every attempt is reserved there before it starts, under the
stage the call belongs to: a call past the ceiling never starts), emits start/finish events, retries
retryable failures with exponential backoff (a retry the budget refuses is not made), and raises
`AgentError` / `NoAgentError` for failures that retrying cannot fix.

Every call is confined (docs: README "Security model"; agents.confine): its environment is an
allowlist (core.agent_env) that points the tool scripts at the run's tool service; it may write only
its own folder `logs/calls/<label>/`; researchers get the search and archive scripts, and the roles
whose output code checks the self-check script (core.commands), and the CLI's rules allow only
those; and, where bubblewrap works (or `sandbox: bwrap` demands it), the process runs inside the OS
sandbox (core.sandbox) with a private copy of its CLI's configuration.
"""

from __future__ import annotations

import os
import shlex
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from deepresearch.agents import confine
from deepresearch.agents.base import AgentBackend, AgentRequest, AgentResult, FailureKind
from deepresearch.agents.registry import get_backend, resolve_executable
from deepresearch.core import sandbox
from deepresearch.core.attribution import CALL_ENV, TASK_ENV
from deepresearch.core.budget import Budget, CallTicket
from deepresearch.core.commands import (
    SERVICE_ENV,
    WORKDIR_ENV,
    client_roots,
    tool_commands,
    write_tool_commands,
)
from deepresearch.core.config import Config
from deepresearch.core.errors import AgentError, BudgetExhaustedError, NoAgentError
from deepresearch.core.events import AgentFinished, AgentRetry, AgentStarted, EventSink, Notice
from deepresearch.core.process import ProcessRunner
from deepresearch.core.proctable import ProcessTable
from deepresearch.core.roles import Role, tools_for
from deepresearch.core.spendplan import Stage
from deepresearch.core.workspace import Workspace

FINAL_FAILURES = {FailureKind.NOT_INSTALLED, FailureKind.NOT_LOGGED_IN, FailureKind.BAD_ARGUMENTS}


class ToolEndpoint(Protocol):
    """The run's tool service, as the runner sees it: where agents reach it."""

    def address(self) -> str:
        """The service's socket path (restarting the service first if it died)."""
        ...


@dataclass
class Usage:
    """Running totals of agent calls, tokens and cost (thread-safe through AgentRunner's lock)."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls_by_role: dict[str, int] = field(default_factory=dict)

    def add(self, role: str, result: AgentResult) -> None:
        """Count one finished attempt."""
        self.calls += 1
        self.calls_by_role[role] = self.calls_by_role.get(role, 0) + 1
        self.input_tokens += result.input_tokens or 0
        self.output_tokens += result.output_tokens or 0
        self.cost_usd += result.cost_usd or 0.0


@dataclass(frozen=True)
class AgentCall:
    """What the pipeline asks for: one role, one prompt, one output file."""

    role: Role
    label: str
    task_id: str
    prompt_text: str
    output_file: Path
    prompt_name: str = ""  # file name under logs/prompts/ (default: the label)
    stage: Stage = Stage.RESEARCH  # what the budget counts it as (what it must leave for later)
    ticket: CallTicket | None = None  # a reservation made by the caller for the first attempt


class AgentRunner:
    """Runs agent calls for one workspace with one configuration."""

    def __init__(
        self,
        workspace: Workspace,
        config: Config,
        sink: EventSink,
        environ: Mapping[str, str] | None = None,
        processes: ProcessRunner | None = None,
        sleep: Callable[[float], None] = time.sleep,
        which: Callable[[str], str | None] = shutil.which,
        budget: Budget | None = None,
    ) -> None:
        self.workspace = workspace
        self.config = config
        self.sink = sink
        self.environ = dict(os.environ if environ is None else environ)
        self.processes = processes or ProcessRunner()
        self.sleep = sleep
        self.which = which
        self.usage = Usage()
        self.budget = budget or Budget(workspace, config)
        self.tool_service: ToolEndpoint | None = None  # set by the orchestrator for its run
        self.probe_sandbox: Callable[[], sandbox.SandboxStatus] = sandbox.probe
        self._sandbox: tuple[sandbox.SandboxStatus, bool] | None = None
        self._lock = threading.Lock()
        self._backends: dict[str, tuple[AgentBackend, str]] = {}
        self.process_table = ProcessTable(workspace.private, workspace.root)

    def sandbox_state(self) -> tuple[sandbox.SandboxStatus, bool]:
        """(what bubblewrap can do here, whether agents run in it), decided once per runner; a
        ConfigError for `sandbox: bwrap` without a working bubblewrap, a warning for `auto`, and a
        ConfigError when the workspace or a `sandbox_paths` folder would show the home folder."""
        with self._lock:
            if self._sandbox is None:
                home = Path(self.environ.get("HOME") or Path.home())
                sandbox.check_workspace(self.workspace.root, home)
                sandbox.check_writable(self.config.sandbox_paths, home)
                mode = self.config.sandbox
                status = (
                    self.probe_sandbox()
                    if mode != sandbox.SandboxMode.OFF
                    else sandbox.SandboxStatus(None, False, "off")
                )
                used = sandbox.decide(mode, status)
                self._sandbox = (status, used)
                warning = sandbox.auto_warning(mode, status)
                if warning is not None:
                    self.sink(Notice(f"{warning[0]} (sandbox: auto) → {warning[1]}", "warning"))
            return self._sandbox

    def backend_for(self, role: str) -> tuple[AgentBackend, str]:
        """The role's backend and its resolved executable (NoAgentError when not installed)."""
        name = self.config.role(role).agent
        if name is None:
            raise NoAgentError("no agent CLI chosen for role " + role)
        with self._lock:
            if name not in self._backends:
                backend = get_backend(name, self.config)
                self._backends[name] = (backend, resolve_executable(backend, self.which))
            return self._backends[name]

    def call(self, call: AgentCall) -> AgentResult:
        """Run one agent call with retries; returns the successful result or the last failure
        (retryable failures exhausted); raises for final failures (not installed / logged in)."""
        backend, executable = self.backend_for(call.role)
        role_config = self.config.role(call.role)
        confine.own_folder(self.workspace, call.output_file)
        prompt_file = self._write_prompt(call)
        tools = tools_for(call.role)
        commands = tool_commands(self.workspace).for_role(call.role)
        if commands:  # rewritten before each call that may run them (an agent could have changed them)
            write_tool_commands(self.workspace)
        request = AgentRequest(
            role=call.role,
            label=call.label,
            prompt=_short_prompt(self.workspace.relative(prompt_file), call, self.workspace),
            prompt_file=prompt_file,
            workdir=self.workspace.root,
            output_file=call.output_file,
            tools=tools,
            model=role_config.model,
            extra_args=tuple(self.config.backend_args.get(backend.name, [])),
            tool_commands=commands,
            tool_roots=(*install_roots(executable), *(client_roots() if commands else ())),
            environ=self._child_env(call, backend),
        )
        attempts = self.config.retries + 1
        result = AgentResult.failed(FailureKind.CRASHED, "not run")
        ticket = call.ticket
        try:
            for attempt in range(1, attempts + 1):
                if ticket is None or not ticket.open:
                    try:
                        ticket = self.budget.reserve_call(call.stage)
                    except BudgetExhaustedError as exc:
                        if attempt == 1:
                            raise
                        result.message = f"{result.message} (not retried: {exc.message})"
                        return result
                if attempt > 1:  # asking the service's address again restarts it if it died meanwhile
                    request = replace(request, environ=self._child_env(call, backend))
                result = self._attempt(backend, request, call, attempt, role_config.timeout, ticket)
                if result.ok:
                    return result
                assert result.failure is not None
                if result.failure in FINAL_FAILURES:
                    raise _final_error(backend, result)
                if result.failure is FailureKind.INTERRUPTED or not result.failure.retryable:
                    return result
                if attempt < attempts:
                    delay = min(self.config.backoff_max, self.config.backoff_base * 2 ** (attempt - 1))
                    self.sink(AgentRetry(call.role, call.label, attempt, delay, result.message))
                    self.sleep(delay)
            return result
        finally:
            self.budget.release(ticket)  # a reservation whose call never started

    def _attempt(
        self,
        backend: AgentBackend,
        request: AgentRequest,
        call: AgentCall,
        attempt: int,
        timeout: float | None,
        ticket: CallTicket,
    ) -> AgentResult:
        env = backend.build_env(request, request.environ)
        private = self._private_config(backend, env)
        try:
            return self._run(backend, request, call, attempt, timeout, env, private, ticket)
        finally:
            private.close()  # what the call changed in its CLI's configuration goes with the copy

    def _run(
        self,
        backend: AgentBackend,
        request: AgentRequest,
        call: AgentCall,
        attempt: int,
        timeout: float | None,
        env: dict[str, str],
        private: confine.PrivateConfig,
        ticket: CallTicket,
    ) -> AgentResult:
        argv = self._confine(request, env, backend.build_argv(request), private)
        model = request.model
        started_pid: list[int] = []

        def started(pid: int) -> None:
            started_pid.append(pid)
            self.process_table.add(pid, call.label, argv)  # so a run after a crash can stop what is left
            self.sink(AgentStarted(call.role, call.task_id, call.label, backend.name, model, attempt, pid))

        try:
            outcome = self.processes.run(
                argv,
                cwd=self.workspace.root,
                env=env,
                timeout=timeout or self.config.agent_timeout,
                log_path=self.workspace.log_file(call.label),
                on_start=started,
            )
        finally:
            for pid in started_pid:  # its group was killed when the call ended
                self.process_table.remove(pid)
        result = backend.parse(outcome)
        if not result.ok and result.failure is FailureKind.TIMEOUT:
            result.message = (
                f"{backend.name} did not finish within {timeout or self.config.agent_timeout:.0f}s"
            )
        with self._lock:
            self.usage.add(call.role, result)
        self._record_usage(call, backend.name, attempt, result, outcome.duration, ticket)
        self.sink(
            AgentFinished(
                role=call.role,
                task_id=call.task_id,
                label=call.label,
                agent=backend.name,
                attempt=attempt,
                ok=result.ok,
                exit_code=outcome.exit_code,
                duration=round(outcome.duration, 3),
                input_tokens=result.input_tokens,
                output_tokens=result.output_tokens,
                cost_usd=result.cost_usd,
                failure=result.failure.value if result.failure else None,
                message=result.message,
            )
        )
        return result

    def _child_env(self, call: AgentCall, backend: AgentBackend) -> dict[str, str]:
        env = confine.call_environment(self.environ, backend, self.config.agent_env)
        # Agents run `deepresearch archive/search` from the workspace; tell those where it is,
        # where the run's tool service listens, whose calls they are (the task; the batch comes
        # with `--batch N`), and the run's effective search ceiling (a flag or input.md may have
        # set it, which those commands cannot read when they search without the service).
        env[WORKDIR_ENV] = str(self.workspace.root)
        env[TASK_ENV], env[CALL_ENV] = call.task_id, call.prompt_name or call.label
        env["DEEPRESEARCH_MAX_SEARCHES"] = str(self.budget.limits.searches or 0)
        if self.tool_service is not None:
            env[SERVICE_ENV] = self.tool_service.address()
        return env

    def _private_config(self, backend: AgentBackend, env: dict[str, str]) -> confine.PrivateConfig:
        """Private copies of the CLI's configuration when the call runs in the sandbox."""
        _, used = self.sandbox_state()
        return confine.private_config(backend, env) if used else confine.PrivateConfig()

    def _confine(
        self, request: AgentRequest, env: dict[str, str], argv: list[str], private: confine.PrivateConfig
    ) -> list[str]:
        """`argv` inside bubblewrap when the sandbox is in use, else as it is."""
        status, used = self.sandbox_state()
        if not used or status.executable is None:
            return argv
        home = Path(env["HOME"]) if env.get("HOME") else None
        shown = (*request.tool_roots, *sandbox.program_paths(argv, home))
        # (A folder the CLI has not created yet is not kept: it writes into the empty home.)
        extra = [Path(p).expanduser() for p in self.config.sandbox_paths]
        folder = request.output_file.parent
        boxed = confine.confinement(self.workspace, folder, env, private, shown, extra)
        return sandbox.confine(status.executable, boxed, argv)

    def _write_prompt(self, call: AgentCall) -> Path:
        self.workspace.prompts.mkdir(parents=True, exist_ok=True)
        path = self.workspace.prompts / f"{call.prompt_name or call.label}.md"
        path.write_text(call.prompt_text, encoding="utf-8")
        return path

    def _record_usage(
        self,
        call: AgentCall,
        agent: str,
        attempt: int,
        result: AgentResult,
        duration: float,
        ticket: CallTicket,
    ) -> None:
        entry = {
            "ts": time.time(),
            "role": call.role,
            "label": call.label,
            "name": call.prompt_name or call.label,
            "stage": str(call.stage),
            "agent": agent,
            "attempt": attempt,
            "ok": result.ok,
            "duration": round(duration, 3),
            "input_tokens": result.input_tokens,
            "output_tokens": result.output_tokens,
            "cost_usd": result.cost_usd,
        }
        self.budget.record_call(entry, ticket)

    def stop_all(self) -> None:
        """Kill every running agent (Ctrl-C / SIGTERM)."""
        self.processes.stop_all()


def install_roots(executable: str) -> tuple[Path, ...]:
    """Where a CLI is installed: its command's folder and, for an npm install, the outermost
    `node_modules` its real path lies in (its helpers and platform packages sit beside it)."""
    # Real paths: a sandbox (codex's own too) cannot mount a path through a symbolic link.
    command = Path(executable)
    real = command.resolve()
    modules = [parent for parent in real.parents if parent.name == "node_modules"]
    return tuple(dict.fromkeys([command.parent.resolve(), modules[-1] if modules else real.parent]))


def _short_prompt(prompt_rel: str, call: AgentCall, workspace: Workspace) -> str:
    output = workspace.relative(call.output_file)
    return (
        f"You are the {call.role} of a deepresearch run. Read the file {prompt_rel} in the current "
        f"directory and follow its instructions exactly. Write your result to {output} and nothing else."
    )


def _final_error(backend: AgentBackend, result: AgentResult) -> Exception:
    # The backends' messages already end with the login or install advice.
    if result.failure is FailureKind.NOT_LOGGED_IN:
        return NoAgentError(result.message or f"{backend.name} is not logged in: {backend.login_hint}")
    if result.failure is FailureKind.NOT_INSTALLED:
        return NoAgentError(result.message or f"{backend.name} is not installed: {backend.install_hint}")
    return AgentError(
        result.message or f"{backend.name} rejected its arguments",
        hint="check backend_args in your configuration, or update deepresearch for this CLI version "
        f"(command: {shlex.join([backend.executable])})",
    )
