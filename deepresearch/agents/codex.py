"""Codex CLI (`codex`, npm `@openai/codex`): argv, environment and result parsing.

Tools (seen with 0.169.0): codex acts through its shell (file edits are commands or patches), so
the shell cannot be taken from any role, and its rules cannot limit which commands run (execpolicy
rules are prefix matches with no "deny everything else"). What it can express is what those
commands touch: each call gets a permission profile (`-c default_permissions=...` and
`-c permissions.deepresearch.filesystem={...}`) under which commands read only the system's minimal
folders, the workspace, the folders the tool scripts run from and codex's own helper folder, write
only the call's own folder `logs/calls/<label>/` (where its output file is), and reach no network
address. The tool
scripts reach the web through the run's tool service, over its Unix socket, and codex's seccomp
filter refuses every Unix socket while the network is off: researchers therefore get the network
"on" behind codex's own proxy (`features.network_proxy`) with no domain allowed, which blocks every
host and every local or private address, and `dangerously_allow_all_unix_sockets` (seen with
0.169.0: `curl` to example.com or 127.0.0.1 is refused by the proxy, the tool service answers).
`-c web_search="disabled"` removes codex's own web search. No `--sandbox` flag: it would switch codex back to its older sandbox
settings, which ignore the profile (so would `sandbox_mode` in the user's ~/.codex/config.toml).

Output (`--json`) is JSON lines: `thread.started{thread_id}`, `item.completed{item}` (the final
text is the last `agent_message`), `turn.completed{usage}`, and on failure `turn.failed{error}`
and `error{message}` events with exit 1. No cost is reported. Codex bounds its own request and
stream retries by default, so the environment is passed through unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from deepresearch.agents.base import (
    AgentRequest,
    AgentResult,
    FailureKind,
    PermissionProfile,
    ProcessOutcome,
    env_home,
)
from deepresearch.agents.parsing import (
    as_int,
    as_str,
    bad_output,
    crash_or_cause,
    failure_message,
    interrupted_or_timed_out,
    json_lines,
    mapping,
    status_in_text,
    sum_counts,
)

PROFILE = "deepresearch"
NO_WEB_SEARCH = ("-c", 'web_search="disabled"')
# Researchers: Unix sockets (the tool service) but no host, through codex's proxy (module docstring).
SOCKETS_ONLY = (
    "-c",
    f"permissions.{PROFILE}.network={{enabled = true, dangerously_allow_all_unix_sockets = true}}",
    "-c",
    "features.network_proxy=true",
)
PERMISSIONS = PermissionProfile(
    researcher="permission profile: read the system's minimal folders, the workspace and the tool "
    "scripts' interpreter; write only the call's own folder logs/calls/<label>/; no host reachable (network proxy, no domain allowed), Unix "
    "sockets allowed (the tool service); web search off",
    writer="the same filesystem rules; the analyst and synthesizer (the self-check script) with the "
    "tool scripts' folders and Unix sockets, the other writers without them and with no network",
    gaps=(
        "cannot limit which commands run (only what they read, write and reach)",
        "cannot allow one Unix socket: the roles that run tool scripts may connect to any (the OS sandbox "
        "hides /run's)",
        "writes: anywhere in the call's own folder, not only the output file",
        "a sandbox_mode in ~/.codex/config.toml switches codex to its older sandbox, which ignores the profile",
    ),
)
# What codex says (without a status) after its own retries of a 5xx.
OVERLOADED_PHRASE = "experiencing high demand"


class CodexBackend:
    """`codex exec` with JSON-lines events on stdout."""

    name = "codex"
    executable = "codex"
    install_hint = "npm install -g @openai/codex"
    login_hint = "run `codex login` (or `codex login --with-api-key`)"
    credential_env: tuple[str, ...] | None = ("OPENAI_API_KEY", "CODEX_API_KEY")
    cli_env: tuple[str, ...] = ("OPENAI_*", "CODEX_*")
    credential_files: tuple[str, ...] = ("auth.json",)
    permissions = PERMISSIONS

    def build_argv(self, request: AgentRequest) -> list[str]:
        """`codex exec --json --skip-git-repo-check -C DIR [-m M] -c default_permissions=deepresearch
        -c permissions.deepresearch.filesystem={...} -c web_search="disabled" [extra] PROMPT`."""
        argv = [self.executable, "exec", "--json", "--skip-git-repo-check", "-C", str(request.workdir)]
        if request.model:
            argv += ["-m", request.model]
        argv += ["-c", f'default_permissions="{PROFILE}"', "-c", filesystem_rules(request), *NO_WEB_SEARCH]
        if request.tool_commands:  # the tool scripts reach the run's tool service over its socket
            argv += SOCKETS_ONLY
        return [*argv, *request.extra_args, request.prompt]

    def build_env(self, request: AgentRequest, base: Mapping[str, str]) -> dict[str, str]:
        """`base` unchanged (codex's own retries are already bounded)."""
        return dict(base)

    def config_paths(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """`$CODEX_HOME`, else `~/.codex`."""
        return (codex_home(env),)

    def parse(self, outcome: ProcessOutcome) -> AgentResult:
        """Read codex's events into the last agent message and usage, or a classified failure."""
        stopped = interrupted_or_timed_out(self.name, outcome)
        if stopped:
            return stopped
        run = _Run.read(json_lines(outcome.stdout))
        if run.failures or outcome.exit_code != 0:
            said = "\n".join(m for m in [*run.failures, *run.errors] if m)
            result = crash_or_cause(
                self.name, self.login_hint, outcome, f"{said}\n{outcome.stderr}", status_in_text(said)
            )
            if result.failure is FailureKind.CRASHED and OVERLOADED_PHRASE in said.lower():
                kind = FailureKind.OVERLOADED
                result = AgentResult.failed(kind, failure_message(self.name, self.login_hint, kind))
        elif run.text is None and not run.completed:
            return bad_output(self.name, self.login_hint, outcome.stdout)
        else:
            result = AgentResult(ok=True, text=run.text or "")
        result.session_id = run.thread_id
        result.input_tokens, result.output_tokens = sum_counts(run.inputs), sum_counts(run.outputs)
        result.raw = {"events": run.events, "errors": run.errors}
        return result

    def version_argv(self) -> list[str]:
        """The command that prints the installed version."""
        return [self.executable, "--version"]

    def login_check_argv(self) -> list[str] | None:
        """`codex login status`: exit 0 when logged in, without calling a model."""
        return [self.executable, "login", "status"]

    def read_login_check(self, outcome: ProcessOutcome) -> bool | None:
        """Whether `codex login status` reported a login (None when it could not tell)."""
        if outcome.exit_code == 0:
            return True
        said = f"{outcome.stdout}\n{outcome.stderr}".lower()
        return False if "not logged in" in said else None


def codex_home(env: Mapping[str, str]) -> Path:
    """`$CODEX_HOME`, else `~/.codex`."""
    return Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else env_home(env) / ".codex"


def filesystem_rules(request: AgentRequest) -> str:
    """The `-c` value of the call's filesystem rules (see the module docstring)."""
    # codex runs its sandboxed commands through a helper it links under its home's tmp/.
    readable = [codex_home(request.environ) / "tmp", *request.tool_roots]
    entries = [('":minimal"', '"read"')] + [(json.dumps(str(p)), '"read"') for p in dict.fromkeys(readable)]
    # Writes: the call's own folder (its output file's), never logs/ or another call's folder.
    own = request.output_file.parent
    writable = (
        own.relative_to(request.workdir).as_posix() if own.is_relative_to(request.workdir) else str(own)
    )
    roots = {".": "read", writable: "write"}  # (a call in a folder of its own: "." is its folder)
    table = ", ".join(f"{json.dumps(path)} = {json.dumps(access)}" for path, access in roots.items())
    entries.append(('":workspace_roots"', f"{{{table}}}"))
    table = ", ".join(f"{key} = {value}" for key, value in entries)
    return f"permissions.{PROFILE}.filesystem={{{table}}}"


@dataclass
class _Run:
    """What one `codex exec --json` stream says."""

    events: int = 0
    thread_id: str | None = None
    text: str | None = None
    completed: bool = False
    inputs: list[int | None] = field(default_factory=list)
    outputs: list[int | None] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, events: list[dict[str, object]]) -> _Run:
        """Fold the events of one run."""
        run = cls(events=len(events))
        for event in events:
            kind = event.get("type")
            if kind == "thread.started":
                run.thread_id = as_str(event.get("thread_id")) or run.thread_id
            elif kind == "item.completed":
                item = mapping(event.get("item"))
                if item.get("type") == "agent_message":
                    run.text = as_str(item.get("text")) or run.text
                elif item.get("type") == "error":
                    run.errors.append(as_str(item.get("message")) or "")
            elif kind == "turn.completed":
                run.completed = True
                usage = mapping(event.get("usage"))
                run.inputs.append(as_int(usage.get("input_tokens")))  # includes cached_input_tokens
                run.outputs.append(as_int(usage.get("output_tokens")))
            elif kind == "turn.failed":
                run.failures.append(as_str(mapping(event.get("error")).get("message")) or "turn failed")
            elif kind == "error":
                run.errors.append(as_str(event.get("message")) or "")
        return run
