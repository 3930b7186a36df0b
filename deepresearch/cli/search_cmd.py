"""`deepresearch search QUERY`: web search for agents, cached, logged and counted against the budget.

Inside an agent of a run (DEEPRESEARCH_SERVICE set) the run's tool service searches: it holds the
providers' API keys, which agents never get. If it cannot be reached the command fails (exit 11)
rather than search without the keys; run by hand, it searches itself.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from deepresearch.core.config import load_config
from deepresearch.core.errors import ToolServiceError, UsageError
from deepresearch.core.workspace import Workspace
from deepresearch.search import run_search
from deepresearch.service.client import ServiceUnreachable, ToolClient, service_address
from deepresearch.service.protocol import Caller, search_result

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
) -> None:
    """Search, print the results, and report on stderr where they came from and the budget left."""
    if not query.strip():
        raise UsageError("the search query is empty", hint='deepresearch search "what to look for"')
    if not 1 <= k <= MAX_K:
        raise UsageError(f"-k must be between 1 and {MAX_K}, got {k}")
    root = (workdir or Path.cwd()).resolve()
    if not root.is_dir():
        raise UsageError(f"workspace folder not found: {root}", hint="pass --workdir DIR of a run folder")
    found = _search(root, query.strip(), k)
    for skipped in found["skipped"]:
        typer.echo(f"search: skipped {skipped}", err=True)
    if as_json:
        typer.echo(json.dumps(found["results"], ensure_ascii=False, indent=2))
    else:
        typer.echo(_plain(found))
    typer.echo(f"search: {_status(found)}", err=True)


def _search(root: Path, query: str, k: int) -> dict[str, Any]:
    """The search's result (service/protocol.search_result), from the run's service or here."""
    address = service_address(os.environ)
    if address is None:
        return search_result(run_search(Workspace(root), load_config(root), query, k=k, environ=os.environ))
    try:
        return ToolClient(address, Caller.from_environ(os.environ)).search(root, query, k)
    except ServiceUnreachable as exc:
        raise ToolServiceError(
            f"the run's tool service is not answering ({exc}); searching needs it: it holds the search "
            "providers' keys, which agents do not get",
            hint="work with the sources found so far; the run restarts its service for the next agent",
        ) from exc


def _plain(found: dict[str, Any]) -> str:
    if not found["results"]:
        return f"No results for {found['query']!r}."
    blocks = []
    for result in found["results"]:
        lines = [f"{result['rank']}. {result['title']}", f"   {result['url']}"]
        if result["snippet"]:
            lines.append(f"   {result['snippet']}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _status(found: dict[str, Any]) -> str:
    results = found["results"]
    if found["cached"]:
        source = "from the cache (no search spent)"
    else:
        providers = sorted({r["provider"] for r in results}) or ["no provider had results"]
        source = f"via {', '.join(providers)}"
    limit = f" of {found['max_searches']}" if found["max_searches"] is not None else ""
    return f"{len(results)} results {source}; searches used: {found['searches_used']}{limit}"
