"""`deepresearch report DIR`: the summary of a batch (markdown + HTML, per-job table, plots)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from deepresearch.core.errors import UsageError


def register(app: typer.Typer) -> None:
    """Add the `report` subcommand to the app."""
    app.command(
        "report",
        help="Summarise a batch: DIR/batch-report.md and .html with every job's measures and plots.",
    )(report)


def report(
    workdir: Annotated[Path, typer.Argument(help="The batch folder (holding batch.json).")],
) -> None:
    """Write batch-report.md and batch-report.html (plots drawn in a child process)."""
    from deepresearch.batch.state import load_state  # when it runs: `--help` stays fast
    from deepresearch.batch.summary import write_summary

    folder = workdir.expanduser().resolve()
    state = load_state(folder)
    if state is None:
        raise UsageError(
            f"no batch in {folder} (no batch.json)",
            hint="deepresearch report works on a batch folder; for one run see `deepresearch status DIR`",
        )
    outcome = write_summary(folder, state)
    for failure in outcome.failures:
        typer.echo(f"warning: plot not drawn: {failure}", err=True)
    typer.echo(f"wrote {outcome.markdown} and {outcome.html} ({len(outcome.plots)} plots)")
