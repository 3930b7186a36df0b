"""The YAML front matter of task.md: parsed with line numbers per key, rendered in a fixed order."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import yaml

from deepresearch.core.errors import StateError
from deepresearch.core.languages import language_code
from deepresearch.state.model import FrontMatter, Mode, PlannedLanguage, RunStatus

FRONT_KEYS = (
    "id",
    "question",
    "status",
    "round",
    "mode",
    "created",
    "updated",
    "termination_reason",
    "complexity",
    "languages",
    "agents",
    "settings",
)
REQUIRED_KEYS = ("id", "question")
_TEXT_KEYS = ("id", "question", "created", "updated", "termination_reason", "complexity")
_NULL_TAG = "tag:yaml.org,2002:null"


class _Loader(yaml.SafeLoader):
    """Safe YAML without implicit timestamps: `created: 2026-11-02T10:00:00Z` stays text."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _Dumper(yaml.SafeDumper):
    """Safe YAML that also writes str subclasses (StrEnum values) as text and tuples as lists."""


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    # PyYAML folds a NEL (\x85) inside a single-quoted scalar into a space; double quotes escape it.
    style = '"' if any(ch in data for ch in "\x85\u2028\u2029") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style=style)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_multi_representer(str, _represent_str)
_Dumper.add_representer(tuple, lambda dumper, data: dumper.represent_list(list(data)))


def parse_front_matter(text: str, path: str, first_line: int) -> tuple[FrontMatter, dict[str, int]]:
    """Parse the YAML between the `---` lines (`first_line` is its first line in the file)."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise StateError("front matter is empty; it needs at least id and question", path, first_line - 1)
        if not isinstance(node, yaml.MappingNode):
            raise StateError("front matter must be a YAML mapping of key: value", path, first_line)
        values, lines = _read_mapping(loader, node, path, first_line)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + mark.line if mark is not None else first_line
        raise StateError(f"front matter is not valid YAML: {exc.problem or exc}", path, line) from exc
    finally:
        loader.dispose()
    for key in REQUIRED_KEYS:
        if key not in values:
            raise StateError(f"front matter: missing required key '{key}'", path, first_line - 1)
        if not values[key]:
            raise StateError(f"front matter: {key} is empty", path, lines[key])
    return FrontMatter(**values), lines


def _read_mapping(
    loader: _Loader, node: yaml.MappingNode, path: str, first_line: int
) -> tuple[dict[str, Any], dict[str, int]]:
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for key_node, value_node in node.value:
        line = first_line + key_node.start_mark.line
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key not in FRONT_KEYS:
            raise StateError(
                f"front matter: unknown key '{key}'; allowed keys: {', '.join(FRONT_KEYS)}", path, line
            )
        if key in lines:
            raise StateError(
                f"front matter: key '{key}' appears twice (first on line {lines[key]})", path, line
            )
        lines[key] = line
        try:
            values[key] = _convert(loader, key, value_node)
        except ValueError as exc:
            raise StateError(f"front matter: {key} {exc}", path, line) from None
    return values, lines


def _convert(loader: _Loader, key: str, node: yaml.Node) -> Any:
    """One front-matter value, type-checked; raises ValueError with what was expected."""
    if key in _TEXT_KEYS:
        return _text(node)
    if key == "status":
        return _choice(RunStatus, node)
    if key == "mode":
        return _choice(Mode, node)
    if key == "round":
        value = loader.construct_object(node, deep=True)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"must be a whole number ≥ 0, got '{_show(node)}'")
        return value
    if key == "languages":
        return _languages(node)
    if key == "agents":
        if _is_null(node):
            return {}
        if not isinstance(node, yaml.MappingNode):
            raise ValueError("must be a mapping of role: agent (e.g. planner: claude)")
        return {_text(k): _text(v) for k, v in node.value}
    value = loader.construct_object(node, deep=True)  # settings: any YAML mapping
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ValueError("must be a mapping of setting: value")
    return value


def _languages(node: yaml.Node) -> list[PlannedLanguage]:
    """`languages:` as a mapping of code: reason (or a list of codes), in the order written."""
    if _is_null(node):
        return []
    if isinstance(node, yaml.MappingNode):
        pairs = [(_text(k), _text(v)) for k, v in node.value]
    elif isinstance(node, yaml.SequenceNode):
        pairs = [(_text(item), "") for item in node.value]
    else:
        raise ValueError("must be a mapping of language code: why it is searched (e.g. de: German suppliers)")
    out: list[PlannedLanguage] = []
    for name, reason in pairs:
        code = language_code(name)  # ValueError names the known codes
        if any(p.code == code for p in out):
            raise ValueError(f"lists {code} twice")
        out.append(PlannedLanguage(code, reason.strip()))
    return out


def _text(node: yaml.Node) -> str:
    # The scalar as written (YAML would read `id: 0123` as 83 and `yes` as True).
    if not isinstance(node, yaml.ScalarNode):
        raise ValueError("must be text")
    return "" if _is_null(node) else str(node.value)


def _choice(enum: type[StrEnum], node: yaml.Node) -> StrEnum:
    value = _text(node).lower()
    allowed = [member.value for member in enum]
    if value not in allowed:
        raise ValueError(f"'{_show(node)}' is not one of {', '.join(allowed)}")
    return enum(value)


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == _NULL_TAG


def _show(node: yaml.Node) -> str:
    return str(node.value) if isinstance(node, yaml.ScalarNode) else "a list or mapping"


def render_front_matter(front: FrontMatter) -> str:
    """The YAML block between `---` lines, keys in contract order (no surrounding `---`)."""
    data: dict[str, Any] = {key: getattr(front, key) for key in FRONT_KEYS}
    data["status"] = front.status.value
    data["mode"] = front.mode.value
    data["languages"] = {p.code: p.reason for p in front.languages}
    data["agents"] = dict(front.agents)
    data["settings"] = dict(front.settings)
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1_000_000,  # one line per value: stable diffs
    )
