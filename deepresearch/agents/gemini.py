"""Gemini CLI (`gemini`, npm `@google/gemini-cli`): argv, environment and result parsing.

Tools (seen with 0.61.0): gemini's policy engine decides every tool call; headless, a call no rule
allows is denied ("Tool execution denied by policy"), never a hang. Each call runs with
`--approval-mode default --policy DIR`, where DIR (`.deepresearch/gemini/policies/<label>/`) holds
the role's rules at the highest user priority: `write_file`/`replace` allowed only for the call's
output file (an `argsPattern` on `file_path`), researchers' `run_shell_command` allowed only with
the two tool scripts as `commandPrefix` (gemini checks each part of `a && b` on its own), every
other shell command, write and the web tools denied. Its file tools never leave the workspace.
`--policy` replaces the user's own policy folder (`~/.gemini/policies`), so its rules are copied
next to ours, each with its priority capped below ours (USER_PRIORITY_CAP): the run's rules always
win, and a policy file planted in `~/.gemini/policies` cannot loosen them.

Environment: gemini's retries (`general.maxAttempts`, 10 by default) and its auth type live in its
settings file. Moving its home (`GEMINI_CLI_HOME`) would hide the user's Google login, and a
system settings file is only read when owned by root, so by default nothing is changed: the user's
own settings and login apply, and our timeout bounds a retrying gemini. With a custom endpoint
(`GOOGLE_GEMINI_BASE_URL` + `GEMINI_API_KEY`, e.g. a proxy or the test server) headless gemini
refuses to start (exit 41) unless its settings select API-key auth; there, and only there,
`GEMINI_CLI_HOME` points at `<workdir>/.deepresearch/gemini/home`, whose settings are the user's
plus API-key auth and two attempts. Nothing is written outside the workspace.

Output (`-o json`): `{session_id, response, stats.models.<m>.tokens}`, no cost. On error stdout is
empty and `{"error": {type, message, code}}` is on stderr; the exit code is 41 auth, 42 input,
53 turn limit, 55 untrusted folder, or the API's HTTP status mod 256 (401→145, 429→173, 500→244).
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
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
    as_int,
    as_str,
    bad_output,
    crash_or_cause,
    failure_message,
    interrupted_or_timed_out,
    json_object,
    mapping,
    status_in_text,
    sum_counts,
)
from deepresearch.core.files import write_if_changed
from deepresearch.core.workspace import Workspace

WRITE_TOOLS = ("write_file", "replace")
WEB_TOOLS = ("web_fetch", "google_web_search")
ALLOW_PRIORITY, DENY_PRIORITY = 999, 990  # the user tier's highest: above the user's own rules
USER_PRIORITY_CAP = 980  # the person's own rules, copied in, rank below every rule of the run
PERMISSIONS = PermissionProfile(
    researcher="--approval-mode default, --policy: run_shell_command only with the search, archive and "
    "check scripts as commandPrefix, write_file/replace only on the output file, web tools denied",
    writer="--approval-mode default, --policy: write_file/replace only on the output file; shell (but "
    "the check script, for the analyst and synthesizer) and web tools denied",
)
MAX_ATTEMPTS = 2  # with a custom endpoint: one quick retry inside gemini; our backoff does the rest
API_KEY_AUTH = "gemini-api-key"

EXIT_AUTH, EXIT_INPUT, EXIT_TURN_LIMIT, EXIT_UNTRUSTED = 41, 42, 53, 55
_EXIT_CAUSES: dict[int, tuple[FailureKind, str]] = {
    EXIT_AUTH: (FailureKind.NOT_LOGGED_IN, ""),
    EXIT_INPUT: (FailureKind.BAD_ARGUMENTS, "invalid input (exit 42)"),
    EXIT_TURN_LIMIT: (FailureKind.CRASHED, "stopped at its session turn limit (exit 53)"),
    EXIT_UNTRUSTED: (FailureKind.BAD_ARGUMENTS, "the workspace folder is not trusted (exit 55)"),
}


class GeminiBackend:
    """Gemini CLI in headless mode (`gemini -p`), one JSON object on stdout."""

    name = "gemini"
    executable = "gemini"
    install_hint = "npm install -g @google/gemini-cli"
    login_hint = "run `gemini` once and sign in with Google (or set GEMINI_API_KEY)"
    # Where credentials can come from besides its own Google sign-in (for `deepresearch doctor`).
    credential_env: tuple[str, ...] | None = (
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_GENAI_USE_GCA",
    )
    cli_env: tuple[str, ...] = (
        "GEMINI_*", "GOOGLE_GEMINI_*", "GOOGLE_GENAI_*", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_PROJECT_ID",
        "GOOGLE_CLOUD_LOCATION", "GOOGLE_APPLICATION_CREDENTIALS",
    )  # fmt: skip
    credential_files: tuple[str, ...] = ("oauth_creds.json", "google_accounts.json")
    permissions = PERMISSIONS

    def build_argv(self, request: AgentRequest) -> list[str]:
        """`gemini -p PROMPT -o json --approval-mode default --policy DIR --skip-trust [-m M] [extra]`."""
        approval = ["--approval-mode", "default", "--policy", str(policy_folder(request))]
        argv = [self.executable, "-p", request.prompt, "-o", "json", *approval, "--skip-trust"]
        if request.model:
            argv += ["-m", request.model]
        return argv + list(request.extra_args)

    def build_env(self, request: AgentRequest, base: Mapping[str, str]) -> dict[str, str]:
        """`base`, after writing the call's policy folder; with a custom endpoint, also
        `GEMINI_CLI_HOME` at a workspace home whose settings select API-key auth."""
        env = dict(base)
        _fill_policies(policy_folder(request), role_policy(request), _gemini_dir(base) / "policies")
        vertex = base.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("1", "true")
        if base.get("GOOGLE_GEMINI_BASE_URL") and base.get("GEMINI_API_KEY") and not vertex:
            home = Workspace(request.workdir).gemini_private / "home"
            settings = endpoint_settings(_read_json(_gemini_dir(base) / "settings.json"))
            write_if_changed(home / ".gemini" / "settings.json", json.dumps(settings, indent=2) + "\n")
            env["GEMINI_CLI_HOME"] = str(home)
        return env

    def parse(self, outcome: ProcessOutcome) -> AgentResult:
        """Read gemini's JSON into text and tokens, or its stderr error into a failure."""
        stopped = interrupted_or_timed_out(self.name, outcome)
        if stopped:
            return stopped
        data = json_object(outcome.stdout)
        if outcome.exit_code == 0 and data is not None and "response" in data:
            response = data.get("response")
            if response is not None and not isinstance(response, str):
                return bad_output(self.name, self.login_hint, outcome.stdout)
            result = AgentResult(ok=True, text=response or "", session_id=as_str(data.get("session_id")))
            result.input_tokens, result.output_tokens = _tokens(data)
            result.raw = data
            return result
        # The error object is on stderr (also accepted inside a stdout object).
        error = mapping(mapping(data).get("error"))
        error = error or mapping(mapping(json_object(outcome.stderr)).get("error"))
        if outcome.exit_code == 0 and not error:
            return bad_output(self.name, self.login_hint, outcome.stdout)
        return self._failure(outcome, error)

    def _failure(self, outcome: ProcessOutcome, error: Mapping[str, object]) -> AgentResult:
        said = as_str(error.get("message")) or ""
        code = as_int(error.get("code"))
        status = code if code is not None and 400 <= code < 600 else _status_from_exit(outcome.exit_code)
        cause = _EXIT_CAUSES.get(outcome.exit_code or 0)
        if status is None and cause is not None:
            kind, detail = cause
            if kind is FailureKind.NOT_LOGGED_IN:
                return AgentResult.failed(kind, failure_message(self.name, self.login_hint, kind))
            return AgentResult.failed(kind, f"{self.name}: {detail}" + (f": {said}" if said else ""))
        text = f"{said}\n{outcome.stderr}" if said else f"{outcome.stderr}\n{outcome.stdout}"
        return crash_or_cause(self.name, self.login_hint, outcome, text, status or status_in_text(said))

    def config_paths(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """Its folder: `$GEMINI_CLI_HOME/.gemini` (the workspace home with a custom endpoint), else
        `~/.gemini`."""
        return (_gemini_dir(env),)

    def version_argv(self) -> list[str]:
        """The command that prints the installed version."""
        return [self.executable, "--version"]

    def login_check_argv(self) -> list[str] | None:
        """None: gemini has no auth status command that avoids a model call."""
        return None

    def read_login_check(self, outcome: ProcessOutcome) -> bool | None:
        """None: there is no login check to read."""
        return None


def policy_folder(request: AgentRequest) -> Path:
    """The policy folder of one call: the role's rules plus copies of the user's policies."""
    return Workspace(request.workdir).gemini_private / "policies" / request.label


def _rule(tools: tuple[str, ...], decision: str, priority: int, **match: str | list[str]) -> str:
    lines = ["[[rule]]", f"toolName = {json.dumps(list(tools))}"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in match.items()]
    return "\n".join([*lines, f'decision = "{decision}"', f"priority = {priority}", ""])


def role_policy(request: AgentRequest) -> str:
    """The call's rules (see the module docstring), as a policy file."""
    output = request.output_file
    names = [str(output)]
    if output.is_relative_to(request.workdir):
        names.append(output.relative_to(request.workdir).as_posix())
    # stableStringify wraps each top-level argument in NUL characters: match the whole value.
    path_pattern = '\\0"file_path":"(?:' + "|".join(re.escape(json.dumps(n)[1:-1]) for n in names) + ')"\\0'
    rules = [
        "# Written by deepresearch for one agent call: what its role may do, nothing else.",
        _rule(WRITE_TOOLS, "allow", ALLOW_PRIORITY, argsPattern=path_pattern),
        _rule(WRITE_TOOLS + WEB_TOOLS, "deny", DENY_PRIORITY),
    ]
    if request.tool_commands:  # a researcher's tools, or a writer's self-check
        prefixes = [shlex.quote(str(command)) for command in request.tool_commands]
        rules.append(_rule(("run_shell_command",), "allow", ALLOW_PRIORITY, commandPrefix=prefixes))
    rules.append(_rule(("run_shell_command",), "deny", DENY_PRIORITY))
    return "\n".join(rules)


def endpoint_settings(user_settings: Mapping[str, object]) -> dict[str, object]:
    """The user's settings with API-key auth selected and, unless they chose one, two attempts."""
    settings = dict(user_settings)
    security = dict(mapping(settings.get("security")))
    security["auth"] = {**mapping(security.get("auth")), "selectedType": API_KEY_AUTH}
    settings["security"] = security
    general = dict(mapping(settings.get("general")))
    general.setdefault("maxAttempts", MAX_ATTEMPTS)
    settings["general"] = general
    return settings


def _gemini_dir(base: Mapping[str, str]) -> Path:
    """The user's gemini folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`."""
    home = Path(base["GEMINI_CLI_HOME"]) if base.get("GEMINI_CLI_HOME") else env_home(base)
    return home / ".gemini"


def _fill_policies(folder: Path, policy: str, user_policies: Path) -> None:
    """Write the call's rules and mirror the user's `*.toml` policies as `user-*.toml`, ranked below."""
    write_if_changed(folder / "deepresearch.toml", policy)
    wanted = {f"user-{p.name}": p for p in sorted(user_policies.glob("*.toml")) if p.is_file()}
    for name, source in wanted.items():
        write_if_changed(folder / name, ranked_below(source))
    for stale in folder.glob("user-*.toml"):
        if stale.name not in wanted:
            stale.unlink(missing_ok=True)


def ranked_below(source: Path) -> str:
    """A user policy file's rules with every priority capped at USER_PRIORITY_CAP; a file that does
    not parse, and entries that are not plain rules, are left out (said in a comment)."""
    head = f"# {source.name} from the user's policies, every priority at most {USER_PRIORITY_CAP}.\n"
    try:
        rules = tomllib.loads(source.read_text(encoding="utf-8")).get("rule", [])
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return head + f"# left out: it could not be read ({exc})\n"
    kept: list[str] = []
    for rule in rules if isinstance(rules, list) else []:
        fields = {k: v for k, v in rule.items() if _plain(v)} if isinstance(rule, dict) else {}
        if not fields.get("toolName") or len(fields) != len(rule):
            kept.append("# left out: a rule this copy cannot express")
            continue
        priority = fields.get("priority", 0)
        number = priority if isinstance(priority, (int, float)) and not isinstance(priority, bool) else 0
        fields["priority"] = min(number, USER_PRIORITY_CAP)
        kept.append(
            "\n".join(["[[rule]]", *(f"{key} = {json.dumps(value)}" for key, value in fields.items())])
        )
    return head + "\n\n".join(kept) + "\n"


def _plain(value: object) -> bool:
    """A TOML value that JSON spells the same way: text, number, boolean, a list of those."""
    if isinstance(value, list):
        return all(_plain(item) for item in value)
    return isinstance(value, (str, int, float, bool))


def _read_json(path: Path) -> dict[str, object]:
    """A settings file as a dict; absent or unreadable is {} (gemini reports its own problems)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return dict(value) if isinstance(value, dict) else {}


def _status_from_exit(exit_code: int | None) -> int | None:
    """gemini exits with the API's HTTP status mod 256: 145 → 401, 173 → 429, 244 → 500."""
    if exit_code is None or not 144 <= exit_code <= 255:
        return None
    return exit_code + 256


def _tokens(data: Mapping[str, object]) -> tuple[int | None, int | None]:
    """Input (whole prompt: `prompt`, or uncached `input` + `cached`) and output (`candidates` +
    `thoughts`) tokens, summed over every model the session used."""
    inputs: list[int | None] = []
    outputs: list[int | None] = []
    for stats in mapping(mapping(data.get("stats")).get("models")).values():
        tokens = mapping(mapping(stats).get("tokens"))
        prompt = as_int(tokens.get("prompt"))
        if prompt is None:
            prompt = sum_counts([as_int(tokens.get("input")), as_int(tokens.get("cached"))])
        inputs.append(prompt)
        outputs.append(sum_counts([as_int(tokens.get("candidates")), as_int(tokens.get("thoughts"))]))
    return sum_counts(inputs), sum_counts(outputs)
