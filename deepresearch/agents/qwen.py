"""Qwen Code (`qwen`, npm `@qwen-code/qwen-code`): argv, per-call settings and result parsing.

Qwen Code (a Gemini CLI fork) speaks OpenAI-compatible APIs, local servers included: a provider in
its settings (`modelProviders.openai[{id, baseUrl, envKey}]`) or `OPENAI_BASE_URL` +
`OPENAI_API_KEY` + `OPENAI_MODEL`. `model` is the model id (`qwen3:14b`), or `authtype/model` to
pick another of its auth types (`openai/...`, `anthropic/...`, `gemini/...`); any other slash is
part of the id (OpenRouter's `qwen/qwen3-coder`).

Per call (seen with 0.15.10): `QWEN_HOME` is `.deepresearch/qwen/<label>/`, whose settings.json is
written for the call: the user's providers, model and auth type (from `$QWEN_HOME` or `~/.qwen`;
an API key written in it moves into `OPENAI_API_KEY`, and `~/.qwen/.env` into the environment, so
no key is written into the workspace), usage statistics, telemetry and the extra memory call off,
its own retries bounded (`generationConfig.maxRetries: 0` unless the user chose; its stream retry,
7 attempts over ~80 s for a 429 or 5xx, cannot be changed), and the role's rules. Its sessions and
logs stay there. Qwen loads the first `.env` above the workspace into its environment for keys
not already set, so the tools' secrets are set empty.

Rules (`--approval-mode default`, settings `permissions`; deny outranks ask outranks allow):
headless, a tool that needs approval and no rule allows is left out or declined (never a hang).
Allowed: `Edit`/`WriteFile` only on the output file (`//` + absolute path), `Shell(<tool script> *)`
for the role's scripts (researchers; the analyst's and synthesizer's check script); asked (so
declined): the commands qwen would otherwise run unasked as read-only (`cat`, `env`, `ls` ...);
denied: the shell of writers without the self-check, the web tools, sub-agents, skills,
memory, todo lists, questions. Its file tools stay in the workspace.

Output (`-o json`): one JSON array of events; the `result` event has the answer (`result`),
`usage`, `stats.models.*.tokens`, `permission_denials`; no cost. An API error is not an exit code:
the run exits 0 with `is_error: false` and a result starting `[API Error: 401 ...]`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from deepresearch.agents.base import (
    AgentRequest,
    AgentResult,
    ModelEndpoint,
    PermissionProfile,
    ProcessOutcome,
)
from deepresearch.agents.parsing import (
    as_int,
    as_str,
    bad_output,
    crash_or_cause,
    interrupted_or_timed_out,
    mapping,
    status_in_text,
    sum_counts,
)
from deepresearch.agents.qwen_settings import bounded_retries, call_settings, carried_settings, qwen_home
from deepresearch.agents.userconfig import deep_merge
from deepresearch.core.agent_env import NEVER_PASSED
from deepresearch.core.files import write_if_changed
from deepresearch.core.workspace import Workspace

AUTH_TYPES = ("openai", "anthropic", "gemini", "vertex-ai", "qwen-oauth")
API_ERROR = "[API Error:"
PERMISSIONS = PermissionProfile(
    researcher="--approval-mode default, per-call settings `permissions`: Shell only `<tool script> *`, "
    "Edit/WriteFile only on the output file; web tools, sub-agents, skills and memory denied",
    writer="the same without Shell (the analyst and synthesizer: Shell only `<check script> *`): "
    "Edit/WriteFile only on the output file; shell and web tools denied",
    gaps=(
        "shell rules are prefix rules: `<tool script> $(other command)` passes them (the OS sandbox "
        "is the wall there)",
        "reads: any file in the workspace (not only task.md, the archives and its prompt)",
        "it loads the first .env above the workspace into its environment (the tools' keys are "
        "blanked; other variables in such a file reach its shell)",
    ),
)


class QwenBackend:
    """Qwen Code in headless mode (`qwen PROMPT -o json`), one JSON array on stdout."""

    name = "qwen"
    executable = "qwen"
    install_hint = "npm install -g @qwen-code/qwen-code"
    login_hint = (
        "configure a provider: `qwen auth api-key`, or OPENAI_BASE_URL + OPENAI_API_KEY + OPENAI_MODEL "
        '(a local server: see README "With a local model")'
    )
    credential_env: tuple[str, ...] | None = (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_MODEL",
        "DASHSCOPE_API_KEY",
        "OPENROUTER_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
    )
    # What its CLI reads for its endpoint and options is set per call by `build_env`: the person's
    # own OPENCODE_*/QWEN_* settings (which could loosen the call's rules) do not pass.
    cli_env: tuple[str, ...] = ()
    credential_files: tuple[str, ...] = ("oauth_creds.json",)
    permissions = PERMISSIONS

    def build_argv(self, request: AgentRequest) -> list[str]:
        """`qwen -o json --approval-mode default [--auth-type T] [-m M] [extra] PROMPT`."""
        argv = [self.executable, "-o", "json", "--approval-mode", "default"]
        auth_type, model = split_model(request.model)
        if auth_type:
            argv += ["--auth-type", auth_type]
        if model:
            argv += ["-m", model]
        return [*argv, *request.extra_args, request.prompt]

    def build_env(self, request: AgentRequest, base: Mapping[str, str]) -> dict[str, str]:
        """`base` with QWEN_HOME at the call's folder and its settings written there (module
        docstring), the user's qwen variables in, the tools' secrets blanked."""
        home = call_home(request)
        settings, variables = carried_settings(base)
        settings = deep_merge(bounded_retries(settings), call_settings(request))
        write_if_changed(home / "settings.json", json.dumps(settings, indent=2) + "\n")
        env = {**variables, **base}  # the user's own environment wins over their .env, as in qwen
        env.update(dict.fromkeys(NEVER_PASSED, ""))  # set: a .env cannot fill them in
        env["QWEN_HOME"] = str(home)
        env["PWD"] = str(request.workdir)
        env.pop("QWEN_RUNTIME_DIR", None)
        return env

    def parse(self, outcome: ProcessOutcome) -> AgentResult:
        """Read qwen's events into the result's text and tokens, or a classified failure."""
        stopped = interrupted_or_timed_out(self.name, outcome)
        if stopped:
            return stopped
        events = _events(outcome.stdout)
        final = next((e for e in reversed(events) if e.get("type") == "result"), None)
        if outcome.exit_code != 0 or final is None:
            if outcome.exit_code == 0:
                return bad_output(self.name, self.login_hint, outcome.stdout)
            return crash_or_cause(self.name, self.login_hint, outcome, f"{outcome.stderr}\n{outcome.stdout}")
        text = as_str(final.get("result")) or ""
        if final.get("is_error") is True or text.lstrip().startswith(API_ERROR):
            said = f"{text}\n{as_str(final.get('error')) or ''}\n{outcome.stderr}"
            result = crash_or_cause(self.name, self.login_hint, outcome, said, status_in_text(text))
        else:
            result = AgentResult(ok=True, text=text)
        result.session_id = as_str(final.get("session_id"))
        result.input_tokens, result.output_tokens = _tokens(final)
        result.raw = {"permission_denials": final.get("permission_denials") or []}
        return result

    def config_paths(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """`$QWEN_HOME` (the call's own after `build_env`), else `~/.qwen`."""
        return (qwen_home(env),)

    def version_argv(self) -> list[str]:
        """The command that prints the installed version."""
        return [self.executable, "--version"]

    def login_check_argv(self) -> list[str] | None:
        """`qwen auth status`: which provider is configured, without calling a model."""
        return [self.executable, "auth", "status"]

    def read_login_check(self, outcome: ProcessOutcome) -> bool | None:
        """Configured (✓), incomplete (no key), or unknown: with nothing in its settings, qwen
        may still run from OPENAI_* variables."""
        said = f"{outcome.stdout}\n{outcome.stderr}"
        if outcome.exit_code != 0:
            return None
        if "✓ Authentication Method" in said:
            return True
        if "(Incomplete)" in said:
            return False
        return None

    def model_endpoint(self, model: str | None, env: Mapping[str, str]) -> ModelEndpoint | str:
        """The OpenAI-compatible endpoint `model` (else the configured one) resolves to."""
        settings, variables = carried_settings(env)
        scope = {**variables, **env}
        auth_type, model_id = split_model(model)
        auth_type = auth_type or as_str(
            mapping(mapping(settings.get("security")).get("auth")).get("selectedType")
        )
        model_id = model_id or as_str(mapping(settings.get("model")).get("name")) or scope.get("OPENAI_MODEL")
        if auth_type not in (None, "openai"):
            return f"auth type {auth_type!r} is not an OpenAI-compatible provider: use --ping"
        if not model_id:
            return "no model chosen: set `model` in deepresearch.yaml (or OPENAI_MODEL)"
        providers = mapping(settings.get("modelProviders")).get("openai")
        for entry in providers if isinstance(providers, list) else []:
            entry = mapping(entry)
            if as_str(entry.get("id")) == model_id and as_str(entry.get("baseUrl")):
                key_env = as_str(entry.get("envKey")) or "OPENAI_API_KEY"
                return ModelEndpoint(
                    "openai", model_id, str(entry["baseUrl"]).rstrip("/"), scope.get(key_env)
                )
        base_url = scope.get("OPENAI_BASE_URL") or as_str(
            mapping(mapping(settings.get("security")).get("auth")).get("baseUrl")
        )
        if not base_url:
            return f"no provider for {model_id!r}: add it to modelProviders in settings.json or set OPENAI_BASE_URL"
        return ModelEndpoint("openai", model_id, base_url.rstrip("/"), scope.get("OPENAI_API_KEY"))


def split_model(model: str | None) -> tuple[str | None, str | None]:
    """(auth type, model id): `openai/qwen3:14b` → ("openai", "qwen3:14b"); an id whose prefix is no
    auth type keeps its slash (`qwen/qwen3-coder`)."""
    if model and "/" in model:
        prefix, rest = model.split("/", 1)
        if prefix in AUTH_TYPES and rest:
            return prefix, rest
    return None, model or None


def call_home(request: AgentRequest) -> Path:
    """The call's QWEN_HOME: `.deepresearch/qwen/<label>/`."""
    return Workspace(request.workdir).qwen_private / request.label


def _events(stdout: str) -> list[dict[str, object]]:
    """The JSON array `-o json` prints (warnings may come first), as a list of events."""
    for match in re.finditer(r"^\[", stdout, re.M):
        try:
            value, _ = json.JSONDecoder().raw_decode(stdout, match.start())
        except ValueError:
            continue
        if isinstance(value, list):
            return [dict(e) for e in value if isinstance(e, dict)]
    return []


def _tokens(final: Mapping[str, object]) -> tuple[int | None, int | None]:
    """Input (the whole prompt) and output (candidates + thoughts) tokens over every model, else
    the result's `usage`."""
    inputs: list[int | None] = []
    outputs: list[int | None] = []
    for stats in mapping(mapping(final.get("stats")).get("models")).values():
        tokens = mapping(mapping(stats).get("tokens"))
        inputs.append(as_int(tokens.get("prompt")))
        outputs.append(sum_counts([as_int(tokens.get("candidates")), as_int(tokens.get("thoughts"))]))
    if any(v for v in inputs) or any(v for v in outputs):
        return sum_counts(inputs), sum_counts(outputs)
    usage = mapping(final.get("usage"))
    cached = as_int(usage.get("cache_read_input_tokens"))
    return sum_counts([as_int(usage.get("input_tokens")), cached]), as_int(usage.get("output_tokens"))
