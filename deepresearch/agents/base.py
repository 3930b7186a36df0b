"""The small interface every agent CLI backend implements, and the data that crosses it.

`ProcessOutcome` (what a finished process left) comes from `core.process`, which runs it.

A backend knows two things about its CLI: how to build the argv (and environment) for "run this
prompt in this folder, non-interactively, with these tools", and how to read what the CLI printed
into one `AgentResult`. It never starts a process: `agents.runner` does that.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol, runtime_checkable

from deepresearch.core.process import ProcessOutcome
from deepresearch.core.roles import ToolProfile


class FailureKind(StrEnum):
    """Why an agent call failed; decides between retrying and stopping with advice."""

    NOT_INSTALLED = "not_installed"
    NOT_LOGGED_IN = "not_logged_in"
    RATE_LIMITED = "rate_limited"
    OVERLOADED = "overloaded"  # 5xx / overloaded / server error
    NETWORK = "network"
    TIMEOUT = "timeout"
    CRASHED = "crashed"  # non-zero exit without a recognisable cause
    BAD_OUTPUT = "bad_output"  # ran, but its output (stdout or output file) is unusable
    CONTEXT_TOO_LONG = "context_too_long"  # the prompt does not fit the model's context window
    BAD_ARGUMENTS = "bad_arguments"
    INTERRUPTED = "interrupted"

    @property
    def retryable(self) -> bool:
        """Transient failures worth another attempt with backoff."""
        return self in {
            FailureKind.RATE_LIMITED,
            FailureKind.OVERLOADED,
            FailureKind.NETWORK,
            FailureKind.TIMEOUT,
            FailureKind.CRASHED,
        }


@dataclass(frozen=True)
class AgentRequest:
    """One agent call: everything a backend needs to build its argv."""

    role: str
    label: str  # log name: planner, E3, reflector ...
    prompt: str  # the short inline prompt (points at prompt_file)
    prompt_file: Path  # the full rendered prompt, under logs/prompts/
    workdir: Path
    output_file: Path
    tools: ToolProfile
    model: str | None = None
    extra_args: tuple[str, ...] = ()
    # The commands a researcher may run (core.commands: the search and archive scripts), and the
    # folders the agent's commands read besides the workspace (the CLI's install and, for
    # researchers, the scripts' interpreter); both feed the CLI's permission rules.
    tool_commands: tuple[Path, ...] = ()
    tool_roots: tuple[Path, ...] = ()
    # The environment the call will get (no secrets: see core.agent_env), for CLIs whose rules
    # name their own folders (codex's home).
    environ: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PermissionProfile:
    """How a CLI's own permission rules confine each tool profile, and what they cannot express
    (shown by `deepresearch doctor` and the README's Security model)."""

    researcher: str
    writer: str
    gaps: tuple[str, ...] = ()


@dataclass
class AgentResult:
    """One parsed agent call: the final text and usage, or a classified failure."""

    ok: bool
    text: str = ""
    session_id: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    failure: FailureKind | None = None
    message: str = ""  # for the user: what went wrong
    raw: dict[str, object] = field(default_factory=dict)

    @classmethod
    def failed(cls, kind: FailureKind, message: str, **usage: object) -> AgentResult:
        """A failed result of this kind with a message for the user."""
        result = cls(ok=False, failure=kind, message=message)
        for key, value in usage.items():
            setattr(result, key, value)
        return result


class AgentBackend(Protocol):
    """One agent CLI. Implementations live one per module in `deepresearch/agents/`."""

    name: str  # copilot | claude | gemini | codex | opencode | qwen | custom
    executable: str  # the program looked up on PATH
    install_hint: str  # the command that installs it
    login_hint: str  # what to run to log in
    # Environment variables that can carry its credentials besides its own login store (for
    # `deepresearch doctor`); None when unknown (a custom command).
    credential_env: tuple[str, ...] | None
    # The other variables its CLI reads (endpoint, home, model, options; a trailing * is a prefix):
    # with credential_env, all an agent gets of the person's environment besides the basics
    # (core.agent_env) and the `agent_env` setting.
    cli_env: tuple[str, ...]
    # Files inside its config folders that hold credentials: in the sandbox the config is a private
    # copy per call, but these stay the real files, so a token the CLI refreshes is kept.
    credential_files: tuple[str, ...]
    permissions: PermissionProfile

    def build_argv(self, request: AgentRequest) -> list[str]:
        """The full argv (executable first) for this request."""
        ...

    def build_env(self, request: AgentRequest, base: Mapping[str, str]) -> dict[str, str]:
        """The environment for the call: `base` plus what the CLI needs (bounded retries...)."""
        ...

    def parse(self, outcome: ProcessOutcome) -> AgentResult:
        """Read what the CLI printed into a result or a classified failure."""
        ...

    def config_paths(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """The CLI's own config and credential folders and files (a private copy per call in the
        sandbox)."""
        ...

    def version_argv(self) -> list[str] | None:
        """The command that prints the installed version (None: it has none)."""
        ...

    def login_check_argv(self) -> list[str] | None:
        """A command that tells whether it is logged in without calling a model (None: none)."""
        ...

    def read_login_check(self, outcome: ProcessOutcome) -> bool | None:
        """What `login_check_argv` said: logged in or not, None when it could not tell."""
        ...


@dataclass(frozen=True)
class ModelEndpoint:
    """Where a CLI configured for an OpenAI-compatible provider sends a model's requests."""

    provider: str  # the provider's name in the CLI's configuration
    model: str
    base_url: str  # ends before /chat/completions, e.g. http://127.0.0.1:11434/v1
    api_key: str | None = None  # resolved for the doctor's reachability check; never printed


@runtime_checkable
class ProviderConfigured(Protocol):
    """A backend whose CLI reaches any provider its own configuration names (opencode, qwen): it
    can say which endpoint a model resolves to, for `deepresearch doctor`."""

    def model_endpoint(self, model: str | None, env: Mapping[str, str]) -> ModelEndpoint | str:
        """The endpoint `model` (else the CLI's configured default) resolves to, or why none."""
        ...


# Phrases that CLIs print for each failure class, in the order they are checked.
_PATTERNS: list[tuple[FailureKind, re.Pattern[str]]] = [
    (
        FailureKind.NOT_LOGGED_IN,
        re.compile(
            r"not logged in|please run /login|no authentication|unauthori[sz]ed|invalid api key|"
            r"authentication|\b401\b|api key not valid|login required",
            re.I,
        ),
    ),
    (FailureKind.RATE_LIMITED, re.compile(r"rate.?limit|too many requests|\b429\b|quota", re.I)),
    (
        FailureKind.CONTEXT_TOO_LONG,
        re.compile(
            r"context.?length|context.?window|maximum context|prompt is too long|context.?overflow|"
            r"exceeds? the (?:model'?s? )?(?:maximum )?(?:context|input|token limit)",
            re.I,
        ),
    ),
    (
        FailureKind.OVERLOADED,
        re.compile(r"overloaded|internal server error|server error|\b50[0-4]\b|service unavailable", re.I),
    ),
    (
        FailureKind.NETWORK,
        # The error codes are matched as written: "FileNotFoundError" is a crash, not ENOTFOUND.
        re.compile(
            r"(?-i:\b(?:ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EAI_AGAIN)\b)|network error|fetch failed",
            re.I,
        ),
    ),
    (FailureKind.BAD_ARGUMENTS, re.compile(r"unknown option|unexpected argument|invalid option", re.I)),
]


def classify_text(text: str, default: FailureKind = FailureKind.CRASHED) -> FailureKind:
    """The failure class whose phrases appear in `text`, else `default`."""
    for kind, pattern in _PATTERNS:
        if pattern.search(text):
            return kind
    return default


def classify_http_status(status: int | None) -> FailureKind | None:
    """The failure class of an API HTTP status reported by a CLI (None when not an error)."""
    if status is None or status < 400:
        return None
    if status in (401, 403):
        return FailureKind.NOT_LOGGED_IN
    if status == 429:
        return FailureKind.RATE_LIMITED
    if status >= 500:
        return FailureKind.OVERLOADED
    return FailureKind.BAD_ARGUMENTS


def tail(text: str, lines: int = 5) -> str:
    """The last few non-empty lines of a CLI's output, for error messages."""
    kept = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def declared_env(backend: AgentBackend) -> tuple[str, ...]:
    """Every variable (or prefix) a backend declares: its credentials and what its CLI reads."""
    return (*(backend.credential_env or ()), *backend.cli_env)


def env_home(env: Mapping[str, str]) -> Path:
    """The home folder the call's environment names (else this process's)."""
    return Path(env["HOME"]) if env.get("HOME") else Path.home()
