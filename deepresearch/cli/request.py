"""The request: from -p, from an input.md (front matter + text), or typed in interactive mode.

Front matter keys are run settings (`deepresearch.core.config.Config` fields); a bad key or value is
reported with its line in input.md, found by composing the front matter's YAML with positions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from deepresearch.core.config import Config, load_config
from deepresearch.core.errors import ConfigError, UsageError


@dataclass
class Request:
    text: str
    front_matter: dict[str, Any]
    source: str  # "-p", "terminal" or the input file's path
    raw: str = ""  # the input file as read (for line numbers)
    follow_up: bool = False  # `follow_up: true` in the front matter: ask it in a workspace's knowledge base


def read_request(prompt: str | None, file: Path | None) -> Request | None:
    """The request from -p or -f (None when neither was given)."""
    if prompt is not None and file is not None:
        raise UsageError("give either -p QUESTION or -f FILE, not both")
    if prompt is not None:
        if not prompt.strip():
            raise UsageError("the question given with -p is empty", hint='deepresearch -p "your question"')
        return Request(prompt.strip(), {}, "-p")
    if file is None:
        return None
    if not file.is_file():
        raise UsageError(f"request file not found: {file}", hint="check the path, or use -p QUESTION")
    try:
        raw = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{file} is not UTF-8 text") from exc
    block, body = split_front_matter(raw, str(file))
    settings = _settings(block, str(file)) if block is not None else {}
    follow_up = _follow_up(settings.pop("follow_up", False), file, raw)
    documents = settings.get("documents")
    if isinstance(documents, list):  # relative to the request file, where the person wrote them
        settings["documents"] = [_beside(file, d) if isinstance(d, str) else d for d in documents]
    elif isinstance(documents, str):
        settings["documents"] = [_beside(file, documents)]
    if not body.strip():
        raise UsageError(f"{file} has no request text after its front matter")
    return Request(body.strip(), settings, str(file), raw, follow_up)


def _follow_up(value: Any, file: Path, raw: str) -> bool:
    """`follow_up:` of the front matter, which is a property of the request, not a run setting."""
    if not isinstance(value, bool):
        line = front_matter_line(raw, "follow_up")
        raise ConfigError("follow_up", f"{file}:{line}", f"expected true or false, got {value!r}")
    return value


def _beside(file: Path, pattern: str) -> str:
    """A `documents:` entry made absolute against the folder of the file that names it."""
    path = Path(pattern).expanduser()
    return str(path if path.is_absolute() else file.resolve().parent / path)


def split_front_matter(raw: str, where: str) -> tuple[str | None, str]:
    """(the YAML between the `---` lines, or None when there is none; the body after it)."""
    lines = raw.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return None, raw
    for n in range(1, len(lines)):
        if lines[n].strip() in ("---", "..."):
            return "\n".join(lines[1:n]) + "\n", "\n".join(lines[n + 1 :])
    raise ConfigError("(front matter)", f"{where}:1", "no closing `---` line after the front matter")


def _settings(block: str, where: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        # Where the broken construct starts (an unclosed bracket or quote), else where YAML gave up.
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        line = f":{mark.line + 2}" if mark is not None else ""  # the YAML starts on line 2
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError("(front matter)", f"{where}{line}", f"not valid YAML: {problem}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError("(front matter)", f"{where}:2", "expected settings as `key: value` lines")
    return data


def front_matter_line(raw: str, key: str) -> int | None:
    """The line of `key` (dotted for nested keys: roles.executor.agent) in a file's front matter."""
    try:
        block, _body = split_front_matter(raw, "")
        node = yaml.compose(block) if block is not None else None
    except (yaml.YAMLError, ConfigError):
        return None
    line = None
    for part in key.split("."):
        if not isinstance(node, yaml.MappingNode):
            break
        found = next(
            (kv for kv in node.value if isinstance(kv[0], yaml.ScalarNode) and kv[0].value == part), None
        )
        if found is None:
            break
        line = found[0].start_mark.line + 2  # 0-based within the block, which starts on line 2
        node = found[1]
    return line


def run_config(
    workdir: Path, environ: Mapping[str, str], request: Request | None, flags: Mapping[str, Any]
) -> Config:
    """The run's configuration; an error in input.md's front matter names the key and its line."""
    try:
        return load_config(
            workdir,
            environ,
            front_matter=request.front_matter if request else None,
            front_matter_source=request.source if request else "input.md",
            flags=flags,
        )
    except ConfigError as exc:
        line = None
        if request is not None and request.raw and exc.source in (request.source, "configuration"):
            line = front_matter_line(request.raw, exc.key)
        if request is None or line is None:
            raise
        problem = exc.message.removeprefix(f"{exc.source}: {exc.key}: ")
        raise ConfigError(exc.key, f"{request.source}:{line}", problem, exc.hint) from exc
