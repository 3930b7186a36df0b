"""GitHub Copilot CLI (`copilot`, npm `@github/copilot`): argv, environment and result parsing.

Tools: copilot grants permissions per tool kind (shell, write, url, MCP server), and a deny rule
wins over any allow. Reading files inside the working directory needs no permission. Writers get
`--allow-tool=write` (create and edit files without asking) and `--deny-tool=shell`, plus
`--excluded-tools=bash,web_fetch,web_search` so the model is not even offered the shell or the
web (URL access is unapproved anyway, hence denied in `-p` mode). Researchers get
`--allow-all-tools --allow-all-urls --allow-all-paths`: shell, writes, fetches of any URL, and paths
outside the workspace. The last one is needed because copilot checks the paths in shell commands
too: without it, `/usr/local/bin/deepresearch archive URL` (any install outside the workspace) is
"Permission denied" in `-p` mode (seen with 1.0.102). Writers' paths stay limited to the workspace
(`-C DIR`) and the temp folder. `--no-ask-user` keeps copilot from
pausing for input.

Output (`--output-format json`) is JSON lines: `assistant.message{content}`,
`tool.execution_complete`, `session.error{errorType, statusCode}` and a final
`result{sessionId, exitCode, usage}`. An event's payload is read from its `data` member when it has
one, else from the event itself. Token counts are only in `--usage-output-file`, which `parse`
cannot see, so they are read from `result.usage` when a release puts them there; copilot reports
premium requests, not money, so there is no cost. Not logged in: exit 1, "No authentication
information found."
"""

from __future__ import annotations

from collections.abc import Mapping

from deepresearch.agents.base import AgentRequest, AgentResult, ProcessOutcome, ToolProfile
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

WRITER_PERMISSIONS = ("--allow-tool=write", "--deny-tool=shell", "--excluded-tools=bash,web_fetch,web_search")
RESEARCHER_PERMISSIONS = ("--allow-all-tools", "--allow-all-urls", "--allow-all-paths")


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

    def build_argv(self, request: AgentRequest) -> list[str]:
        """`copilot -p PROMPT -C DIR --no-ask-user --output-format json [--model M] PERMISSIONS [extra]`."""
        argv = [self.executable, "-p", request.prompt, "-C", str(request.workdir), "--no-ask-user"]
        argv += ["--output-format", "json"]
        if request.model:
            argv += ["--model", request.model]
        argv += WRITER_PERMISSIONS if request.tools is ToolProfile.WRITER else RESEARCHER_PERMISSIONS
        return argv + list(request.extra_args)

    def build_env(self, request: AgentRequest, base: Mapping[str, str]) -> dict[str, str]:
        """`base`; with a bring-your-own provider, also `COPILOT_MODEL` (which it requires) from
        the configured model unless the user set it."""
        env = dict(base)
        if env.get("COPILOT_PROVIDER_BASE_URL") and request.model:
            env.setdefault("COPILOT_MODEL", request.model)
        return env

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
