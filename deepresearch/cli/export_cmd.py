"""`deepresearch export DIR --format bench|jsonl|csv`: a batch for DeepResearch Bench, or our measures."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.core.errors import UsageError


def default_name(fmt: str) -> str:
    """export-bench.jsonl, export-measures.jsonl or export-measures.csv."""
    return "export-bench.jsonl" if fmt == "bench" else f"export-measures.{fmt}"


def register(app: typer.Typer) -> None:
    """Add the `export` subcommand to the app."""
    app.command(
        "export",
        help="Export a batch: bench = DeepResearch Bench {id, prompt, article} lines; jsonl/csv = one row "
        "per job with its measures.",
    )(export)


def export(
    workdir: Annotated[Path, typer.Argument(help="The batch folder (holding batch.json).")],
    fmt: Annotated[str, typer.Option("--format", "-F", help="bench | jsonl | csv.")] = "bench",
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="Where to write (default DIR/export-bench.jsonl, export-measures.jsonl|csv; - for stdout).",
        ),
    ] = None,
) -> None:
    """Write the export and say how many jobs it holds (and which were left out, and why)."""
    from deepresearch.batch.export import FORMATS, export_batch  # when it runs: `--help` stays fast
    from deepresearch.batch.state import load_state
    from deepresearch.core.files import atomic_write

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    folder = workdir.expanduser().resolve()
    state = load_state(folder)
    if state is None:
        raise UsageError(f"no batch in {folder} (no batch.json)", hint="deepresearch batch FILE -o DIR first")
    result = export_batch(folder, state, fmt)
    for reason in result.skipped:
        typer.echo(f"warning: left out {reason}", err=True)
    if output is not None and str(output) == "-":
        sys.stdout.write(result.text)
        return
    target = output or folder / default_name(fmt)
    atomic_write(target.expanduser().resolve(), result.text)
    typer.echo(f"wrote {result.rows} row(s) to {target}")
