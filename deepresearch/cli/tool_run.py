"""What `deepresearch search` and `deepresearch archive` do and print, without typer.

Both front ends call these: the full CLI (`search_cmd.py`, `archive_cmd.py`) and the lean entry the
tool scripts of a run use (`tools.py`, which starts without typer). Inside an agent of a run
(DEEPRESEARCH_SERVICE set) the run's tool service does the work; run by hand, the command does.

- search: if the service cannot be reached, it fails (exit 12) rather than search without the
  providers' keys, which agents never get.
- archive: if the service cannot be reached, it archives here (with a warning) when it may write the
  workspace's archives; inside the OS sandbox it may not, and fails (exit 12).

Run by hand in a folder that deepresearch keeps nothing in yet, both work in a temporary folder and
move what they made (cache, registry, archives, logs) into it only when they succeed: a failed
command leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.cli.record_text import describe
from deepresearch.core.attribution import BATCH_ENV, TASK_ENV, Attribution
from deepresearch.core.commands import WORKDIR_ENV
from deepresearch.core.errors import ArchiveError, DeepResearchError, ToolServiceError, UsageError
from deepresearch.core.files import merge_tree
from deepresearch.core.workspace import Workspace
from deepresearch.service.client import ServiceUnreachable, ToolClient, service_address
from deepresearch.service.protocol import MAX_K, Caller
from deepresearch.sources.record import SourceRecord


@dataclass
class Printed:
    """What a command prints: stdout, then lines for stderr; `error` is raised after printing."""

    stdout: str = ""
    stderr: list[str] = field(default_factory=list)
    error: DeepResearchError | None = None

    def emit(self) -> None:
        """Print stdout, then the stderr lines; then raise `error` if there is one."""
        print(self.stdout)
        for line in self.stderr:
            print(line, file=sys.stderr)
        if self.error is not None:
            raise self.error


def workspace_root(workdir: Path | None, environ: Mapping[str, str]) -> Path:
    """The run folder: --workdir, else DEEPRESEARCH_WORKDIR, else the current folder."""
    given = workdir or (Path(environ[WORKDIR_ENV]) if environ.get(WORKDIR_ENV) else None)
    root = (given or Path.cwd()).resolve()
    if not root.is_dir():
        raise UsageError(f"workspace folder not found: {root}", hint="pass --workdir DIR of a run folder")
    return root


def by_hand(
    root: Path,
    who: Attribution,
    work: Callable[[Path], dict[str, Any]],
    succeeded: Callable[[dict[str, Any]], bool],
) -> dict[str, Any]:
    """`work` on the workspace folder `root` without the tool service. A person's command (`who`
    names no task) in a folder that deepresearch keeps nothing in yet works in a temporary folder,
    whose files move into `root` only when `succeeded` says so: a failure (or an exception) leaves
    `root` as it was. An agent's command works in its run's workspace."""
    if who or Workspace(root).in_use():
        return work(root)
    with tempfile.TemporaryDirectory(prefix="deepresearch-staged-") as staging:
        found = work(Path(staging))
        if succeeded(found):
            merge_tree(Path(staging), root)
        return found


def attributed(environ: Mapping[str, str], task: str | None, batch: int | None) -> dict[str, str]:
    """`environ` with the task and Top-K batch a command was given (`--task`, `--batch`): what its
    searches and archives are recorded for (the orchestrator sets the task in agents' environment)."""
    if batch is not None and batch < 1:
        raise UsageError(f"--batch must be 1 or more, got {batch}", hint="batches are numbered from 1")
    env = dict(environ)
    if task:
        env[TASK_ENV] = task
    if batch is not None:
        env[BATCH_ENV] = str(batch)
    return env


# --- search --------------------------------------------------------------------------------------


def run_search_command(
    query: str, k: int, as_json: bool, root: Path, environ: Mapping[str, str], local: bool = False
) -> Printed:
    """Search and say what was found and how (results on stdout, provenance on stderr); `local`
    searches the workspace's own archives instead (free, no search spent)."""
    if not query.strip():
        raise UsageError("the search query is empty", hint='deepresearch search "what to look for"')
    if not 1 <= k <= MAX_K:
        raise UsageError(f"-k must be between 1 and {MAX_K}, got {k}")
    if local:
        return _printed_local(_local(root, query.strip(), k, environ), as_json)
    notices: list[str] = []
    found = _search(root, query.strip(), k, environ, notices)
    shown = json.dumps(found["results"], ensure_ascii=False, indent=2) if as_json else _plain(found)
    stderr = [*notices, *(f"search: skipped {skipped}" for skipped in found["skipped"])]
    return Printed(shown, [*stderr, f"search: {_status(found)}"])


def _search(root: Path, query: str, k: int, environ: Mapping[str, str], notices: list[str]) -> dict[str, Any]:
    address = service_address(environ)
    if address is None:
        from deepresearch.core.config import load_config
        from deepresearch.core.events import Event, Notice
        from deepresearch.search import run_search
        from deepresearch.service.protocol import search_result

        def warn(event: Event) -> None:
            # Notices from the search (a damaged cache entry) go to stderr, beside the provider lines.
            if isinstance(event, Notice):
                notices.append(f"search: {event.level}: {event.message}")

        who = Caller.from_environ(environ).attribution()
        config = load_config(root)

        def search_in(folder: Path) -> dict[str, Any]:
            found = run_search(
                Workspace(folder), config, query, k=k, environ=environ, sink=warn, attribution=who
            )
            return search_result(found)

        return by_hand(root, who, search_in, lambda found: True)
    try:
        return ToolClient(address, Caller.from_environ(environ)).search(root, query, k)
    except ServiceUnreachable as exc:
        raise ToolServiceError(
            f"the run's tool service is not answering ({exc}); searching needs it: it holds the search "
            "providers' keys, which agents do not get",
            hint="work with the sources found so far; the run restarts its service for the next agent",
        ) from exc


def _local(root: Path, query: str, k: int, environ: Mapping[str, str]) -> dict[str, Any]:
    address = service_address(environ)
    if address is None:
        from deepresearch.service.protocol import local_result

        if not Workspace(root).in_use():
            raise UsageError(
                f"nothing is archived in {root}: it is not a deepresearch workspace",
                hint="pass the folder of a run (--workdir DIR), or archive sources there first",
            )
        return local_result(query, k, Workspace(root))
    try:
        return ToolClient(address, Caller.from_environ(environ)).local(root, query, k)
    except ServiceUnreachable as exc:
        raise ToolServiceError(
            f"the run's tool service is not answering ({exc}); the local search index is kept by it",
            hint="work with the sources found so far; the run restarts its service for the next agent",
        ) from exc


def _printed_local(found: dict[str, Any], as_json: bool) -> Printed:
    """Local hits as JSON or readable blocks, and on stderr what was searched."""
    hits = found["hits"]
    if as_json:
        shown = json.dumps(hits, ensure_ascii=False, indent=2)
    elif not hits:
        shown = f"No archived passage matches {found['query']!r}."
    else:
        blocks = []
        for n, hit in enumerate(hits, 1):
            where = " · ".join(p for p in (hit["position"], "provided" if hit["provided"] else "") if p)
            head = f"{n}. [{hit['id']}] {hit['title']}" + (f" ({where})" if where else "")
            blocks.append(f"{head}\n   {hit['archive']}\n   {' '.join(hit['passage'].split())}")
        shown = "\n\n".join(blocks)
    status = (
        f"search: {len(hits)} passages from the local index of {found['documents']} archived "
        f"sources ({found['indexed_now']} newly indexed); no web search spent"
    )
    return Printed(shown, [status])


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


# --- archive -------------------------------------------------------------------------------------


def run_archive_command(
    urls: list[str], as_json: bool, screenshot: bool, print_pdf: bool, root: Path, environ: Mapping[str, str]
) -> Printed:
    """Archive each URL; the records (or failures) to print, and ArchiveError when any failed."""
    from deepresearch.sources.routes import as_target

    cwd = Path.cwd()  # a relative path means the file the caller sees, wherever the workspace is
    cleaned = [as_target(url, cwd) for url in urls if url.strip()]
    if not cleaned:
        raise UsageError("no URL to archive", hint="deepresearch archive https://example.org/page")
    warnings: list[str] = []
    found = _archive(root, cleaned, screenshot, print_pdf, environ, warnings)
    records = [SourceRecord.from_dict(r) for r in found["records"]]
    stderr = [f"archive: warning: {w}" for w in [*warnings, *found["warnings"]]]
    if as_json:
        shown = json.dumps([r.to_dict() for r in records], ensure_ascii=False, indent=2)
    else:
        shown = "\n\n".join(describe(r) for r in records)
    failed = [r for r in records if not r.ok]
    error = None
    if failed:
        kinds = ", ".join(sorted({r.error for r in failed}))
        kept = len(failed) < len(records) or Workspace(root).in_use()
        where = (
            "recorded in the source registry (.deepresearch/sources.db)"
            if kept
            else f"nothing was kept in {root}"
        )
        error = ArchiveError(
            f"{len(failed)} of {len(records)} URL{'s' * (len(records) != 1)} could not be archived ({kinds})",
            hint=f"each failure is listed above and {where}; "
            "find another source, or retry later for timeouts and server errors",
        )
    return Printed(shown, stderr, error)


def _archive(
    root: Path, urls: list[str], screenshot: bool, pdf: bool, environ: Mapping[str, str], warnings: list[str]
) -> dict[str, Any]:
    address = service_address(environ)
    who = Caller.from_environ(environ)
    if address is None:
        return _archive_here(root, urls, screenshot, pdf, who)
    try:
        return ToolClient(address, who).archive(root, urls, screenshot, pdf)
    except ServiceUnreachable as exc:
        if not os.access(Workspace(root).assets, os.W_OK):
            raise ToolServiceError(
                f"the run's tool service is not answering ({exc}), and this process may not write the "
                "workspace's archives itself",
                hint="archive later (the run restarts its service for the next agent), or cite the URL: "
                "the orchestrator archives cited URLs",
            ) from exc
        warnings.append(f"the run's tool service is not answering ({exc}); archiving here")
        # As the service would: an agent's archive never reads local files (a page may have asked).
        return _archive_here(root, urls, screenshot, pdf, who, local_files=False)


def _archive_here(
    root: Path, urls: list[str], screenshot: bool, pdf: bool, who: Caller, local_files: bool = True
) -> dict[str, Any]:
    # Imported here: Playwright and trafilatura load only when something is archived here.
    from deepresearch.core.config import load_config
    from deepresearch.service.protocol import archive_result
    from deepresearch.sources.archive import Archiver

    config = load_config(root)

    def archive_in(folder: Path) -> dict[str, Any]:
        workspace = Workspace(folder)
        workspace.ensure()
        with Archiver(
            workspace,
            config,
            screenshot=screenshot,
            print_pdf=pdf,
            attribution=who.attribution(),
            local_files=local_files,
        ) as archiver:
            return archive_result(archiver.archive_many(urls), list(archiver.warnings))

    def any_archived(found: dict[str, Any]) -> bool:
        return any(SourceRecord.from_dict(r).ok for r in found["records"])

    return by_hand(root, who.attribution(), archive_in, any_archived)
