"""The tools each agent CLI offers its model, and the calls a scripted model makes with them.

The server reads each tool's JSON schema from the request, so the same answer fits claude
(`Bash`, `Write`), gemini (`run_shell_command`, `write_file`), copilot (`bash`, `create`) and codex
(`exec_command`; it writes files through the shell, or `apply_patch` where offered).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from tests.model_wire import ToolCall, Turn

SHELL_TOOLS = ("Bash", "run_shell_command", "bash", "shell", "exec_command", "shell_command")
WRITE_TOOLS = ("Write", "write_file", "write", "create", "apply_patch")
RUNNING_SESSION = re.compile(r"session ID:? (\d+)", re.I)


def shell_call(turn: Turn, command: str) -> ToolCall:
    """Run `command` with the CLI's shell tool."""
    name = _pick(turn, SHELL_TOOLS)
    schema = _properties(turn.tools[name])
    args: dict[str, Any] = {"command": command}
    if "cmd" in schema:  # codex exec_command: wait as long as it allows before yielding
        args = {"cmd": command, "login": False, "yield_time_ms": 30000}
    elif schema.get("command", {}).get("type") == "array":
        args = {"command": ["bash", "-c", command]}
    if "description" in schema:
        args["description"] = "Run a deepresearch command"
    return ToolCall(name, args)


def write_call(turn: Turn, path: str, text: str) -> ToolCall:
    """Write `text` to the absolute `path` with the CLI's file tool (or its shell, if it has none)."""
    if not any(name in turn.tools for name in WRITE_TOOLS):
        return shell_call(turn, f"cat > {shlex.quote(path)} <<'END_OF_FILE'\n{text}END_OF_FILE")
    name = _pick(turn, WRITE_TOOLS)
    if name == "apply_patch":
        added = "".join(f"+{line}\n" for line in text.splitlines())
        patch = f"*** Begin Patch\n*** Add File: {path}\n{added}*** End Patch\n"
        return ToolCall(name, {"input": patch}, freeform=turn.tools[name].get("type") == "custom")
    schema = _properties(turn.tools[name])
    path_key = next(
        (k for k in ("file_path", "filePath", "path", "absolute_path", "filename") if k in schema),
        "file_path",
    )
    text_key = next((k for k in ("content", "file_text", "text") if k in schema), "content")
    return ToolCall(name, {path_key: path, text_key: text})


def poll_call(turn: Turn) -> ToolCall | None:
    """codex: when the last command is still running in a session, wait for more of its output."""
    running = RUNNING_SESSION.search(turn.results[-1]) if turn.results else None
    if running is None or "write_stdin" not in turn.tools:
        return None
    return ToolCall("write_stdin", {"session_id": int(running[1]), "chars": "", "yield_time_ms": 30000})


def _pick(turn: Turn, names: tuple[str, ...]) -> str:
    for name in names:
        if name in turn.tools:
            return name
    raise LookupError(f"none of the tools {names} is offered; offered: {sorted(turn.tools)}")


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}
