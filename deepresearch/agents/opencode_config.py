"""opencode's per-call configuration: the role's permission rules and the provider settings carried
from the user's own config (see `agents/opencode.py` for what each call gets and why)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from deepresearch.agents.base import AgentRequest, env_home
from deepresearch.agents.parsing import as_str, mapping
from deepresearch.agents.userconfig import deep_merge, parse_object, pick, read_json

# The keys of the user's config that reach the model; everything else is ours or left out.
PROVIDER_KEYS = ("provider", "model", "small_model", "enabled_providers", "disabled_providers")
# The user's config sources: read into the per-call config, then kept from the CLI.
USER_CONFIG_ENV = ("OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR", "OPENCODE_CONFIG_CONTENT", "OPENCODE_PERMISSION")
AUTH_ENV = "OPENCODE_AUTH_CONTENT"
# Tools that only read; everything else is denied unless a rule below allows it.
READ_TOOLS = ("read", "glob", "grep", "list")


def worktree_root(folder: Path) -> Path:
    """The folder opencode resolves `edit` patterns against: the nearest one above `folder` (or
    itself) with a `.git`, else `/`."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return Path(folder.anchor or "/")


def call_settings(request: AgentRequest) -> dict[str, Any]:
    """What every call sets whatever the user's config says: the rules, no snapshots of the
    workspace, no sharing, no updates."""
    settings: dict[str, Any] = {"permission": permission_rules(request), "snapshot": False}
    settings.update(share="disabled", autoupdate=False)
    if request.model:
        settings["model"] = request.model
    return settings


def permission_rules(request: AgentRequest) -> dict[str, Any]:
    """The role's `permission` (see the module docstring)."""
    output = request.output_file.resolve()
    pattern = output.relative_to(worktree_root(output.parent)).as_posix()
    rules: dict[str, Any] = {"*": "deny", **dict.fromkeys(READ_TOOLS, "allow")}
    rules["external_directory"] = "deny"
    rules["edit"] = {"*": "deny", pattern: "allow"}
    if request.tool_commands:  # a researcher's tools, or a writer's self-check
        allowed: dict[str, str] = {"*": "deny"}
        for command in request.tool_commands:
            quoted = shlex.quote(str(command))
            allowed[quoted] = allowed[f"{quoted} *"] = "allow"
        rules["bash"] = allowed
    return rules


def user_config(env: Mapping[str, str]) -> dict[str, Any]:
    """The user's opencode config, merged as opencode merges it (global files, then
    OPENCODE_CONFIG, OPENCODE_CONFIG_DIR, OPENCODE_CONFIG_CONTENT)."""
    xdg = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else env_home(env) / ".config"
    layers = [
        read_json(xdg / "opencode" / name) for name in ("config.json", "opencode.json", "opencode.jsonc")
    ]
    if env.get("OPENCODE_CONFIG"):
        layers.append(read_json(Path(env["OPENCODE_CONFIG"]).expanduser()))
    if env.get("OPENCODE_CONFIG_DIR"):
        folder = Path(env["OPENCODE_CONFIG_DIR"]).expanduser()
        layers += [read_json(folder / name) for name in ("opencode.json", "opencode.jsonc")]
    if env.get("OPENCODE_CONFIG_CONTENT"):
        layers.append(parse_object(env["OPENCODE_CONFIG_CONTENT"]))
    merged: dict[str, Any] = {}
    for layer in layers:
        merged = deep_merge(merged, layer)
    return merged


def carried_config(env: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """(the user's provider settings with each literal or `{file:}` API key replaced by an
    `{env:}` reference, the variables that carry those keys)."""
    config = pick(user_config(env), PROVIDER_KEYS)
    secrets: dict[str, str] = {}
    providers = dict(mapping(config.get("provider")))
    for provider_id, provider in providers.items():
        options = dict(mapping(mapping(provider).get("options")))
        key = as_str(options.get("apiKey"))
        if key is None or key.startswith("{env:"):
            continue
        variable = "DEEPRESEARCH_OPENCODE_KEY_" + re.sub(r"\W", "_", provider_id).upper()
        value = resolved_key(key, env)
        if value is not None:
            secrets[variable] = value
        options["apiKey"] = "{env:" + variable + "}"
        providers[provider_id] = {**mapping(provider), "options": options}
    if providers:
        config["provider"] = providers
    return config, secrets


def user_auth(env: Mapping[str, str]) -> str | None:
    """The keys `opencode auth login` saved (`$XDG_DATA_HOME/opencode/auth.json`), or the user's
    own OPENCODE_AUTH_CONTENT, as text for OPENCODE_AUTH_CONTENT."""
    if env.get(AUTH_ENV):
        return env[AUTH_ENV]
    data = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else env_home(env) / ".local" / "share"
    try:
        text = (data / "opencode" / "auth.json").read_text(encoding="utf-8")
    except OSError:
        return None
    return text if parse_object(text) else None


def resolved_key(key: str | None, env: Mapping[str, str]) -> str | None:
    """An API key's value: `{env:VAR}` from `env`, `{file:path}` from the file, else as written."""
    if key is None:
        return None
    reference = re.fullmatch(r"\{(env|file):([^}]+)\}", key.strip())
    if reference is None:
        return key
    kind, target = reference.groups()
    if kind == "env":
        return env.get(target) or None
    path = Path(target.replace("~", str(env_home(env)), 1) if target.startswith("~") else target)
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None
