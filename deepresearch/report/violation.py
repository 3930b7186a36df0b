"""A problem found in a checked text: its line, its kind and what to do (shared by every check)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Violation:
    """One problem in the report: its 1-based line, its kind (one of check.KINDS) and what to do."""

    line: int
    kind: str
    message: str


def format_violation(violation: Violation, path: str = "report.md") -> str:
    """`report.md:LINE: kind: message`, the form printed by `deepresearch check` and repair prompts."""
    return f"{path}:{violation.line}: {violation.kind}: {violation.message}"
