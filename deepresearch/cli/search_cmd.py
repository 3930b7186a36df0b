"""`deepresearch search QUERY`: web search for agents, cached, logged and counted against the budget.

`--local` searches the workspace's own archives instead (sources/localsearch.py): free, uncounted.
Inside an agent of a run the run's tool service searches (see cli/tool_run.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.cli.tool_run import MAX_K, attributed, run_search_command, workspace_root
from deepresearch.core.commands import WORKDIR_ENV


def register(app: typer.Typer) -> None:
    """Add the `search` subcommand to the app."""
    app.command(
        "search",
        help="Search the web through the configured providers, or with --local everything archived "
        "in the workspace (for agents).",
    )(search)


def search(
    query: Annotated[str, typer.Argument(help="What to search for.")],
    k: Annotated[int, typer.Option("-k", help=f"How many results (1-{MAX_K}).")] = 10,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON array of results (with provider and rank).")
    ] = False,
    workdir: Annotated[
        Path | None,
        typer.Option(
            "--workdir",
            envvar=WORKDIR_ENV,
            help="The run folder whose cache, log and budget to use (default: the current folder).",
        ),
    ] = None,
    local: Annotated[
        bool,
        typer.Option(
            "--local",
            help="Search the workspace's archived sources (BM25 over their text; no web search, "
            "no budget spent). Hits name the source ID and the page, time or chapter.",
        ),
    ] = False,
    batch: Annotated[
        int | None, typer.Option("--batch", help="The Top-K batch this search is for (executors).")
    ] = None,
    task: Annotated[
        str | None, typer.Option("--task", help="The executor task (set by the orchestrator).", hidden=True)
    ] = None,
) -> None:
    """Search, print the results, and report on stderr where they came from and the budget left."""
    environ = attributed(os.environ, task, batch)
    run_search_command(query, k, as_json, workspace_root(workdir, environ), environ, local).emit()
