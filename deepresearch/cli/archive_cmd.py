"""`deepresearch archive URL [URL...]`: archive sources into the workspace and print their records.

For agents and people. Each URL is stored under assets/ with a source ID from the workspace's
registry (the same page archived twice keeps its first ID); task.md is never written here.
`--json` prints one JSON array with one object per URL, in the order given: the record's fields
(`id`, `title`, `final_url`, `status`, `archive`, `sha256`, ... and `error`/`message` on failure).
Exit 0 when every URL is archived, 10 when any failed (every success is still printed).

Inside an agent of a run the run's tool service archives, with the run's one browser (see
cli/tool_run.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.cli.tool_run import attributed, describe, run_archive_command, workspace_root
from deepresearch.core.commands import WORKDIR_ENV

__all__ = ["archive", "describe", "register"]


def register(app: typer.Typer) -> None:
    """Add the `archive` subcommand to the app."""
    app.command("archive", help="Archive web pages and PDFs as sources of the workspace (for agents).")(
        archive
    )


def archive(
    urls: Annotated[list[str], typer.Argument(help="The URLs to archive.", show_default=False)],
    workdir: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--workdir",
            envvar=WORKDIR_ENV,
            help="The run folder to archive into (default: the current folder).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON array of records, one per URL, in order.")
    ] = False,
    screenshot: Annotated[
        bool, typer.Option("--screenshot", help="Also save a full-page screenshot under assets/images/.")
    ] = False,
    print_pdf: Annotated[
        bool, typer.Option("--pdf", help="Also save the rendered page printed as PDF under assets/images/.")
    ] = False,
    batch: Annotated[
        int | None, typer.Option("--batch", help="The Top-K batch this archive is for (executors).")
    ] = None,
    task: Annotated[
        str | None, typer.Option("--task", help="The executor task (set by the orchestrator).", hidden=True)
    ] = None,
) -> None:
    """Archive each URL, print its record (or its failure), exit 10 if any failed."""
    environ = attributed(os.environ, task, batch)
    root = workspace_root(workdir, environ)
    run_archive_command(urls, as_json, screenshot, print_pdf, root, environ).emit()
