"""`deepresearch archive URL [URL...]`: archive sources into the workspace and print their records.

For agents and people. Each URL is stored under assets/ with a source ID from the workspace's
registry (the same page archived twice keeps its first ID); task.md is never written here.
`--json` prints one JSON array with one object per URL, in the order given: the record's fields
(`id`, `title`, `final_url`, `status`, `archive`, `sha256`, ... and `error`/`message` on failure).
Exit 0 when every URL is archived, 10 when any failed (every success is still printed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.core.attribution import BATCH_ENV, TASK_ENV, Attribution
from deepresearch.core.config import load_config
from deepresearch.core.errors import ArchiveError, UsageError
from deepresearch.core.workspace import Workspace
from deepresearch.sources.record import SourceRecord


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
            envvar="DEEPRESEARCH_WORKDIR",
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
        int | None, typer.Option("--batch", envvar=BATCH_ENV, help="The Top-K batch this archive is for.")
    ] = None,
    task: Annotated[
        str | None,
        typer.Option(
            "--task", envvar=TASK_ENV, help="The executor task (set by the orchestrator).", hidden=True
        ),
    ] = None,
) -> None:
    """Archive each URL, print its record (or its failure), exit 10 if any failed."""
    root = (workdir or Path.cwd()).resolve()
    if not root.is_dir():
        raise UsageError(f"workspace folder not found: {root}", hint="pass --workdir DIR of a run folder")
    cleaned = [url.strip() for url in urls if url.strip()]
    if not cleaned:
        raise UsageError("no URL to archive", hint="deepresearch archive https://example.org/page")
    # Imported here: Playwright and trafilatura load only when something is archived.
    from deepresearch.sources.archive import Archiver

    config = load_config(root)
    workspace = Workspace(root)
    workspace.ensure()
    attribution = Attribution(task or "", batch)
    with Archiver(
        workspace, config, screenshot=screenshot, print_pdf=print_pdf, attribution=attribution
    ) as archiver:
        records = archiver.archive_many(cleaned)
        warnings = list(archiver.warnings)
    for warning in warnings:
        typer.echo(f"archive: warning: {warning}", err=True)
    if as_json:
        typer.echo(json.dumps([r.to_dict() for r in records], ensure_ascii=False, indent=2))
    else:
        typer.echo("\n\n".join(describe(r) for r in records))
    failed = [r for r in records if not r.ok]
    if failed:
        kinds = ", ".join(sorted({r.error for r in failed}))
        raise ArchiveError(
            f"{len(failed)} of {len(records)} URL{'s' * (len(records) != 1)} could not be archived ({kinds})",
            hint="each failure is listed above and recorded in .deepresearch/sources.jsonl; "
            "find another source, or retry later for timeouts and server errors",
        )


def describe(record: SourceRecord) -> str:
    """A record as a few readable lines: ID, title, URL, facts about it, and its files."""
    if not record.ok:
        return f"FAILED {record.url}\n  {record.error}: {record.message}"
    lines = [f"{record.id}  {record.title}", f"  url:       {record.final_url}"]
    if record.url != record.final_url:
        lines.append(f"  requested: {record.url}")
    lines.append(
        f"  {record.status} (HTTP {record.http_status}, {record.content_type}) · type: {record.source_type} · "
        f"published: {record.published or 'unknown'} · fetched: {record.fetched} · weight: {record.weight}"
    )
    lines.append(f"  text:      {record.archive}")
    for label, path in (
        ("html", record.html_path),
        ("pdf", record.pdf_path),
        ("image", record.screenshot_path),
    ):
        if path:
            lines.append(f"  {label + ':':10} {path}")
    lines.append(f"  sha256:    {record.sha256}")
    if record.warning:
        lines.append(f"  warning:   {record.warning}")
    return "\n".join(lines)
