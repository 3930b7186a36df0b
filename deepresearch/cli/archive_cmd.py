"""`deepresearch archive URL [URL...]`: archive sources into the workspace and print their records.

For agents and people. Each URL is stored under assets/ with a source ID from the workspace's
registry (the same page archived twice keeps its first ID); task.md is never written here.
`--json` prints one JSON array with one object per URL, in the order given: the record's fields
(`id`, `title`, `final_url`, `status`, `archive`, `sha256`, ... and `error`/`message` on failure).
Exit 0 when every URL is archived, 10 when any failed (every success is still printed).

Inside an agent of a run (DEEPRESEARCH_SERVICE set) the run's tool service archives, with the run's
one browser. If it cannot be reached the command archives here instead (with a warning), when it
may write the workspace; inside the OS sandbox it may not, and fails (exit 11).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from deepresearch.core.config import load_config
from deepresearch.core.errors import ArchiveError, ToolServiceError, UsageError
from deepresearch.core.workspace import Workspace
from deepresearch.service.client import ServiceUnreachable, ToolClient, service_address
from deepresearch.service.protocol import Caller, archive_result
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
) -> None:
    """Archive each URL, print its record (or its failure), exit 10 if any failed."""
    root = (workdir or Path.cwd()).resolve()
    if not root.is_dir():
        raise UsageError(f"workspace folder not found: {root}", hint="pass --workdir DIR of a run folder")
    cleaned = [url.strip() for url in urls if url.strip()]
    if not cleaned:
        raise UsageError("no URL to archive", hint="deepresearch archive https://example.org/page")
    found = _archive(root, cleaned, screenshot, print_pdf)
    records = [SourceRecord.from_dict(r) for r in found["records"]]
    for warning in found["warnings"]:
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


def _archive(root: Path, urls: list[str], screenshot: bool, print_pdf: bool) -> dict[str, Any]:
    """The archive's result (service/protocol.archive_result), from the run's service or here."""
    address = service_address(os.environ)
    if address is None:
        return _archive_here(root, urls, screenshot, print_pdf)
    try:
        client = ToolClient(address, Caller.from_environ(os.environ))
        return client.archive(root, urls, screenshot, print_pdf)
    except ServiceUnreachable as exc:
        if not os.access(Workspace(root).assets, os.W_OK):
            raise ToolServiceError(
                f"the run's tool service is not answering ({exc}), and this process may not write the "
                "workspace's archives itself",
                hint="archive later (the run restarts its service for the next agent), or cite the URL: "
                "the orchestrator archives cited URLs",
            ) from exc
        typer.echo(
            f"archive: warning: the run's tool service is not answering ({exc}); archiving here", err=True
        )
        return _archive_here(root, urls, screenshot, print_pdf)


def _archive_here(root: Path, urls: list[str], screenshot: bool, print_pdf: bool) -> dict[str, Any]:
    # Imported here: Playwright and trafilatura load only when something is archived.
    from deepresearch.sources.archive import Archiver

    workspace = Workspace(root)
    workspace.ensure()
    with Archiver(workspace, load_config(root), screenshot=screenshot, print_pdf=print_pdf) as archiver:
        records = archiver.archive_many(urls)
        return archive_result(records, list(archiver.warnings))


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
    if record.flags:
        lines.append(f"  flags:     {', '.join(record.flags)}")
    if record.warning:
        lines.append(f"  warning:   {record.warning}")
    return "\n".join(lines)
