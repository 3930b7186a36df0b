"""GitHub Copilot CLI (`copilot`, npm `@github/copilot`): argv, environment and result parsing.

Tools (seen with 1.0.102): copilot grants permissions per tool kind (shell, write, url, MCP
server); in `-p` mode anything not granted is "Permission denied" (exit 0, no hang), and a deny rule
wins over any allow. File access is limited to the working directory (`-C DIR`); `--disallow-temp-dir`
takes the temp folder away too. Both profiles get `--allow-tool=write(OUTPUT_FILE)` (an absolute
path: only that file) and lose the web tools (`--excluded-tools`). Researchers get
`--allow-tool=shell(SCRIPT:*)` for the two tool scripts (core.commands): copilot matches shell rules
on the command's name, which is why each tool is an executable of its own; a chained
`script && touch x` is denied. The scripts live in the workspace, so copilot's path check passes
without `--allow-all-paths`. Writers get `--deny-tool=shell` and no shell tool at all.
`--no-ask-user` keeps copilot from pausing for input.

Output (`--output-format json`) is JSON lines: `assistant.message{content}`,
`tool.execution_complete`, `session.error{errorType, statusCode}` and a final
`result{sessionId, exitCode, usage}`. An event's payload is read from its `data` member when it has
one, else from the event itself. Token counts are only in `--usage-output-file`, which `parse`
cannot see, so they are read from `result.usage` when a release puts them there; copilot reports
premium requests, not money, so there is no cost. Not logged in: exit 1, "No authentication
information found."
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path

from deepresearch.agents.base import (
    AgentRequest,
    AgentResult,
    PermissionProfile,
    ProcessOutcome,
    env_home,
)
from deepresearch.agents.parsing import (
    as_int,
    as_str,
    bad_output,
    crash_or_cause,
    interrupted_or_timed_out,
    json_lines,
    mapping,
    status_in_text,
    sum_counts,
)

WRITER_PERMISSIONS = (
    "--deny-tool=shell",
    "--excluded-tools=bash,web_fetch,web_search",
    "--disallow-temp-dir",
)
RESEARCHER_PERMISSIONS = ("--excluded-tools=web_fetch,web_search", "--disallow-temp-dir")
PERMISSIONS = PermissionProfile(
    researcher="--allow-tool=shell(<search script>:*) shell(<archive script>:*) shell(<check script>:*) "
    "write(<output file>); "
    "files limited to the workspace (-C, --disallow-temp-dir); web tools excluded",
    writer="--allow-tool=write(<output file>), --deny-tool=shell (the analyst and synthesizer: "
    "--allow-tool=shell(<check script>:*) instead); files limited to the workspace; web tools excluded",
    gaps=("reads: any file in the workspace (not only task.md, the archives and its prompt)",),
)


class CopilotBackend:
    """Copilot CLI in prompt mode (`copilot -p`), JSON-lines events on stdout."""

    name = "copilot"
    executable = "copilot"
    install_hint = "npm install -g @github/copilot"
    login_hint = "run `copilot` once and use /login (or set COPILOT_GITHUB_TOKEN or GH_TOKEN)"
    # Where credentials can come from besides its own /login store (for `deepresearch doctor`).
    credential_env: tuple[str, ...] | None = (
        "COPILOT_GITHUB_TOKEN",
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "COPILOT_PROVIDER_BASE_URL",
    )
    cli_env: tuple[str, ...] = ("COPILOT_*", "GH_HOST")
    # Its token lives in the system keychain or in config.json beside its settings: the whole file
    # stays private to the call (GitHub's tokens do not expire, so nothing is lost).
    credential_files: tuple[str, ...] = ()
    permissions = PERMISSIONS

    def build_argv(self, request: AgentRequest) -> list[str]:
        """`copilot -p PROMPT -C DIR --no-ask-user --output-format json [--model M] PERMISSIONS [extra]`."""
        argv = [self.executable, "-p", request.prompt, "-C", str(request.workdir), "--no-ask-user"]
        argv += ["--output-format", "json"]
        if request.model:
            argv += ["--model", request.model]
        argv.append(f"--allow-tool=write({request.output_file})")
        if not request.tool_commands:  # a writer without the self-check: no shell at all
            argv += WRITER_PERMISSIONS
        else:
            argv += [
                f"--allow-tool=shell({shlex.quote(str(command))}:*)" for command in request.tool_commands
            ]
            argv += RESEARCHER_PERMISSIONS
        return argv + list(request.extra_args)

    def build_env(self, request: AgentRequest, base: Mapping[str, str]) -> dict[str, str]:
        """`base`; with a bring-your-own provider, also `COPILOT_MODEL` (which it requires) from
        the configured model unless the user set it."""
        env = dict(base)
        if env.get("COPILOT_PROVIDER_BASE_URL") and request.model:
            env.setdefault("COPILOT_MODEL", request.model)
        return env

    def config_paths(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """`$COPILOT_HOME`, else `~/.copilot` (config, sessions, logs)."""
        return (Path(env["COPILOT_HOME"]) if env.get("COPILOT_HOME") else env_home(env) / ".copilot",)

    def parse(self, outcome: ProcessOutcome) -> AgentResult:
        """Read copilot's events into the last assistant message, or a classified failure."""
        stopped = interrupted_or_timed_out(self.name, outcome)
        if stopped:
            return stopped
        events = json_lines(outcome.stdout)
        text: str | None = None
        final: Mapping[str, object] | None = None
        errors: list[Mapping[str, object]] = []
        for event in events:
            kind, payload = event.get("type"), _payload(event)
            if kind == "assistant.message":
                content = as_str(payload.get("content"))
                text = content if content and content.strip() else text
            elif kind == "session.error":
                errors.append(payload)
            elif kind == "result":
                final = payload
        final_exit = as_int(final.get("exitCode")) if final is not None else None
        if outcome.exit_code != 0 or final_exit not in (None, 0) or (errors and final is None):
            result = self._failure(outcome, errors)
        elif text is None and final is None:
            return bad_output(self.name, self.login_hint, outcome.stdout)
        else:
            result = AgentResult(ok=True, text=text or "")
        if final is not None:
            result.session_id = as_str(final.get("sessionId"))
            result.input_tokens, result.output_tokens = _tokens(mapping(final.get("usage")))
            result.raw = {"usage": dict(mapping(final.get("usage")))}
        return result

    def _failure(self, outcome: ProcessOutcome, errors: list[Mapping[str, object]]) -> AgentResult:
        """The last `session.error` decides (its HTTP status first); else stderr and plain stdout."""
        plain = "\n".join(line for line in outcome.stdout.splitlines() if not line.lstrip().startswith("{"))
        said, status = "", None
        if errors:
            last = errors[-1]
            said = " ".join(filter(None, [as_str(last.get("errorType")), as_str(last.get("message"))]))
            status = as_int(last.get("statusCode")) or status_in_text(said)
        return crash_or_cause(
            self.name, self.login_hint, outcome, f"{said}\n{outcome.stderr}\n{plain}", status
        )

    def version_argv(self) -> list[str]:
        """The command that prints the installed version."""
        return [self.executable, "--version"]

    def login_check_argv(self) -> list[str] | None:
        """None: copilot has no auth status command that avoids a session."""
        return None

    def read_login_check(self, outcome: ProcessOutcome) -> bool | None:
        """None: there is no login check to read."""
        return None


def _payload(event: Mapping[str, object]) -> Mapping[str, object]:
    """An event's fields: its `data` member merged over the event itself."""
    data = event.get("data")
    return {**event, **data} if isinstance(data, Mapping) else event


def _tokens(usage: Mapping[str, object]) -> tuple[int | None, int | None]:
    """Input and output tokens from a usage object: its own `inputTokens`/`outputTokens`, else
    the sum over `modelMetrics.<m>.usage` (the shape of copilot's usage file)."""
    own = as_int(usage.get("inputTokens")), as_int(usage.get("outputTokens"))
    if own != (None, None):
        return own
    per_model = [mapping(mapping(m).get("usage")) for m in mapping(usage.get("modelMetrics")).values()]
    return (
        sum_counts(as_int(u.get("inputTokens")) for u in per_model),
        sum_counts(as_int(u.get("outputTokens")) for u in per_model),
    )
