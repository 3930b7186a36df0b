"""Qwen Code's per-call settings: the role's permission rules and the provider settings carried from
the user's own (see `agents/qwen.py` for what each call gets and why)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from deepresearch.agents.base import AgentRequest, env_home
from deepresearch.agents.parsing import as_str, mapping
from deepresearch.agents.userconfig import pick, read_dotenv, read_json
from deepresearch.core.agent_env import NEVER_PASSED

SETTINGS_VERSION = 4
# Tools no role needs: the web, sub-agents, skills, memory, todo lists, questions, plan mode.
DENIED_TOOLS = (
    "web_fetch",
    "web_search",
    "agent",
    "skill",
    "save_memory",
    "todo_write",
    "task_stop",
    "send_message",
    "ask_user_question",
    "exit_plan_mode",
    "tool_search",
    "lsp",
    "monitor",
)
# Commands qwen runs without approval as "read-only" (`cat`, `env`, `ls` ...: its
# READ_ONLY_ROOT_COMMANDS in 0.15.10): an `ask` rule per command takes that back (ask outranks allow;
# headless, ask is declined), so a researcher's shell runs the tool scripts and nothing else.
READ_ONLY_COMMANDS = (
    "awk", "basename", "cat", "cd", "column", "cut", "df", "dirname", "du", "echo", "env", "find",
    "git", "grep", "head", "less", "ls", "more", "printenv", "printf", "ps", "pwd", "rg", "ripgrep",
    "sed", "sort", "stat", "tail", "tree", "uniq", "wc", "which", "where", "whoami",
)  # fmt: skip


def qwen_home(env: Mapping[str, str]) -> Path:
    """`$QWEN_HOME`, else `~/.qwen`."""
    return Path(env["QWEN_HOME"]).expanduser() if env.get("QWEN_HOME") else env_home(env) / ".qwen"


def carried_settings(env: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """(the user's provider settings — modelProviders, model, auth type and base URL, without any
    key —, the variables of their settings' `env`, their qwen .env and a key written in settings)."""
    home = qwen_home(env)
    user = read_json(home / "settings.json")
    settings = pick(user, ("modelProviders", "model"))
    auth = dict(mapping(mapping(user.get("security")).get("auth")))
    variables = {k: str(v) for k, v in mapping(user.get("env")).items() if isinstance(v, (str, int))}
    variables.update(read_dotenv(home / ".env"))
    key = as_str(auth.pop("apiKey", None))
    if key:
        variables.setdefault("OPENAI_API_KEY", key)
    if auth:
        settings["security"] = {"auth": pick(auth, ("selectedType", "baseUrl"))}
    hidden = {name: value for name, value in variables.items() if name not in NEVER_PASSED}
    return settings, hidden


def call_settings(request: AgentRequest) -> dict[str, Any]:
    """What every call sets whatever the user's settings say (module docstring)."""
    return {
        "$version": SETTINGS_VERSION,
        "permissions": permission_rules(request),
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "memory": {"enableManagedAutoMemory": False},
        "general": {"disableAutoUpdate": True, "checkpointing": {"enabled": False}},
    }


def bounded_retries(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The model and each configured provider with `generationConfig.maxRetries: 0` unless the user
    chose a number."""
    bounded = dict(settings)
    providers = dict(mapping(settings.get("modelProviders")))
    for auth_type, entries in providers.items():
        if isinstance(entries, list):
            providers[auth_type] = [_bounded(mapping(e)) for e in entries]
    if providers:
        bounded["modelProviders"] = providers
    bounded["model"] = _bounded(mapping(settings.get("model")))
    return bounded


def _bounded(entry: Mapping[str, Any]) -> dict[str, Any]:
    generation = dict(mapping(entry.get("generationConfig")))
    generation.setdefault("maxRetries", 0)
    return {**entry, "generationConfig": generation}


def permission_rules(request: AgentRequest) -> dict[str, list[str]]:
    """The role's allow and deny rules (module docstring)."""
    output = "//" + str(request.output_file.resolve()).lstrip("/")
    allow = [f"Edit({output})", f"WriteFile({output})"]
    for command in request.tool_commands:  # a researcher's tools, or a writer's self-check
        quoted = shlex.quote(str(command))
        allow += [f"Shell({quoted})", f"Shell({quoted} *)"]
    deny = list(DENIED_TOOLS)
    if not request.tool_commands:  # a writer without the self-check: no shell at all
        deny.append("run_shell_command")
        return {"allow": allow, "deny": deny}
    ask = [rule for command in READ_ONLY_COMMANDS for rule in (f"Shell({command})", f"Shell({command} *)")]
    return {"allow": allow, "ask": ask, "deny": deny}
