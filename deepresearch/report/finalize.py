"""The step after synthesis: verify report.md, rewrite it with References, write HTML and JSON.

A report that did not pass is still written: with a notice at its top (why, when the run knows:
the ceiling refused its repair, the synthesizer failed) and a Verification section listing each
problem at its line in report.md.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from deepresearch.core.files import atomic_write
from deepresearch.core.workspace import Workspace
from deepresearch.figures import RenderedFigure, load_figures
from deepresearch.report.blocks import strip_generated_sections
from deepresearch.report.check import Violation, check_report
from deepresearch.report.figure_check import figure_violations
from deepresearch.report.html import render_html
from deepresearch.report.knowledge import knowledge_export
from deepresearch.report.measures import measure
from deepresearch.report.references import finalize_report, with_notice
from deepresearch.state.model import TaskDoc


@dataclass(frozen=True)
class VerificationOutcome:
    """What verification found and the report text as written (with References, maybe Verification)."""

    violations: list[Violation]
    final_text: str

    @property
    def passed(self) -> bool:
        return not self.violations


def report_violations(
    report_text: str, doc: TaskDoc, workspace_root: Path, figures: Sequence[RenderedFigure] | None = None
) -> list[Violation]:
    """The report's violations at lines of the report without its generated parts (what a draft's
    repair is told). The figures checked are `figures`, else the run's manifest."""
    body = strip_generated_sections(report_text)
    drawn = load_figures(workspace_root) if figures is None else figures
    return sorted(check_report(body, doc, workspace_root) + figure_violations(body, drawn, workspace_root))


def verify_report(
    report_text: str,
    doc: TaskDoc,
    workspace_root: Path,
    figures: Sequence[RenderedFigure] | None = None,
    reason: str = "",
) -> VerificationOutcome:
    """Check and finalize without writing anything; `reason` (why this is not the report the run
    meant to write) goes into the notice a report that did not pass gets at its top.

    Generated sections are stripped before checking, so every violation's line is a line of the
    finalized text even when the agent wrote a References section in the middle of the report.
    """
    body = strip_generated_sections(report_text)
    violations = report_violations(body, doc, workspace_root, figures)
    final = finalize_report(body, doc, workspace_root, violations, reason)
    return VerificationOutcome(with_notice(body.rstrip(), violations, reason)[1], final)


def verify_and_finalize(
    workspace: Workspace,
    doc: TaskDoc,
    report_text: str,
    figures: Sequence[RenderedFigure] | None = None,
    reason: str = "",
) -> VerificationOutcome:
    """Verify the report, then write report.md, report.html and knowledge.json into the workspace."""
    outcome = verify_report(report_text, doc, workspace.root, figures, reason)
    atomic_write(workspace.report_md, outcome.final_text)
    atomic_write(workspace.report_html, render_html(outcome.final_text, doc, workspace.root))
    measures = measure(strip_generated_sections(outcome.final_text), doc, workspace.root).measures
    knowledge = json.dumps(knowledge_export(doc, measures), ensure_ascii=False, indent=2)
    atomic_write(workspace.knowledge_json, knowledge + "\n")
    return outcome
