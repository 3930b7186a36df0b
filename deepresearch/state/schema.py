"""The task.md contract in data (docs/architecture.md: task.md): section headings, table columns, ID
forms, line map.

The parser, the writer and the validator all read this one description, so a column added here is
read, written and checked everywhere at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from deepresearch.state import model
from deepresearch.state.cells import (
    Codec,
    choice_codec,
    enum_codec,
    float_codec,
    id_codec,
    id_list_codec,
    int_codec,
    language_codec,
    sha256_codec,
    text_codec,
)

DIMENSION_ID = re.compile(r"D[0-9]+")
TASK_ID = re.compile(r"[EC][0-9]+")
FACT_ID = re.compile(r"Fact-[0-9]+")
SOURCE_ID = re.compile(r"S[0-9]+")
CONFLICT_ID = re.compile(r"CONF-[0-9]+")
GAP_ID = re.compile(r"G[0-9]+")
QUESTION_ID = re.compile(r"Q[0-9]+")

COVERAGE = ("none", "partial", "good")

_DIM = "a dimension ID (D<n>)"
_TASK = "a task ID (E<n> or C<n>)"
_FACT = "a fact ID (Fact-<nnn>)"


@dataclass(frozen=True)
class Column:
    header: str
    field: str
    codec: Codec
    # A column added after the first release: a task.md written before it still parses (the
    # column's empty value is used); it is always written.
    optional: bool = False


@dataclass(frozen=True)
class TableSpec:
    """One table section: its `TaskDoc` attribute, heading, row dataclass and columns."""

    key: str
    heading: str
    row_type: type
    columns: tuple[Column, ...]
    label_field: str  # the field that names a row in messages (its ID, or round, or section)

    @property
    def header_text(self) -> str:
        return " | ".join(column.header for column in self.columns)

    def row_label(self, value: Any, index: int) -> str:
        """How messages name a row: `Facts row Fact-003`, `Quality row for round 2`."""
        if value in ("", None):
            return f"{self.heading} row {index + 1}"
        if self.key == "quality":
            return f"Quality row for round {value}"
        if self.key == "outline":
            return f"Outline row '{value}'"
        return f"{self.heading} row {value}"


def _col(header: str, name: str, codec: Codec, optional: bool = False) -> Column:
    return Column(header, name, codec, optional)


TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        "questions",
        "Questions",
        model.Question,
        (
            _col("ID", "id", id_codec(QUESTION_ID, "a question ID (Q<n>)")),
            _col("Question", "question", text_codec(required=True)),
            _col("Asked", "asked", text_codec()),
            _col("Round", "round", int_codec(default=1)),
            _col("Known", "known", id_list_codec()),
            _col("Report", "report", text_codec()),
        ),
        "id",
    ),
    TableSpec(
        "dimensions",
        "Dimensions",
        model.Dimension,
        (
            _col("ID", "id", id_codec(DIMENSION_ID, _DIM)),
            _col("Dimension", "name", text_codec(required=True)),
            _col("Description", "description", text_codec()),
            _col("Coverage", "coverage", choice_codec(COVERAGE, "none")),
        ),
        "id",
    ),
    TableSpec(
        "outline",
        "Outline",
        model.OutlineSection,
        (
            _col("Section", "section", text_codec(required=True)),
            _col("Dimensions", "dimensions", id_list_codec()),
            _col("Questions", "questions", text_codec()),
        ),
        "section",
    ),
    TableSpec(
        "tasks",
        "Research DAG",
        model.Task,
        (
            _col("ID", "id", id_codec(TASK_ID, _TASK)),
            _col("Task", "title", text_codec(required=True)),
            _col("Dimensions", "dimensions", id_list_codec()),
            _col("Priority", "priority", enum_codec(model.Priority, model.Priority.MEDIUM)),
            _col("Depends", "depends", id_list_codec()),
            _col("Status", "status", enum_codec(model.TaskStatus, model.TaskStatus.PENDING)),
            _col("Round", "round", int_codec(default=1)),
        ),
        "id",
    ),
    TableSpec(
        "facts",
        "Facts",
        model.Fact,
        (
            _col("ID", "id", id_codec(FACT_ID, _FACT)),
            _col("Statement", "statement", text_codec(required=True)),
            _col("Sources", "sources", id_list_codec()),
            _col("Confidence", "confidence", enum_codec(model.Confidence, model.Confidence.MEDIUM)),
            _col("Quote", "quote", text_codec()),
            _col("Verified", "verified", enum_codec(model.Verified, model.Verified.UNCHECKED)),
            _col("Support", "support", enum_codec(model.Support, model.Support.UNCHECKED), optional=True),
            _col("Task", "task", id_codec(TASK_ID, _TASK, optional=True)),
            _col("Dimensions", "dimensions", id_list_codec(), optional=True),
            _col("Support reason", "support_reason", text_codec(), optional=True),
        ),
        "id",
    ),
    TableSpec(
        "sources",
        "Sources",
        model.Source,
        (
            _col("ID", "id", id_codec(SOURCE_ID, "a source ID (S<nn>)")),
            _col("Title", "title", text_codec()),
            _col("URL", "url", text_codec(required=True)),
            _col("Type", "type", text_codec()),
            _col("Published", "published", text_codec()),
            _col("Accessed", "accessed", text_codec()),
            _col("Authority", "authority", float_codec(0.0, 1.0)),
            _col("Archive", "archive", text_codec()),
            _col("SHA-256", "sha256", sha256_codec()),
            _col(
                "Copy of", "copy_of", id_codec(SOURCE_ID, "a source ID (S<nn>)", optional=True), optional=True
            ),
            _col("Flags", "flags", id_list_codec(), optional=True),
            _col("Language", "language", language_codec(), optional=True),
        ),
        "id",
    ),
    TableSpec(
        "conflicts",
        "Conflicts",
        model.Conflict,
        (
            _col("ID", "id", id_codec(CONFLICT_ID, "a conflict ID (CONF-<n>)")),
            _col("Topic", "topic", text_codec(required=True)),
            _col("Facts", "facts", id_list_codec()),
            _col("Severity", "severity", enum_codec(model.Severity, model.Severity.MEDIUM)),
            _col("Preferred", "preferred", id_codec(FACT_ID, _FACT, optional=True)),
            _col("Resolution", "resolution", text_codec()),
        ),
        "id",
    ),
    TableSpec(
        "quality",
        "Quality",
        model.QualityRow,
        (
            _col("Round", "round", int_codec()),
            _col("Score", "score", float_codec(0.0, 10.0, required=True)),
            _col("Completeness", "completeness", float_codec(0.0, 10.0)),
            _col("Depth", "depth", float_codec(0.0, 10.0)),
            _col("Reliability", "reliability", float_codec(0.0, 10.0)),
            _col("Actionability", "actionability", float_codec(0.0, 10.0)),
            _col("Gaps", "gaps", int_codec(default=0)),
            _col("Decision", "decision", text_codec()),
        ),
        "round",
    ),
    TableSpec(
        "gaps",
        "Gaps",
        model.Gap,
        (
            _col("ID", "id", id_codec(GAP_ID, "a gap ID (G<n>)")),
            _col("Gap", "gap", text_codec(required=True)),
            _col("Round", "round", int_codec()),
            _col("Status", "status", enum_codec(model.GapStatus, model.GapStatus.OPEN)),
        ),
        "id",
    ),
)

TABLE_BY_KEY = {spec.key: spec for spec in TABLES}
TEXT_SECTIONS = {"request": "Request", "scratchpad": "Scratchpad"}
# Contract order of the sections: (TaskDoc attribute, heading).
SECTION_ORDER: tuple[tuple[str, str], ...] = (
    ("request", "Request"),
    *((spec.key, spec.heading) for spec in TABLES),
    ("scratchpad", "Scratchpad"),
)
HEADING_TO_KEY = {heading.casefold(): key for key, heading in SECTION_ORDER}
# Sections added after the first release: a task.md written before them still parses (the section
# is then empty); they are always written.
OPTIONAL_SECTIONS = frozenset({"questions"})
ALLOWED_HEADINGS = ", ".join(f"## {heading}" for _, heading in SECTION_ORDER)

# An ATX level-2 heading line (a few forgiving extras: no space after ##, closing #s).
_H2 = re.compile(r" {0,3}(\\*)##(?!#)[ \t]*(.*?)(?:[ \t]+#+)?[ \t]*")


def heading_key(line: str) -> tuple[int, str] | None:
    """For a line `## Facts` (or `\\## Facts`): (backslashes before ##, 'facts'); else None.

    Only the contract's headings count, case-insensitively: `## Notes` is just text."""
    match = _H2.fullmatch(line)
    if match is None:
        return None
    key = HEADING_TO_KEY.get(" ".join(match.group(2).split()).casefold())
    return None if key is None else (len(match.group(1)), key)


def any_heading(line: str) -> str | None:
    """The title of any level-2 heading line (known or not), for messages; else None."""
    match = _H2.fullmatch(line)
    return match.group(2).strip() if match and not match.group(1) and match.group(2).strip() else None


@dataclass
class LineMap:
    """Where each part of a parsed task.md was written (1-based lines), for validation messages."""

    path: str = "task.md"
    front: dict[str, int] = field(default_factory=dict)  # front-matter key -> line
    sections: dict[str, int] = field(default_factory=dict)  # section key -> heading line
    rows: dict[str, list[int]] = field(default_factory=dict)  # table key -> line of each row
    last_line: int = 1

    def row(self, key: str, index: int) -> int | None:
        """The line of row `index` of table `key`, when known."""
        lines = self.rows.get(key, [])
        return lines[index] if 0 <= index < len(lines) else None

    def section(self, key: str) -> int | None:
        """The line of a section's heading, when known."""
        return self.sections.get(key)
