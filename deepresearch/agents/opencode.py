"""opencode (`opencode`, npm `opencode-ai`): argv, per-call configuration and result parsing.

opencode reaches any provider its configuration names, OpenAI-compatible local servers (Ollama,
LM Studio, vLLM) included; `model` is `provider/model` as opencode spells it (`ollama/qwen3:14b`).

Per call (seen with 1.18.33): `XDG_CONFIG_HOME`, `XDG_DATA_HOME`, `XDG_CACHE_HOME` and
`XDG_STATE_HOME` point into `.deepresearch/opencode/<label>/`, so its config, sessions, logs and
caches stay out of the user's folders. Its config there is written for the call: the provider
keys of the user's own opencode config (`~/.config/opencode/opencode.json{,c}`, `OPENCODE_CONFIG`,
`OPENCODE_CONFIG_DIR`, `OPENCODE_CONFIG_CONTENT`; a literal or `{file:...}` API key moves into an
environment variable, so no key is written into the workspace) and the role's rules; the user's
`permission`, `agent`, `mcp` and `plugin` settings are left out, as are project configs
(`OPENCODE_DISABLE_PROJECT_CONFIG`) and plugins (`--pure`). Keys saved by `opencode auth login` go
in through `OPENCODE_AUTH_CONTENT`.

Rules (`permission`, last matching pattern wins): everything denied (`"*": "deny"`: web tools,
sub-agents, skills, todo lists are not offered), then reading, globbing, grepping and listing
allowed inside the workspace (`external_directory: deny`), `edit` (every writing tool) allowed only
for the output file, and for the roles that run tool scripts (researchers; the analyst and
synthesizer, the check script) `bash` allowed only for `<tool script> *` patterns (seen:
`&& touch`, `; touch` and `$(touch …)` are denied). `edit` patterns are relative to the git
worktree above the workspace (without one, to `/`): the backend finds it as opencode does.

Output (`--format json`) is one JSON event per line: `step_start`, `tool_use`, `text` (the answer,
`part.text`), `step_finish` (`tokens{input,output,reasoning,cache{read,write}}`, `cost` from the
model's cost entry), `error{name, data{message, statusCode}}`; exit 1 on failure. With
`--print-logs --log-level ERROR` the cause an error event hides ("Unexpected server error") is on
stderr (`ProviderModelNotFoundError: Model not found: p/m.`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.agents.base import (
    AgentRequest,
    AgentResult,
    FailureKind,
    ModelEndpoint,
    PermissionProfile,
    ProcessOutcome,
    env_home,
)
from deepresearch.agents.opencode_config import (
    AUTH_ENV,
    USER_CONFIG_ENV,
    call_settings,
    carried_config,
    resolved_key,
    user_auth,
)
from deepresearch.agents.parsing import (
    as_float,
    as_int,
    as_str,
    bad_output,
    crash_or_cause,
    failure_message,
    interrupted_or_timed_out,
    json_lines,
    mapping,
    sum_counts,
)
from deepresearch.core.files import write_if_changed
from deepresearch.core.workspace import Workspace

XDG = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")
QUIET_ENV = {
    "OPENCODE_DISABLE_PROJECT_CONFIG": "1",  # an opencode.json above the workspace must not loosen the rules
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",  # no models.dev download at every start
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",  # no ~/.claude instructions or skills
    "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
}
PERMISSIONS = PermissionProfile(
    researcher="per-call opencode.json `permission`: everything denied but read/glob/grep/list in the "
    "workspace (external_directory: deny), edit only on the output file, bash only `<tool script> *`",
    writer="the same without bash (the analyst and synthesizer: bash only `<check script> *`): "
    "read/glob/grep/list in the workspace, edit only on the output file",
    gaps=(
        "reads: any file in the workspace (not only task.md, the archives and its prompt)",
        "a workspace path with * or ? in it widens the edit rule (opencode patterns have no escape)",
    ),
)
# What opencode logs (stderr, with --print-logs) when the model or its provider is not configured.
NOT_FOUND = re.compile(r"(Model|Provider) not found: ([^\s\"]+?)\.?(?=[\"\s]|$)")


class OpencodeBackend:
    """`opencode run --format json`, JSON-lines events on stdout."""

    name = "opencode"
    executable = "opencode"
    install_hint = "npm install -g opencode-ai"
    login_hint = (
        "configure a provider in ~/.config/opencode/opencode.json (a local OpenAI-compatible server, "
        'see README "With a local model") or run `opencode auth login`'
    )
    # Keys opencode reads itself or that provider configs commonly name as {env:VAR}.
    credential_env: tuple[str, ...] | None = (
        AUTH_ENV,
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENROUTER_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_GENERATIVE_AI_API_KEY",
        "GROQ_API_KEY",
        "DEEPSEEK_API_KEY",
        "MISTRAL_API_KEY",
        "OPENCODE_API_KEY",
    )
    # What its CLI reads for its endpoint and options is set per call by `build_env`: the person's
    # own OPENCODE_*/QWEN_* settings (which could loosen the call's rules) do not pass.
    cli_env: tuple[str, ...] = ()
    credential_files: tuple[str, ...] = ()
    permissions = PERMISSIONS

    def build_argv(self, request: AgentRequest) -> list[str]:
        """`opencode run --format json --pure --print-logs --log-level ERROR --title LABEL [-m M]
        [extra] WORDS...`: the prompt as words (one argument with spaces reaches the model quoted)."""
        argv = [self.executable, "run", "--format", "json", "--pure", "--print-logs", "--log-level", "ERROR"]
        argv += ["--title", request.label]  # a title given: no extra model call to invent one
        if request.model:
            argv += ["-m", request.model]
        return [*argv, *request.extra_args, *request.prompt.split()]

    def build_env(self, request: AgentRequest, base: Mapping[str, str]) -> dict[str, str]:
        """`base` with opencode's folders in the call's folder, its config written there (module
        docstring), the user's config sources removed and its keys in variables."""
        folder = call_folder(request)
        config, secrets = carried_config(base)
        config = {**config, **call_settings(request)}
        write_if_changed(
            folder / "config" / "opencode" / "opencode.json", json.dumps(config, indent=2) + "\n"
        )
        env = {k: v for k, v in base.items() if k not in USER_CONFIG_ENV}
        env.update(QUIET_ENV)
        env["PWD"] = str(request.workdir)  # opencode takes its project folder from $PWD, not the cwd
        for variable, sub in zip(XDG, ("config", "data", "cache", "state"), strict=True):
            (folder / sub / "opencode").mkdir(parents=True, exist_ok=True)  # the sandbox binds these
            env[variable] = str(folder / sub)
        auth = user_auth(base)
        if auth:
            env[AUTH_ENV] = auth
        env.update(secrets)
        return env

    def parse(self, outcome: ProcessOutcome) -> AgentResult:
        """Read opencode's events into the last step's text, tokens and cost, or a failure."""
        stopped = interrupted_or_timed_out(self.name, outcome)
        if stopped:
            return stopped
        run = _Run.read(json_lines(outcome.stdout))
        if run.errors or outcome.exit_code != 0:
            result = self._failure(outcome, run)
        elif not run.steps:
            return bad_output(self.name, self.login_hint, outcome.stdout)
        else:
            result = AgentResult(ok=True, text=run.text)
        result.session_id = run.session_id
        result.input_tokens, result.output_tokens = sum_counts(run.inputs), sum_counts(run.outputs)
        result.cost_usd = sum(run.costs) if run.costs else None
        result.raw = {"steps": run.steps, "errors": run.errors}
        return result

    def _failure(self, outcome: ProcessOutcome, run: _Run) -> AgentResult:
        """The last error event (its HTTP status first), else the cause opencode logged on stderr."""
        found = NOT_FOUND.search(outcome.stderr)
        if found:
            what = f"{found.group(1).lower()} {found.group(2)} is not configured"
            advice = "set `model` to provider/model as `opencode models` lists it"
            return AgentResult.failed(FailureKind.BAD_ARGUMENTS, f"{self.name}: {what}: {advice}")
        last = run.errors[-1] if run.errors else {}
        data = mapping(last.get("data"))
        said = " ".join(filter(None, [as_str(last.get("name")), as_str(data.get("message"))]))
        status = as_int(data.get("statusCode"))
        if last.get("name") == "ProviderAuthError":
            kind = FailureKind.NOT_LOGGED_IN
            return AgentResult.failed(kind, failure_message(self.name, self.login_hint, kind, detail=said))
        return crash_or_cause(self.name, self.login_hint, outcome, f"{said}\n{outcome.stderr}", status)

    def config_paths(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """opencode's four folders (`<XDG dir>/opencode`): the call's own after `build_env`."""
        home = env_home(env)
        defaults = (".config", ".local/share", ".cache", ".local/state")
        return tuple(
            Path(env[variable]) / "opencode" if env.get(variable) else home / default / "opencode"
            for variable, default in zip(XDG, defaults, strict=True)
        )

    def version_argv(self) -> list[str]:
        """The command that prints the installed version."""
        return [self.executable, "--version"]

    def login_check_argv(self) -> list[str] | None:
        """None: a provider may need no login at all (a local server); doctor checks the endpoint."""
        return None

    def read_login_check(self, outcome: ProcessOutcome) -> bool | None:
        """None: there is no login check to read."""
        return None

    def model_endpoint(self, model: str | None, env: Mapping[str, str]) -> ModelEndpoint | str:
        """The OpenAI-compatible endpoint `model` (else the config's `model`) resolves to, or why
        there is none to check (a built-in provider, no model)."""
        config, secrets = carried_config(env)
        chosen = model or as_str(config.get("model"))
        if not chosen:
            return "no model chosen: set `model: provider/model` in deepresearch.yaml"
        if "/" not in chosen:
            return f"model {chosen!r} names no provider: write it as provider/model"
        provider_id, model_id = chosen.split("/", 1)
        provider = mapping(mapping(config.get("provider")).get(provider_id))
        options = mapping(provider.get("options"))
        base_url = as_str(options.get("baseURL"))
        if base_url is None:
            return f"provider {provider_id!r} has no baseURL in your opencode config (a built-in provider: use --ping)"
        key = resolved_key(as_str(options.get("apiKey")), {**env, **secrets})
        return ModelEndpoint(provider_id, model_id, base_url.rstrip("/"), key)


def call_folder(request: AgentRequest) -> Path:
    """The call's opencode folder: `.deepresearch/opencode/<label>/`."""
    return Workspace(request.workdir).opencode_private / request.label


@dataclass
class _Run:
    """What one `opencode run --format json` stream says."""

    session_id: str | None = None
    steps: int = 0
    parts: list[str] = field(default_factory=list)  # the text of the current (finally: last) step
    text: str = ""
    inputs: list[int | None] = field(default_factory=list)
    outputs: list[int | None] = field(default_factory=list)
    costs: list[float] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def read(cls, events: list[dict[str, object]]) -> _Run:
        """Fold the events of one run."""
        run = cls()
        for event in events:
            kind, part = event.get("type"), mapping(event.get("part"))
            run.session_id = as_str(event.get("sessionID")) or run.session_id
            if kind == "step_start":
                run.parts = []
            elif kind == "text":
                run.parts.append(as_str(part.get("text")) or "")
                run.text = "".join(run.parts)
            elif kind == "step_finish":
                run.steps += 1
                run._count(part)
            elif kind == "error":
                run.errors.append(dict(mapping(event.get("error"))))
        return run

    def _count(self, part: Mapping[str, object]) -> None:
        tokens = mapping(part.get("tokens"))
        cache = mapping(tokens.get("cache"))
        # The whole prompt: uncached input plus what was read from or written to the cache.
        self.inputs.append(
            sum_counts([as_int(tokens.get("input")), as_int(cache.get("read")), as_int(cache.get("write"))])
        )
        self.outputs.append(sum_counts([as_int(tokens.get("output")), as_int(tokens.get("reasoning"))]))
        cost = as_float(part.get("cost"))
        if cost is not None:
            self.costs.append(cost)
