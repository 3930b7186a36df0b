"""Claude Code (`claude`, npm `@anthropic-ai/claude-code`): argv, environment and result parsing.

Permissions (seen with 2.1.329): `--permission-mode dontAsk` denies every tool call that no allow
rule approves (exit 0, listed in `permission_denials`; never a hang, and it works as root, unlike
`--dangerously-skip-permissions`). The allow rules are exactly what the role needs:
`Read(//WORKSPACE/**)` (an absolute path is written with a leading `//`), `Edit(//OUTPUT_FILE)` (Edit
rules cover every file-writing tool), and for researchers `Bash(SCRIPT:*)` for the two tool scripts
(core.commands) — claude splits `a && b` and checks each command, so a chained command is denied.
`--disallowedTools` removes the web tools (and writers' shell) so the model is not offered them.

Output (`--output-format json`) is one object: `result`, `is_error`, `subtype`, `session_id`,
`total_cost_usd`, `usage`, `api_error_status`. On an API error claude exits 1 with `is_error: true`
and the HTTP status in `api_error_status`, while `subtype` may still say "success".
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
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
    as_float,
    as_int,
    as_str,
    bad_output,
    crash_or_cause,
    interrupted_or_timed_out,
    json_object,
    mapping,
    sum_counts,
)

PERMISSION_MODE = ("--permission-mode", "dontAsk")
WRITER_DENIED_TOOLS = ("Bash", "WebFetch", "WebSearch")
RESEARCHER_DENIED_TOOLS = ("WebFetch", "WebSearch")
_GLOB_SPECIAL = re.compile(r"([*?\[\]\\])")
PERMISSIONS = PermissionProfile(
    researcher="--permission-mode dontAsk; allowed: Bash(<search script>:*), Bash(<archive script>:*), "
    "Bash(<check script>:*), "
    "Read(//<workspace>/**), Edit(//<output file>); web tools removed",
    writer="--permission-mode dontAsk; allowed: Read(//<workspace>/**), Edit(//<output file>) (and, for the "
    "analyst and synthesizer, Bash(<check script>:*)); shell otherwise and web tools removed",
)
# One quick retry inside claude saves a long session from a blip; our backoff handles the rest.
MAX_RETRIES = "1"


class ClaudeBackend:
    """Claude Code in print mode (`claude -p`), one JSON result object on stdout."""

    name = "claude"
    executable = "claude"
    install_hint = "npm install -g @anthropic-ai/claude-code"
    login_hint = "run `claude` once and log in (or set ANTHROPIC_API_KEY)"
    credential_env: tuple[str, ...] | None = (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
    )
    cli_env: tuple[str, ...] = (
        "ANTHROPIC_*", "CLAUDE_CODE_*", "CLAUDE_CONFIG_DIR", "API_TIMEOUT_MS", "MAX_THINKING_TOKENS",
        "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING", "CLOUD_ML_REGION",
    )  # fmt: skip
    credential_files: tuple[str, ...] = (".credentials.json",)
    permissions = PERMISSIONS

    def build_argv(self, request: AgentRequest) -> list[str]:
        """`claude -p PROMPT --output-format json [--model M] [extra] --permission-mode dontAsk
        --allowedTools RULE... --disallowedTools TOOLS`."""
        argv = [self.executable, "-p", request.prompt, "--output-format", "json"]
        if request.model:
            argv += ["--model", request.model]
        argv += [*request.extra_args, *PERMISSION_MODE]
        allowed = [
            f"Read({_absolute_rule(request.workdir)}/**)",
            f"Edit({_absolute_rule(request.output_file)})",
        ]
        denied: tuple[str, ...] = WRITER_DENIED_TOOLS
        if request.tool_commands:  # a researcher's tools, or a writer's self-check: those commands only
            allowed = [f"Bash({shlex.quote(str(c))}:*)" for c in request.tool_commands] + allowed
            denied = RESEARCHER_DENIED_TOOLS
        # The tool options take several values each: last, so they cannot swallow anything else.
        return [*argv, "--allowedTools", *allowed, "--disallowedTools", " ".join(denied)]

    def build_env(self, request: AgentRequest, base: Mapping[str, str]) -> dict[str, str]:
        """`base` with claude's own API retries bounded (a value the user set is kept)."""
        env = dict(base)
        env.setdefault("CLAUDE_CODE_MAX_RETRIES", MAX_RETRIES)
        return env

    def parse(self, outcome: ProcessOutcome) -> AgentResult:
        """Read claude's JSON result into text, usage and cost, or a classified failure."""
        stopped = interrupted_or_timed_out(self.name, outcome)
        if stopped:
            return stopped
        data = json_object(outcome.stdout)
        if data is None or not ({"result", "is_error", "session_id"} & data.keys()):
            if outcome.exit_code == 0:
                return bad_output(self.name, self.login_hint, outcome.stdout)
            return crash_or_cause(self.name, self.login_hint, outcome, f"{outcome.stderr}\n{outcome.stdout}")
        subtype = as_str(data.get("subtype")) or ""
        if data.get("is_error") is True or outcome.exit_code != 0 or subtype.startswith("error"):
            said = "\n".join(filter(None, [as_str(data.get("result")), outcome.stderr]))
            result = crash_or_cause(
                self.name, self.login_hint, outcome, said, as_int(data.get("api_error_status"))
            )
            if subtype.startswith("error") and result.failure is FailureKind.CRASHED:
                result.message = f"{self.name} stopped before finishing ({subtype})"
            return _fill(result, data)
        final = data.get("result")
        if not isinstance(final, str):
            return bad_output(self.name, self.login_hint, outcome.stdout)
        return _fill(AgentResult(ok=True, text=final), data)

    def config_paths(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """`~/.claude` (or `$CLAUDE_CONFIG_DIR`) and `~/.claude.json`."""
        home = env_home(env)
        folder = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
        return folder, home / ".claude.json"

    def version_argv(self) -> list[str]:
        """The command that prints the installed version."""
        return [self.executable, "--version"]

    def login_check_argv(self) -> list[str] | None:
        """`claude auth status`: prints `{"loggedIn": ...}` without calling a model."""
        return [self.executable, "auth", "status"]

    def read_login_check(self, outcome: ProcessOutcome) -> bool | None:
        """The `loggedIn` answer of `claude auth status` (None when unreadable); it counts an
        `ANTHROPIC_API_KEY` in the environment as logged in."""
        data = json_object(outcome.stdout)
        logged_in = data.get("loggedIn") if data else None
        return logged_in if isinstance(logged_in, bool) else None


def _absolute_rule(path: Path) -> str:
    """An absolute path in claude's rule syntax (gitignore-style: `//` is the file system's root),
    with glob characters escaped."""
    return "/" + _GLOB_SPECIAL.sub(r"\\\1", str(path))


def _fill(result: AgentResult, data: dict[str, object]) -> AgentResult:
    """Copy session, tokens (cache writes and reads count as input) and cost into `result`."""
    usage = mapping(data.get("usage"))
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    result.input_tokens = sum_counts(as_int(usage.get(key)) for key in keys)
    result.output_tokens = as_int(usage.get("output_tokens"))
    result.cost_usd = as_float(data.get("total_cost_usd"))
    result.session_id = as_str(data.get("session_id"))
    result.raw = data
    return result
