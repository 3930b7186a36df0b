"""`deepresearch search QUERY`: web search for agents, cached, logged and counted against the budget."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.core.attribution import BATCH_ENV, TASK_ENV, Attribution
from deepresearch.core.config import load_config
from deepresearch.core.errors import UsageError
from deepresearch.core.workspace import Workspace
from deepresearch.search import SearchOutcome, run_search

MAX_K = 20  # the smallest per-request maximum among the providers (Brave, Tavily)


def register(app: typer.Typer) -> None:
    """Add the `search` subcommand to the app."""
    app.command("search", help="Search the web through the configured providers (for agents).")(search)


def search(
    query: Annotated[str, typer.Argument(help="What to search for.")],
    k: Annotated[int, typer.Option("-k", help="How many results (1-20).")] = 10,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON array of results (with provider and rank).")
    ] = False,
    workdir: Annotated[
        Path | None,
        typer.Option(
            "--workdir",
            envvar="DEEPRESEARCH_WORKDIR",
            help="The run folder whose cache, log and budget to use (default: the current folder).",
        ),
    ] = None,
    batch: Annotated[
        int | None, typer.Option("--batch", envvar=BATCH_ENV, help="The Top-K batch this search is for.")
    ] = None,
    task: Annotated[
        str | None,
        typer.Option(
            "--task", envvar=TASK_ENV, help="The executor task (set by the orchestrator).", hidden=True
        ),
    ] = None,
) -> None:
    """Search, print the results, and report on stderr where they came from and the budget left."""
    if not query.strip():
        raise UsageError("the search query is empty", hint='deepresearch search "what to look for"')
    if not 1 <= k <= MAX_K:
        raise UsageError(f"-k must be between 1 and {MAX_K}, got {k}")
    root = (workdir or Path.cwd()).resolve()
    if not root.is_dir():
        raise UsageError(f"workspace folder not found: {root}", hint="pass --workdir DIR of a run folder")
    config = load_config(root)
    attribution = Attribution(task or "", batch)
    outcome = run_search(
        Workspace(root), config, query.strip(), k=k, environ=os.environ, attribution=attribution
    )
    for attempt in outcome.attempts:
        if not attempt.ok:
            typer.echo(f"search: skipped {attempt.describe()}", err=True)
    if as_json:
        typer.echo(json.dumps([r.to_dict() for r in outcome.results], ensure_ascii=False, indent=2))
    else:
        typer.echo(_plain(outcome))
    typer.echo(f"search: {_status(outcome)}", err=True)


def _plain(outcome: SearchOutcome) -> str:
    if not outcome.results:
        return f"No results for {outcome.query!r}."
    blocks = []
    for result in outcome.results:
        lines = [f"{result.rank}. {result.title}", f"   {result.url}"]
        if result.snippet:
            lines.append(f"   {result.snippet}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _status(outcome: SearchOutcome) -> str:
    if outcome.cached:
        source = "from the cache (no search spent)"
    else:
        providers = sorted({r.provider for r in outcome.results}) or ["no provider had results"]
        source = f"via {', '.join(providers)}"
    limit = f" of {outcome.max_searches}" if outcome.max_searches is not None else ""
    return f"{len(outcome.results)} results {source}; searches used: {outcome.searches_used}{limit}"
