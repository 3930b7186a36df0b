"""Reading the YAML that agents write in their output files, forgivingly but never silently.

Agents are told to write YAML front matter (`---` ... `---`) followed by optional notes. Weaker
models (small local ones especially) wrap it differently; each of these is read when its content is
unambiguous, and the form is recorded (`YamlOutput.lenient`) so a run can count how often it happens:

- a fenced block (```yaml, ```yml, ```json or a bare ```), with text around it — exactly one fenced
  block that holds a mapping, or several identical ones;
- text before the front matter, or before bare YAML (from the first `key:` line);
- JSON instead of YAML (an object, fenced or not);
- a trailing explanation after YAML that has no closing `---` (cut at the first line that is not
  YAML, when everything before it parses);
- front matter without its closing `---`, or YAML without the `---` lines at all.

Anything else is a problem message that names the line of the file where parsing stopped, shows
that line and says what the parser expected; the repair prompt quotes it back to the agent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml

_FENCE = re.compile(r"^```[ \t]*([A-Za-z]*)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
_KEY_LINE = re.compile(r"""^(?:[A-Za-z_][\w.-]*|"[^"\n]+"|'[^'\n]+')[ \t]*:(?:[ \t]|$)""", re.M)
_RULE = re.compile(r"^---[ \t]*$", re.M)
FORMAT_HINT = "write YAML front matter: a mapping between two '---' lines"
# What the parser's words usually mean, in words a model acts on.
_MEANINGS = (
    ("mapping values are not allowed", "a ': ' inside a plain value: put the value in quotes"),
    ("expected <block end>", "this line's indentation does not match the lines above it"),
    ("could not find expected ':'", "a line that is neither `key: value` nor a `- ` list item"),
    ("cannot start any token", "a tab or a character YAML reserves: indent with spaces, quote the value"),
    ("expected ',' or ']'", "a [ ... ] list that is not closed"),
    ("expected ',' or '}'", "a { ... } mapping that is not closed"),
    ("found undefined alias", "a value starting with *: put it in quotes"),
)


class Lenient(StrEnum):
    """How an output that was not written as asked was still read."""

    FENCED = "fenced block"
    JSON = "JSON instead of YAML"
    TEXT_BEFORE = "text before the YAML"
    TEXT_AFTER = "text after the YAML"
    UNCLOSED = "front matter without its closing ---"
    NO_RULES = "YAML without the --- lines"


@dataclass
class YamlOutput:
    """An output file read: the mapping (None when unusable), the notes after it, the problems,
    and how it was found when not as asked."""

    data: dict[str, Any] | None
    notes: str = ""
    problems: list[str] = field(default_factory=list)
    lenient: list[Lenient] = field(default_factory=list)


@dataclass(frozen=True)
class _Block:
    """A candidate region of the file: its text and the file line it starts on (1-based)."""

    text: str
    line: int
    lenient: tuple[Lenient, ...] = ()
    json: bool = False


def read_output(path: Path) -> YamlOutput:
    """Read an agent's output file (see the module docstring)."""
    if not path.is_file():
        return YamlOutput(None, problems=[f"the output file {path.name} was not written"])
    text = path.read_text(encoding="utf-8", errors="replace").lstrip("\ufeff")
    if not text.strip():
        return YamlOutput(None, problems=[f"the output file {path.name} is empty"])
    return read_text(text)


def read_text(text: str) -> YamlOutput:
    """Read the text of an output file (see the module docstring)."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    if _RULE.fullmatch(lines[first].rstrip()):
        return _front_matter(lines, first, ())
    rule, fence = _RULE.search(text), _FENCE.search(text)
    if rule is not None and (fence is None or rule.start() < fence.start()):
        start = text.count("\n", 0, rule.start())
        return _front_matter(lines, start, (Lenient.TEXT_BEFORE,))
    fenced = _fenced(text)
    if fenced is not None:
        return fenced
    brace = re.search(r"^\{", text, re.M)
    if brace is not None:
        found = _json_object(text, brace.start())
        if found is not None:
            data, end = found
            before = (Lenient.TEXT_BEFORE,) if text[: brace.start()].strip() else ()
            return YamlOutput(data, text[end:].strip(), lenient=[*before, Lenient.JSON])
    key = _KEY_LINE.search(text)
    start = text.count("\n", 0, key.start()) if key else first
    before = (Lenient.TEXT_BEFORE,) if key and text[: key.start()].strip() else ()
    return _bare(lines, start, (*before, Lenient.NO_RULES))


def read_yaml_output(path: Path) -> tuple[dict[str, Any] | None, str, list[str]]:
    """(data, notes, problems) of an agent's output file; data is None when it cannot be used."""
    found = read_output(path)
    return found.data, found.notes, found.problems


def _front_matter(lines: list[str], rule: int, lenient: tuple[Lenient, ...]) -> YamlOutput:
    """`---` on line index `rule`, YAML up to the next `---` (or the end: unclosed)."""
    end = next((i for i in range(rule + 1, len(lines)) if _RULE.fullmatch(lines[i].rstrip())), None)
    if end is None:
        return _bare(lines, rule + 1, (*lenient, Lenient.UNCLOSED))
    block = _Block("\n".join(lines[rule + 1 : end]), rule + 2, lenient)
    return _read_block(block, "\n".join(lines[end + 1 :]).strip())


