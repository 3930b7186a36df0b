"""`deepresearch search QUERY`: web search for agents, cached, logged and counted against the budget.

`--local` searches the workspace's own archive instead (sources/localsearch.py): free, uncounted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from deepresearch.core.config import load_config
from deepresearch.core.errors import UsageError
from deepresearch.core.events import Event, Notice
from deepresearch.core.workspace import Workspace
from deepresearch.search import SearchOutcome, run_search

if TYPE_CHECKING:
    from deepresearch.sources.localsearch import LocalOutcome

MAX_K = 20  # the smallest per-request maximum among the providers (Brave, Tavily)


def register(app: typer.Typer) -> None:
    """Add the `search` subcommand to the app."""
    app.command(
        "search",
        help="Search the web through the configured providers, or with --local everything archived "
        "in the workspace (for agents).",
    )(search)


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
    local: Annotated[
        bool,
        typer.Option(
            "--local",
            help="Search the workspace's archived sources (BM25 over their text; no web search, "
            "no budget spent). Hits name the source ID and the page, time or chapter.",
        ),
    ] = False,
) -> None:
    """Search, print the results, and report on stderr where they came from and the budget left."""
    if not query.strip():
        raise UsageError("the search query is empty", hint='deepresearch search "what to look for"')
    if not 1 <= k <= MAX_K:
        raise UsageError(f"-k must be between 1 and {MAX_K}, got {k}")
    root = (workdir or Path.cwd()).resolve()
    if not root.is_dir():
        raise UsageError(f"workspace folder not found: {root}", hint="pass --workdir DIR of a run folder")
    if local:
        from deepresearch.sources.localsearch import local_search  # sqlite3 and the index: only here

        _print_local(local_search(Workspace(root), query.strip(), k=k), as_json)
        return
    config = load_config(root)
    outcome = run_search(Workspace(root), config, query.strip(), k=k, environ=os.environ, sink=_warn)
    for attempt in outcome.attempts:
        if not attempt.ok:
            typer.echo(f"search: skipped {attempt.describe()}", err=True)
    if as_json:
        typer.echo(json.dumps([r.to_dict() for r in outcome.results], ensure_ascii=False, indent=2))
    else:
        typer.echo(_plain(outcome))
    typer.echo(f"search: {_status(outcome)}", err=True)


def _warn(event: Event) -> None:
    """Notices from the search (a damaged cache entry) go to stderr, beside the provider lines."""
    if isinstance(event, Notice):
        typer.echo(f"search: {event.level}: {event.message}", err=True)


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


def _print_local(outcome: LocalOutcome, as_json: bool) -> None:
    """Local hits as JSON or readable blocks, and on stderr what was searched."""
    if as_json:
        typer.echo(json.dumps([h.to_dict() for h in outcome.hits], ensure_ascii=False, indent=2))
    elif not outcome.hits:
        typer.echo(f"No archived passage matches {outcome.query!r}.")
    else:
        blocks = []
        for n, hit in enumerate(outcome.hits, 1):
            where = " · ".join(p for p in (hit.position, "provided" if hit.provided else "") if p)
            head = f"{n}. [{hit.id}] {hit.title}" + (f" ({where})" if where else "")
            blocks.append(f"{head}\n   {hit.archive}\n   {' '.join(hit.passage.split())}")
        typer.echo("\n\n".join(blocks))
    typer.echo(
        f"search: {len(outcome.hits)} passages from the local index of {outcome.documents} archived "
        f"sources ({outcome.indexed_now} newly indexed); no web search spent",
        err=True,
    )
