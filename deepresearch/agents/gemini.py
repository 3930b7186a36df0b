"""Gemini CLI (`gemini`, npm `@google/gemini-cli`): argv, environment and result parsing.

Tools: gemini's command line has no per-tool allow-list that restricts (`--allowed-tools` only skips
confirmation). What it has is the approval mode: headless, a tool that would ask is unavailable.
Writers run with `--approval-mode auto_edit` (file reads, writes and edits allowed; the shell would
ask, so it is gone); researchers with `--yolo` (everything). Web tools are not covered by the
approval mode, so writers also get `tools.exclude` in a settings file (below).

Settings: bounding gemini's retries (`general.maxAttempts`) and excluding tools needs a settings
file. Moving gemini's home (`GEMINI_CLI_HOME`) would hide the user's Google login
(`~/.gemini/oauth_creds.json`), so instead we write a *system* settings file under
`<workdir>/.deepresearch/gemini/` and point `GEMINI_CLI_SYSTEM_SETTINGS_PATH` at it. It is the
existing system settings (if any) plus our few keys, so an administrator's choices survive; the
user's own `~/.gemini/settings.json` is read where it is, untouched. With a custom endpoint
(`GOOGLE_GEMINI_BASE_URL` + `GEMINI_API_KEY`) it also selects API-key auth, which headless gemini
otherwise refuses (exit 41). Nothing is written outside the workspace.

Output (`-o json`): `{session_id, response, stats.models.<m>.tokens}`, no cost. On error stdout is
empty and `{"error": {type, message, code}}` is on stderr; the exit code is 41 auth, 42 input,
53 turn limit, 55 untrusted folder, or the API's HTTP status mod 256 (401→145, 429→173, 500→244).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

from deepresearch.agents.base import AgentRequest, AgentResult, FailureKind, ProcessOutcome, ToolProfile
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
from deepresearch.errors import AgentError

WRITER_EXCLUDED_TOOLS = ("run_shell_command", "web_fetch", "google_web_search")
MAX_ATTEMPTS = 2  # one quick retry inside gemini (its default is 10); our backoff does the rest
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

    def build_argv(self, request: AgentRequest) -> list[str]:
        """`gemini -p PROMPT -o json --approval-mode auto_edit|--yolo --skip-trust [-m M] [extra]`."""
        approval = ["--approval-mode", "auto_edit"] if request.tools is ToolProfile.WRITER else ["--yolo"]
        argv = [self.executable, "-p", request.prompt, "-o", "json", *approval, "--skip-trust"]
        if request.model:
            argv += ["-m", request.model]
        return argv + list(request.extra_args)

    def build_env(self, request: AgentRequest, base: Mapping[str, str]) -> dict[str, str]:
        """`base` plus `GEMINI_CLI_SYSTEM_SETTINGS_PATH` pointing at the settings file for this
        profile, written (atomically) under `<workdir>/.deepresearch/gemini/`."""
        settings = system_settings(request.tools, base)
        path = request.workdir / ".deepresearch" / "gemini" / f"settings-{request.tools.value}.json"
        _write_json(path, settings)
        env = dict(base)
        env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = str(path)
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

    def version_argv(self) -> list[str]:
        """The command that prints the installed version."""
        return [self.executable, "--version"]

    def login_check_argv(self) -> list[str] | None:
        """None: gemini has no auth status command that avoids a model call."""
        return None


def system_settings(tools: ToolProfile, base: Mapping[str, str]) -> dict[str, object]:
    """The system settings gemini should see: the existing ones plus bounded retries, writers'
    tool exclusions and, for a custom endpoint with an API key, API-key auth."""
    settings = _read_settings(_system_settings_path(base), strict=True)
    general = dict(mapping(settings.get("general")))
    user_general = mapping(_read_settings(_user_settings_path(base), strict=False).get("general"))
    if "maxAttempts" not in general and "maxAttempts" not in user_general:
        general["maxAttempts"] = MAX_ATTEMPTS
    settings["general"] = general
    if tools is ToolProfile.WRITER:
        tool_settings = dict(mapping(settings.get("tools")))
        excluded = tool_settings.get("exclude")
        present = [str(t) for t in excluded] if isinstance(excluded, list) else []
        tool_settings["exclude"] = present + [t for t in WRITER_EXCLUDED_TOOLS if t not in present]
        settings["tools"] = tool_settings
    vertex = base.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("1", "true")
    if base.get("GOOGLE_GEMINI_BASE_URL") and base.get("GEMINI_API_KEY") and not vertex:
        security = dict(mapping(settings.get("security")))
        security["auth"] = {**mapping(security.get("auth")), "selectedType": API_KEY_AUTH}
        settings["security"] = security
    return settings


def _system_settings_path(base: Mapping[str, str]) -> Path:
    """Where gemini reads system settings (its own default per platform, or the user's override)."""
    if base.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH"):
        return Path(base["GEMINI_CLI_SYSTEM_SETTINGS_PATH"])
    if sys.platform == "darwin":
        return Path("/Library/Application Support/GeminiCli/settings.json")
    if os.name == "nt":
        return Path("C:\\ProgramData\\gemini-cli\\settings.json")
    return Path("/etc/gemini-cli/settings.json")


def _user_settings_path(base: Mapping[str, str]) -> Path:
    home = base.get("GEMINI_CLI_HOME") or base.get("HOME") or str(Path.home())
    return Path(home) / ".gemini" / "settings.json"


def _read_settings(path: Path, strict: bool) -> dict[str, object]:
    """A gemini settings file as a dict ({} when absent). With `strict` (system settings) an
    unreadable file is an error, because dropping it would discard an administrator's choices;
    the user's own file only informs `maxAttempts`, and gemini reports its problems itself."""
    try:
        text = path.read_text(encoding="utf-8")
        value = json.loads(text) if text.strip() else {}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        if not strict:
            return {}
        raise AgentError(
            f"gemini: cannot use the settings file {path}: {exc}",
            hint="deepresearch merges it into the settings it gives gemini; make it readable plain JSON",
        ) from exc
    return dict(value) if isinstance(value, dict) else {}


def _write_json(path: Path, value: Mapping[str, object]) -> None:
    """Write atomically: parallel executors may write the same file at the same time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    temp.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temp, path)


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