def _bare(lines: list[str], start: int, lenient: tuple[Lenient, ...]) -> YamlOutput:
    """YAML from line index `start` to the end; a trailing explanation (from the first line that
    cannot continue a top-level mapping) is cut when what comes before it parses on its own."""
    found = _read_block(_Block("\n".join(lines[start:]), start + 1, lenient), "")
    stop = _first_prose_line(lines, start)
    if found.data is not None or stop is None:
        return found
    head = _read_block(_Block("\n".join(lines[start:stop]), start + 1, (*lenient, Lenient.TEXT_AFTER)), "")
    if head.data is None:
        return found  # the YAML itself is broken: report where
    head.notes = "\n".join(lines[stop:]).strip()
    return head


def _first_prose_line(lines: list[str], start: int) -> int | None:
    """The first line after `start` that no top-level mapping can contain: not blank, indented, a
    comment, a list item, a key or a document marker."""
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if (
            not line.strip()
            or line[0] in " \t#-"
            or _KEY_LINE.match(line)
            or line.startswith(("...", "]", "}"))
        ):
            continue
        return index
    return None


def _fenced(text: str) -> YamlOutput | None:
    """The one fenced block holding a mapping (None when there is no such block)."""
    readable: list[tuple[_Block, YamlOutput]] = []
    for match in _FENCE.finditer(text):
        language = match.group(1).lower()
        if language not in ("", "yaml", "yml", "json", "jsonc"):
            continue
        is_json = language.startswith("json")
        lenient = (Lenient.FENCED, *((Lenient.JSON,) if is_json else ()))
        body, skipped = _without_rules(match.group(2))
        block = _Block(body, text.count("\n", 0, match.start(2)) + 1 + skipped, lenient, is_json)
        outside = (text[: match.start()] + text[match.end() :]).strip()
        readable.append((block, _read_block(block, outside)))
    usable = [(block, found) for block, found in readable if found.data is not None]
    if not usable:
        return readable[0][1] if readable else None
    if any(found.data != usable[0][1].data for _, found in usable):
        where = ", ".join(str(block.line - 1) for block, _ in usable)
        problem = (
            f"the file has {len(usable)} different fenced blocks (at lines {where}); {FORMAT_HINT}, once"
        )
        return YamlOutput(None, problems=[problem])
    return usable[0][1]


def _without_rules(body: str) -> tuple[str, int]:
    """A fenced block's text without the `---` lines models put around front matter inside it,
    and how many lines were dropped from its start."""
    lines = body.splitlines()
    skipped = 1 if lines and _RULE.fullmatch(lines[0].rstrip()) else 0
    lines = lines[skipped:]
    if lines and _RULE.fullmatch(lines[-1].rstrip()):
        lines = lines[:-1]
    return "\n".join(lines), skipped


def _read_block(block: _Block, notes: str) -> YamlOutput:
    """Parse one region as a mapping; the problem names the file's line when it does not parse."""
    if block.json:
        try:
            value = json.loads(block.text)
        except ValueError as exc:
            where = (
                f"line {block.line + exc.lineno - 1}"
                if isinstance(exc, json.JSONDecodeError)
                else "its start"
            )
            said = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            problem = f"the JSON does not parse at {where} of the file: {said}; {FORMAT_HINT}"
            return YamlOutput(None, notes, [problem])
        if not isinstance(value, dict):
            return YamlOutput(None, notes, [f"the JSON at line {block.line} is not an object; {FORMAT_HINT}"])
        return YamlOutput(value, notes, lenient=list(block.lenient))
    try:
        data = yaml.safe_load(block.text)
    except yaml.YAMLError as exc:
        return YamlOutput(None, notes, [_yaml_problem(exc, block)])
    if not isinstance(data, dict):
        shape = "nothing" if data is None else "a list" if isinstance(data, list) else "plain text"
        problem = f"the YAML starting at line {block.line} is {shape}, not a mapping; {FORMAT_HINT}"
        return YamlOutput(None, notes, [problem])
    return YamlOutput(data, notes, lenient=list(block.lenient))


def _yaml_problem(exc: yaml.YAMLError, block: _Block) -> str:
    """'the YAML does not parse at line N of the file (`that line`): what the parser expected'."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    said = f"{problem} ({context})" if context else problem
    meaning = next((m for words, m in _MEANINGS if words in said), None)
    said += f" — {meaning}" if meaning else ""
    if mark is None:
        return f"the YAML starting at line {block.line} does not parse: {said}"
    lines = block.text.splitlines()
    shown = lines[mark.line].strip() if mark.line < len(lines) else ""
    shown = f" (`{shown[:100]}`)" if shown else ""
    return f"the YAML does not parse at line {block.line + mark.line} of the file{shown}: {said}"


def _json_object(text: str, start: int) -> tuple[dict[str, Any], int] | None:
    """A JSON object starting at `start` and where it ends, or None."""
    try:
        value, end = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        return None
    return (value, end) if isinstance(value, dict) else None


def text_list(value: Any) -> list[str]:
    """A list of non-empty strings from a YAML value (a string becomes a one-item list)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def id_list(value: Any) -> list[str]:
    """IDs from a YAML list or a comma-separated string: ["E1", "E2"] or "E1, E2"."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return text_list(value)
