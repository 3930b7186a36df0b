"""Table cells of task.md: escaping text into one pipe-table cell and back, and the value codecs.

A cell holds one line. The canonical escapes are `\\` for a backslash, `\\|` for a pipe, `<br>` for a
line break, `\\<br>` for a literal `<br>` in the text, and a leading `\\` on a cell made only of `-`
and `:` (which would otherwise read as an empty cell or a table delimiter row). An empty value is
written `-`. Text is stored stripped of leading and trailing whitespace (the markdown table strips
it anyway), with `\\n` line breaks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from deepresearch.core.languages import language_code

EMPTY = "-"
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_UNESCAPE = re.compile(r"\\([\\|<:-])|<br\s*/?>", re.IGNORECASE)
_DASHY = re.compile(r"[-:\s]+")
_INT = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_LIST_SPLIT = re.compile(r"[,;\s]+")
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")


class CellError(ValueError):
    """A cell's text does not mean a valid value; the message says what was expected."""


def escape_cell(text: str) -> str:
    """The cell form of `text`: escaped so that `unescape_cell` gives `text` back; `-` when empty."""
    out = text.replace("\\", "\\\\").replace("|", "\\|")
    out = _BR.sub(lambda m: "\\" + m.group(0), out)
    out = out.replace("\n", "<br>")
    if not out:
        return EMPTY
    if _DASHY.fullmatch(out):
        out = "\\" + out
    return out


def unescape_cell(cell: str) -> str:
    """The text a cell holds: `-` or nothing is empty; escapes and `<br>` undone; stripped."""
    cell = cell.strip()
    if cell in ("", EMPTY):
        return ""

    def replace(match: re.Match[str]) -> str:
        return match.group(1) if match.group(1) is not None else "\n"

    return _UNESCAPE.sub(replace, cell).strip()


@dataclass(frozen=True)
class Codec:
    """How one column's text becomes a model value (`parse`, may raise CellError) and back."""

    parse: Callable[[str], Any]
    render: Callable[[Any], str]


def text_codec(required: bool = False) -> Codec:
    """Free text; `required` refuses an empty cell."""

    def parse(value: str) -> str:
        if required and not value:
            raise CellError("is empty; it needs a value")
        return value

    return Codec(parse, str)


def language_codec() -> Codec:
    """A language code (`de`); a name (`German`) is read as its code; empty is unknown."""

    def parse(value: str) -> str:
        if not value:
            return ""
        try:
            return language_code(value)
        except ValueError as exc:
            raise CellError(str(exc)) from None

    return Codec(parse, str)


def id_codec(pattern: re.Pattern[str], kind: str, optional: bool = False) -> Codec:
    """An identifier matching `pattern`, e.g. E3 (`kind` names the form in errors)."""

    def parse(value: str) -> str:
        if not value and optional:
            return ""
        if not pattern.fullmatch(value):
            shown = f"'{value}'" if value else "empty"
            raise CellError(f"{shown} is not {kind}")
        return value

    return Codec(parse, str)


def id_list_codec() -> Codec:
    """A list of IDs separated by commas (semicolons and spaces are read too); rendered `E1, E2`."""

    def parse(value: str) -> list[str]:
        return [item for item in _LIST_SPLIT.split(value) if item]

    def render(value: list[str]) -> str:
        return ", ".join(value)

    return Codec(parse, render)


def sha256_codec() -> Codec:
    """A SHA-256 hex digest (upper case is read and stored lower case), or empty."""

    def parse(value: str) -> str:
        if value and not _SHA256.fullmatch(value):
            raise CellError(f"'{value}' is not a SHA-256 (64 hex digits)")
        return value.lower()

    return Codec(parse, str)


def enum_codec(enum: type[StrEnum], default: StrEnum) -> Codec:
    """One of an enum's values, case-insensitive; empty means `default`."""
    return choice_codec(tuple(member.value for member in enum), default.value, enum)


def choice_codec(choices: tuple[str, ...], default: str, enum: type[StrEnum] | None = None) -> Codec:
    """One of `choices`, case-insensitive; empty means `default`."""

    def parse(value: str) -> Any:
        lowered = value.lower() or default
        if lowered not in choices:
            raise CellError(f"'{value}' is not one of {', '.join(choices)}")
        return enum(lowered) if enum is not None else lowered

    return Codec(parse, str)


def int_codec(default: int | None = None) -> Codec:
    """A whole number ≥ 0; empty means `default` (an error when there is none)."""

    def parse(value: str) -> int:
        if not value and default is not None:
            return default
        if not _INT.fullmatch(value):
            raise CellError(f"must be a whole number ≥ 0, got '{value}'")
        return int(value)

    return Codec(parse, str)


def float_codec(low: float, high: float, required: bool = False) -> Codec:
    """A number from `low` to `high`; empty means None unless `required`."""

    def parse(value: str) -> float | None:
        if not value and not required:
            return None
        if not _FLOAT.fullmatch(value) or not low <= float(value) <= high:
            raise CellError(
                f"must be a number from {format_float(low)} to {format_float(high)}, got '{value}'"
            )
        return float(value)

    def render(value: float | None) -> str:
        return "" if value is None else format_float(value)

    return Codec(parse, render)


def format_float(value: float) -> str:
    """The shortest text that reads back as `value`: 0.9, 7.5, 7 (not 7.0)."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text
