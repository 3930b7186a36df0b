"""Any other agent CLI, from an argv template in config `custom_command`.

Template: a list whose first item is the program, e.g.
`["mycli", "--file", "{prompt_file}", "--cwd", "{workdir}", "--model", "{model}"]`. Placeholders
(Python format syntax; `{{` and `}}` are literal braces) are `{prompt}` (the short inline prompt),
`{prompt_file}` (the full prompt), `{workdir}`, `{output_file}` and `{model}`; any other is a
`ConfigError` naming `custom_command`. With no model configured, an item using `{model}` is dropped,
and so is the item right before it when that one is a plain flag (starts with `-`): both
`--model {model}` and `--model={model}` disappear. `backend_args.custom` is appended at the end.

Tool profiles cannot be enforced on an unknown CLI: the command itself decides what its agent may
do (researchers need the two tool scripts and their output file; writers only file reads and
writes). The OS sandbox (core.sandbox) is the wall that holds for it; `sandbox_paths` in the
configuration names the folders such a CLI needs writable there (its own config, for instance).

Output contract: stdout is the final text. Optionally, stdout may be a single JSON object with any
of `text`, `input_tokens`, `output_tokens`, `cost_usd` and `session_id`; then `text` (when present)
is the final text and the others are the call's usage. A non-zero exit is classified by the
phrases in stderr and stdout (`classify_text`): "401", "rate limit", "overloaded"...
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from string import Formatter

from deepresearch.agents.base import AgentRequest, AgentResult, PermissionProfile, ProcessOutcome
from deepresearch.agents.parsing import as_float, as_int, as_str, crash_or_cause, interrupted_or_timed_out
from deepresearch.core.errors import ConfigError

PLACEHOLDERS = ("prompt", "prompt_file", "workdir", "output_file", "model")
USAGE_KEYS = ("text", "input_tokens", "output_tokens", "cost_usd", "session_id")
KEY = "custom_command"
EXAMPLE = '["mycli", "--file", "{prompt_file}", "--cwd", "{workdir}", "--model", "{model}"]'
UNKNOWN = "whatever the command allows: deepresearch cannot set an unknown CLI's permissions"
PERMISSIONS = PermissionProfile(
    researcher=UNKNOWN,
    writer=UNKNOWN,
    gaps=("no rules of its own that deepresearch can set: only the OS sandbox (sandbox: bwrap) confines it",),
)


class CustomBackend:
    """A user-supplied command line; see the module docstring for the template and contract."""

    name = "custom"
    credential_env: tuple[str, ...] | None = None  # an unknown CLI: nothing to look for
    cli_env: tuple[str, ...] = ()  # what it needs, its user names in `agent_env`
    credential_files: tuple[str, ...] = ()
    permissions = PERMISSIONS

    def __init__(self, template: Sequence[str], source: str = "configuration") -> None:
        self.template = list(template)
        self._fields = [placeholders(item, source) for item in self.template]
        if not self.template or not self.template[0].strip():
            raise ConfigError(KEY, source, "is empty; its first item must be the program to run", EXAMPLE)
        if self._fields[0]:
            raise ConfigError(KEY, source, "its first item must be the program to run, not a placeholder")
        self.executable = self.template[0]
        self.display = f"custom agent `{Path(self.executable).name}`"
        self.install_hint = f"install `{self.executable}`, or fix {KEY} in your configuration"
        self.login_hint = f"log in to `{self.executable}` as its documentation says"

    def build_argv(self, request: AgentRequest) -> list[str]:
        """The template with its placeholders filled, `{model}` items dropped when there is no
        model, and the extra args at the end."""
        values = {
            "prompt": request.prompt,
            "prompt_file": str(request.prompt_file),
            "workdir": str(request.workdir),
            "output_file": str(request.output_file),
            "model": request.model or "",
        }
        argv: list[str] = []
        for index, (item, fields) in enumerate(zip(self.template, self._fields, strict=True)):
            if "model" in fields and not request.model:
                # A plain flag just before (never dropped itself, so it is argv's last) goes too.
                if index > 1 and not self._fields[index - 1] and self.template[index - 1].startswith("-"):
                    argv.pop()
                continue
            argv.append(item.format(**values))
        return argv + list(request.extra_args)

    def build_env(self, request: AgentRequest, base: Mapping[str, str]) -> dict[str, str]:
        """`base` unchanged: what the command needs is for its user to set."""
        return dict(base)

    def config_paths(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """None known (configure `sandbox_paths` for what the command needs)."""
        return ()

    def parse(self, outcome: ProcessOutcome) -> AgentResult:
        """Stdout as the final text (or the optional JSON contract); non-zero exits classified."""
        stopped = interrupted_or_timed_out(self.display, outcome)
        if stopped:
            return stopped
        if outcome.exit_code != 0:
            return crash_or_cause(
                self.display, self.login_hint, outcome, f"{outcome.stderr}\n{outcome.stdout}"
            )
        data = _contract(outcome.stdout)
        if data is None:
            return AgentResult(ok=True, text=outcome.stdout.strip())
        text = data.get("text")
        return AgentResult(
            ok=True,
            text=text if isinstance(text, str) else outcome.stdout.strip(),
            session_id=as_str(data.get("session_id")),
            input_tokens=as_int(data.get("input_tokens")),
            output_tokens=as_int(data.get("output_tokens")),
            cost_usd=as_float(data.get("cost_usd")),
            raw=dict(data),
        )

    def version_argv(self) -> list[str] | None:
        """None: an unknown CLI may not have a harmless version flag."""
        return None

    def login_check_argv(self) -> list[str] | None:
        """None: an unknown CLI has no known login check."""
        return None

    def read_login_check(self, outcome: ProcessOutcome) -> bool | None:
        """None: there is no login check to read."""
        return None


def placeholders(item: str, source: str = "configuration") -> set[str]:
    """The placeholders one template item uses; unknown or malformed ones are a ConfigError."""
    try:
        parsed = list(Formatter().parse(item))
    except ValueError as exc:
        raise ConfigError(
            KEY, source, f"cannot read {item!r}: {exc}", "write literal braces as {{ and }}"
        ) from exc
    found: set[str] = set()
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        if field not in PLACEHOLDERS:
            known = ", ".join("{" + name + "}" for name in PLACEHOLDERS)
            raise ConfigError(KEY, source, f"unknown placeholder {{{field}}} in {item!r}", f"use {known}")
        if spec or conversion:
            raise ConfigError(
                KEY, source, f"placeholder {{{field}}} in {item!r} takes no format or conversion"
            )
        found.add(field)
    return found


def _contract(stdout: str) -> Mapping[str, object] | None:
    """The optional JSON object on stdout, when it has at least one of the contract's keys."""
    stripped = stdout.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    if isinstance(value, dict) and any(key in value for key in USAGE_KEYS):
        return value
    return None
