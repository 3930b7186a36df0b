"""`deepresearch archive URL|PATH [...]`: archive sources into the workspace and print their records.

For agents and people. Each URL is stored under assets/ with a source ID from the workspace's
registry (the same page archived twice keeps its first ID); task.md is never written here.
`--json` prints one JSON array with one object per URL, in the order given: the record's fields
(`id`, `kind`, `title`, `final_url`, `status`, `archive`, `sha256`, paper metadata, ... and
`error`/`message` on failure). Papers (arXiv IDs, DOIs), YouTube videos and local files (a path,
relative to the current folder, or a file:// URL) take their specialist routes.
Exit 0 when every URL is archived, 10 when any failed (every success is still printed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.core.config import load_config
from deepresearch.core.errors import ArchiveError, UsageError
from deepresearch.core.workspace import Workspace
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.routes import as_target


def register(app: typer.Typer) -> None:
    """Add the `archive` subcommand to the app."""
    app.command(
        "archive",
        help="Archive web pages, PDFs, papers (arXiv, DOI), YouTube transcripts and local files "
        "as sources of the workspace (for agents).",
    )(archive)


def archive(
    urls: Annotated[
        list[str],
        typer.Argument(
            help="URLs, arXiv:ID, doi:10.…, or paths of local files (PDF, EPUB, DOCX, Markdown, HTML, text).",
            show_default=False,
        ),
    ],
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
) -> None:
    """Archive each URL, print its record (or its failure), exit 10 if any failed."""
    root = (workdir or Path.cwd()).resolve()
    if not root.is_dir():
        raise UsageError(f"workspace folder not found: {root}", hint="pass --workdir DIR of a run folder")
    cwd = Path.cwd()  # a relative path means the file the caller sees, wherever the workspace is
    cleaned = [as_target(url, cwd) for url in urls if url.strip()]
    if not cleaned:
        raise UsageError("no URL to archive", hint="deepresearch archive https://example.org/page")
    # Imported here: Playwright and trafilatura load only when something is archived.
    from deepresearch.sources.archive import Archiver

    config = load_config(root)
    workspace = Workspace(root)
    workspace.ensure()
    with Archiver(workspace, config, screenshot=screenshot, print_pdf=print_pdf) as archiver:
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
        f"  {record.status} {record.kind} (HTTP {record.http_status}, {record.content_type}) · "
        f"type: {record.source_type} · published: {record.published or 'unknown'} · "
        f"fetched: {record.fetched} · weight: {record.weight}"
    )
    lines += _metadata_lines(record)
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


def _metadata_lines(record: SourceRecord) -> list[str]:
    """What a specialist source adds: authors or channel, venue, DOI, positions, abstract only."""
    label = "channel:" if record.kind == "transcript" else "authors:"
    rows = [
        (label, "; ".join(record.authors)),
        ("venue:", record.venue),
        ("doi:", record.doi),
        ("arxiv:", record.arxiv_id),
        ("captions:", f"{record.captions} ({record.language})" if record.captions else ""),
        ("positions:", record.positions),
        ("note:", "abstract only (no open-access PDF)" if record.abstract_only else ""),
        ("provided:", "yes" if record.provided else ""),
    ]
    return [f"  {name:10} {value}" for name, value in rows if value]
