"""Code checks of the writers' outputs, run by the step before an output is accepted.

Each check returns the violations (with their lines) that go back to the agent once, and the text
the agent is asked to fix when that is not exactly what it wrote (the report with its figures).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from deepresearch.figures import RenderedFigure, insert_figures
from deepresearch.report.check import Violation, check_report
from deepresearch.report.finalize import report_violations
from deepresearch.state.model import TaskDoc, id_number

_FACT_REF = re.compile(r"\bFact-\d+\b")


@dataclass(frozen=True)
class CheckResult:
    """What a check found in an accepted output."""

    violations: list[Violation] = field(default_factory=list)
    shown: str | None = None  # the text the repair prompt's line numbers refer to, if not the output
    name: str | None = None  # how violations name the file (default: the output file's path)


def fact_violations(text: str, doc: TaskDoc) -> list[Violation]:
    """Fact IDs named in the text that task.md does not hold (kind unknown_fact)."""
    known = {id_number(f.id) for f in doc.facts}
    found = []
    for n, line in enumerate(text.splitlines(), start=1):
        for fact_id in dict.fromkeys(_FACT_REF.findall(line)):
            if id_number(fact_id) not in known:
                message = (
                    f"{fact_id} is not in task.md ## Facts; name only facts that exist, or remove the claim."
                )
                found.append(Violation(n, "unknown_fact", message))
    return found


def check_analysis(text: str, doc: TaskDoc, workspace_root: Path) -> CheckResult:
    """The report's checks (citations, archives, density, URLs, conflicts) plus unknown fact IDs."""
    return CheckResult(sorted({*check_report(text, doc, workspace_root), *fact_violations(text, doc)}))


def check_draft(
    text: str, doc: TaskDoc, workspace_root: Path, figures: Sequence[RenderedFigure]
) -> CheckResult:
    """The report's verification, on the draft with its figures placed (the file the synthesizer
    is asked to fix keeps the figure blocks, so the lines match)."""
    draft = insert_figures(text, figures)
    violations = report_violations(draft, doc, workspace_root, figures)
    return CheckResult(violations, shown=draft, name="report.md")
