"""Reading a CLI user's own configuration, for the backends that carry parts of it into a per-call copy.

opencode and Qwen Code keep their providers in JSON files (opencode also accepts JSONC: comments
and trailing commas). A backend reads the user's files with `read_json`, merges layers with
`deep_merge`, keeps the keys that reach the model with `pick`, and writes the result next to its
own permission rules: the user's files are never written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

# A JSON string (kept as it is), then what goes: a // or /* */ comment; a comma before a bracket.
_COMMENT = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r'("(?:\\.|[^"\\])*")|,(?=\s*[}\]])')


def strip_jsonc(text: str) -> str:
    """JSONC as plain JSON: comments, then trailing commas removed; strings untouched."""
    return _TRAILING_COMMA.sub(_strings_only, _COMMENT.sub(_strings_only, text))


def _strings_only(match: re.Match[str]) -> str:
    return match.group(1) or ""


def read_json(path: Path) -> dict[str, Any]:
    """A JSON or JSONC object file as a dict; absent, unreadable or not an object is {} (the CLI
    reports its own problems with its files)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    return parse_object(text)


def parse_object(text: str) -> dict[str, Any]:
    """A JSON or JSONC object from text; anything else is {}."""
    for candidate in (text, strip_jsonc(text)):
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        return dict(value) if isinstance(value, dict) else {}
    return {}


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """`base` updated by `over`, nested objects merged key by key (later layers win)."""
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def pick(config: Mapping[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    """Only `keys` of `config` (those present)."""
    return {key: config[key] for key in keys if key in config}


def read_dotenv(path: Path) -> dict[str, str]:
    """The variables of a .env file; absent or unreadable is {}."""
    try:
        return parse_dotenv(path.read_text(encoding="utf-8"))
    except OSError:
        return {}


def parse_dotenv(text: str) -> dict[str, str]:
    """`KEY=value` lines of a .env file (optional `export`, quotes, `#` comments)."""
    found: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.removeprefix("export ").split("=", 1)
        key, value = key.strip(), value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            found[key] = value
    return found
