"""`deepresearch check [WORKDIR]`: verify report.md against task.md, the archived sources and the
figures drawn for it (assets/images/figures.json: every figure referred to exists, every figure is
in the report with a caption citing its sources). `--explain` lists every number the report states
with the fact that states it, the derivation accepted, or why it is not grounded.

`deepresearch check DIR/reports/01-….md`: verify the kept report of an earlier question against
the task.md it was written from (report/kept.py); a kept report is a record and is not rewritten."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from deepresearch.core.errors import CheckFailedError, UsageError
from deepresearch.core.workspace import Workspace

if TYPE_CHECKING:
    from deepresearch.figures import RenderedFigure
    from deepresearch.report.finalize import VerificationOutcome
    from deepresearch.report.number_check import Judged
    from deepresearch.state.model import TaskDoc


def register(app: typer.Typer) -> None:
    """Add the `check` subcommand to the app."""
    app.command(
        "check",
        help="Verify report.md against task.md, the archives and its figures; write its References, "
        "report.html and knowledge.json.",
    )(check)


def check(
    workdir: Annotated[
        Path | None,
        typer.Argument(
            help="The run folder (default: the current folder), or an earlier question's report kept in "
            "its reports/ folder.",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON (violations with line, kind, message).")
    ] = False,
    pdf: Annotated[
        bool, typer.Option("--pdf", help="Also print report.pdf through headless Chromium.")
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="List every number the report states: the fact that states it, the derivation accepted, "
            "or why it is not grounded.",
        ),
    ] = False,
) -> None:
    """Check the report, rewrite it with References (and Verification), exit 8 if problems remain."""
    # Imported here so that `deepresearch --help` does not load the report and figure machinery.
    from deepresearch.core.config import load_config
    from deepresearch.figures import load_figures
    from deepresearch.report.archives import original_hash_notes
    from deepresearch.report.check import format_violation
    from deepresearch.report.finalize import verify_and_finalize
    from deepresearch.report.html import render_pdf
    from deepresearch.report.number_check import explanation
    from deepresearch.state.store import StateStore

    target = (workdir or Path.cwd()).resolve()
    if target.is_file() and target.name != "report.md":
        _check_kept(target, as_json)
        return
    workspace = Workspace(target.parent if target.is_file() else target)
    report_text = _read_report(workspace)
    doc = StateStore(workspace).load()
    figures = load_figures(workspace.root)
    outcome = verify_and_finalize(workspace, doc, report_text, figures)
    pdf_path = workspace.root / "report.pdf"
    if pdf:
        render_pdf(workspace.report_html, pdf_path, load_config(workspace.root).chromium_path)
    numbers = _numbers(outcome.final_text, doc) if explain else []
    if as_json:
        data = _as_json(workspace, outcome, figures, pdf_path if pdf else None)
        if explain:
            data["numbers"] = [
                {"line": j.line, "number": j.bound.text, "cited": list(j.cited), "grounded": j.grounded,
                 "how": j.how, "why": j.why}
                for j in numbers
            ]  # fmt: skip
        typer.echo(json.dumps(data, ensure_ascii=False))
    else:
        for judged in numbers:
            typer.echo(f"report.md:{explanation(judged)}")
        for violation in outcome.violations:
            typer.echo(format_violation(violation))
        for note in original_hash_notes(doc.sources, workspace.root):
            typer.echo(f"note: {note}", err=True)
        written = ", ".join(p.name for p in (workspace.report_html, workspace.knowledge_json))
        typer.echo(f"report.md rewritten with References; wrote {written}" + (", report.pdf" * pdf), err=True)
    if outcome.violations:
        count = len(outcome.violations)
        raise CheckFailedError(
            f"report.md failed verification: {count} problem{'s' * (count != 1)} (listed above and in "
            "its Verification section)",
            hint="fix each listed line (state only what task.md's facts support, cited [Sxx]), "
            "then run deepresearch check again",
        )


def _numbers(report_text: str, doc: TaskDoc) -> list[Judged]:
    """Every number of the report's body, judged where it is stated, at its line in report.md."""
    from deepresearch.report.blocks import body_blocks
    from deepresearch.report.number_check import judge_numbers

    # body_blocks skips the generated banner and sections itself; stripping them first would
    # shift every line after a failing report's banner
    return list(judge_numbers(body_blocks(report_text), doc))


def _check_kept(report: Path, as_json: bool) -> None:
    """Verify a kept report (reports/NN-slug.md) against the state it was written from."""
    from deepresearch.report.check import format_violation
    from deepresearch.report.kept import REPORTS, check_kept, state_path

    root = report.parent.parent
    if report.parent.name != REPORTS or not (root / "task.md").is_file():
        raise UsageError(
            f"{report} is neither a run folder nor a report kept in a run's {REPORTS}/ folder",
            hint="pass the folder of a run, or DIR/reports/NN-….md for an earlier question's report",
        )
    outcome = check_kept(root, report)
    if as_json:
        data = {
            "passed": outcome.passed,
            "violations": [
                {"line": v.line, "kind": v.kind, "message": v.message} for v in outcome.violations
            ],
            "report": str(report),
            "state": str(state_path(report)),
        }
        typer.echo(json.dumps(data, ensure_ascii=False))
    else:
        for violation in outcome.violations:
            typer.echo(format_violation(violation, f"{REPORTS}/{report.name}"))
        typer.echo(
            f"{report.name} checked against {state_path(report).name}, the task.md it was written from "
            "(a kept report is not rewritten)",
            err=True,
        )
    if outcome.violations:
        count = len(outcome.violations)
        raise CheckFailedError(
            f"{report.name} failed verification: {count} problem{'s' * (count != 1)} (listed above)",
            hint="a kept report is a record of an earlier question; its Verification section, if any, "
            "lists what was known to remain",
        )


def _read_report(workspace: Workspace) -> str:
    if not workspace.root.is_dir():
        raise UsageError(f"run folder not found: {workspace.root}", hint="pass the folder of a run")
    if not workspace.has_run():
        raise UsageError(*workspace.no_run())
    if not workspace.report_md.is_file():
        raise UsageError(
            f"no report.md in {workspace.root}: the report has not been written yet",
            hint="run deepresearch in that folder to resume the run up to the report",
        )
    try:
        return workspace.report_md.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{workspace.report_md} is not UTF-8 text (byte {exc.start})", hint="save it as UTF-8"
        ) from exc


def _as_json(
    workspace: Workspace, outcome: VerificationOutcome, figures: list[RenderedFigure], pdf: Path | None
) -> dict[str, object]:
    return {
        "passed": outcome.passed,
        "violations": [{"line": v.line, "kind": v.kind, "message": v.message} for v in outcome.violations],
        "figures": [
            {"number": f.number, "title": f.title, "png": f.png, "svg": f.svg, "sources": list(f.sources)}
            for f in figures
        ],
        "report": str(workspace.report_md),
        "html": str(workspace.report_html),
        "knowledge": str(workspace.knowledge_json),
        "pdf": str(pdf) if pdf else None,
    }
