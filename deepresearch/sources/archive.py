"""The Archiver: fetch URLs (one browser for all), store them under assets/, register them.

    with Archiver(workspace, config) as archiver:
        records = archiver.archive_many(urls)

Pages load concurrently (`config.archive_concurrency`, at most `per_host` per host) on one event
loop driving Playwright's async API. A URL already in the registry is not fetched again, unless its
archive is older than `renew_before` (a follow-up's freshness window): then it is archived again
under a new ID, and the old archive is kept. Every
failure becomes a failed record in the registry; nothing is raised out of `archive_many`.
Papers, videos and files take their specialist route (routes.py, specialists.py) in a worker
thread; a web page whose `citation_*` tags name a paper is archived as that paper.

The run's tool service keeps one Archiver for the whole run on an event loop of its own and calls
`archive_async` from there (each call may ask for screenshots or printed PDFs of its own pages).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import urlsplit

from deepresearch.core.attribution import BY_HAND, Attribution
from deepresearch.core.clock import utc_now
from deepresearch.core.config import Config
from deepresearch.core.events import EventSink, Notice, NullSink
from deepresearch.core.urls import normalize_url
from deepresearch.core.workspace import Workspace
from deepresearch.sources.browser import Browser, BrowserOptions, BrowserUnavailable
from deepresearch.sources.content import build_content
from deepresearch.sources.copies import CopyProbe
from deepresearch.sources.fetch import Fetched, FetchFailure, http_fetch
from deepresearch.sources.netguard import HostPolicy
from deepresearch.sources.papers import archive_landing
from deepresearch.sources.record import BAD_URL, INTERNAL, UNSUPPORTED, SourceRecord
from deepresearch.sources.registry import SourceRegistry
from deepresearch.sources.routes import Route, Target, recognise
from deepresearch.sources.scholarly import landing_meta
from deepresearch.sources.specialist_store import Tools
from deepresearch.sources.specialists import Built, archive_special, built_special, built_web, kind_of
from deepresearch.sources.store import StoreContext

PER_HOST = 2
# Registrations wait for the registry's lock while the orchestrator merges into task.md; they wait in
# threads of their own, so lookups (other threads) still answer and pages keep loading meanwhile.
REGISTER_THREADS = 4
_T = TypeVar("_T")


class Archiver:
    """Archives URLs into a workspace; a context manager owning one browser (launched on demand)."""

    def __init__(
        self,
        workspace: Workspace,
        config: Config,
        *,
        screenshot: bool = False,
        print_pdf: bool = False,
        research_date: date | None = None,
        sink: EventSink | None = None,
        per_host: int = PER_HOST,
        provided: bool = False,
        environ: Mapping[str, str] | None = None,
        local_files: bool = True,
        attribution: Attribution = BY_HAND,
        renew_before: datetime | None = None,
    ) -> None:
        self.workspace = workspace
        self.config = config
        self.registry = SourceRegistry(workspace)
        self.research_date = research_date or utc_now().date()
        self.sink: EventSink = sink or NullSink()
        self.per_host = per_host
        self.provided = provided  # the person's own documents: type `provided`, their authority
        self.environ = os.environ if environ is None else environ
        self.local_files = local_files  # False: file:// targets are refused (the orchestrator's case)
        self.attribution = attribution  # recorded on every record and use (registry), unless a call says
        # A known source archived before this is stale: asked for again, it is archived again.
        self.renew_before = renew_before
        self.guard = HostPolicy.from_config(config)  # every request reaches the public web only
        self.options = BrowserOptions(
            chromium_path=config.chromium_path,
            profile=workspace.browser_profile,
            timeout=config.archive_timeout,
            max_bytes=config.archive_max_bytes,
            pool_size=config.archive_concurrency,
            screenshot=screenshot,
            print_pdf=print_pdf,
            guard=self.guard,
        )
        self.warnings: list[str] = []
        self.browser_unavailable = ""  # why the plain HTTP fallback is in use, once known
        self.launches = 0  # Chromium launches (one per Archiver at most, unless none could start)
        self._loop: asyncio.AbstractEventLoop | None = None  # its own, when used as a context manager
        self._driver: asyncio.AbstractEventLoop | None = None  # the loop archive_async runs on
        self._browser: Browser | None = None
        self._start_lock: asyncio.Lock | None = None
        self._slots: asyncio.Semaphore | None = None
        self._hosts: dict[str, asyncio.Semaphore] = {}
        self._register_pool: ThreadPoolExecutor | None = None

    def __enter__(self) -> Archiver:
        self._loop = asyncio.new_event_loop()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._loop is None:
            return
        self._loop.run_until_complete(self.aclose())
        self._loop.close()
        self._loop = None

    async def ready(self) -> None:
        """Launch the browser now (or learn that none can start), before the first page needs it."""
        self._start_lock = self._start_lock or asyncio.Lock()
        await self._ensure_browser()

    async def aclose(self) -> None:
        """Close the browser (on the loop that drove it) and the registry's threads."""
        if self._browser is not None:
            await self._browser.close()
        self._browser = None
        if self._register_pool is not None:
            self._register_pool.shutdown(wait=True)
            self._register_pool = None
        self.registry.close()

    def archive_many(self, urls: list[str]) -> list[SourceRecord]:
        """One record per URL, in order: archived (new or existing) or failed. Never raises for a URL."""
        if self._loop is None:
            raise RuntimeError("use Archiver as a context manager: with Archiver(...) as archiver")
        return self._loop.run_until_complete(self.archive_async(urls))

    def archive(self, url: str) -> SourceRecord:
        """Archive one URL (see archive_many)."""
        return self.archive_many([url])[0]

    async def archive_async(
        self,
        urls: list[str],
        screenshot: bool | None = None,
        print_pdf: bool | None = None,
        attribution: Attribution | None = None,
    ) -> list[SourceRecord]:
        """`archive_many` on the caller's event loop; `screenshot`/`print_pdf` override the options
        for these pages, `attribution` the task and batch they are recorded for."""
        who = self.attribution if attribution is None else attribution
        self._slots = self._slots or asyncio.Semaphore(self.config.archive_concurrency)
        self._start_lock = self._start_lock or asyncio.Lock()
        # Routes read pages from worker threads through this loop (the service's, or our own).
        self._driver = asyncio.get_running_loop()
        shots = (
            self.options.screenshot if screenshot is None else screenshot,
            self.options.print_pdf if print_pdf is None else print_pdf,
        )
        unique = list(dict.fromkeys(urls))
        keys = {url: _key(url) for url in unique}
        jobs: dict[str, asyncio.Task[SourceRecord]] = {}
        for url in unique:  # the same page under two spellings is fetched once
            if keys[url] not in jobs:
                jobs[keys[url]] = asyncio.ensure_future(self._archive_one(url, shots, who))
        await asyncio.gather(*jobs.values())
        results = {key: job.result() for key, job in jobs.items()}
        return [results[keys[url]] for url in urls]

    async def _archive_one(self, url: str, shots: tuple[bool, bool], who: Attribution) -> SourceRecord:
        target = recognise(url)
        existing: SourceRecord | None = None
        try:
            existing = await self._in_registry(self._known, url, target.canonical)
            if existing is not None and not self.stale(existing):
                await self._in_registry(self.registry.record_use, existing, url, who)
                return existing
            async with self._limit(url):
                built = await self._build(url, target, shots)
        except FetchFailure as failure:
            return await self._kept(existing, url, failure.message, who) or await self._failed(
                url, failure, who, kind_of(target)
            )
        except Exception as exc:  # a bug must not cost the other URLs their archive: record it
            bug = FetchFailure(INTERNAL, f"{url}: {type(exc).__name__}: {exc}")
            kept = await self._kept(existing, url, bug.message, who)
            return kept or await self._failed(url, bug, who, kind_of(target))
        warning = "archived with plain HTTP: no browser could be launched" if built.fallback else ""
        ctx = StoreContext(
            self.workspace, self.research_date, self.config.time_scope, built.fallback, warning
        )

        def build(source_id: str) -> SourceRecord:
            return dataclasses.replace(built.store(ctx, source_id, url), **who.fields())

        if existing is not None:  # stale: a new archive with an ID of its own, the old one kept
            record, new = await self._registering(self.registry.renew, existing, self.stale, build)
            if new:
                self.sink(Notice(f"{existing.id} was archived again as {record.id}: its archive was stale"))
        else:
            probe = CopyProbe(built.text, self.config.copy_threshold)
            record, new = await self._registering(
                self.registry.register, url, built.final_url, built.content_sha256, build, probe
            )
        if not new:
            await self._in_registry(self.registry.record_use, record, url, who)
        return record

    def _known(self, url: str, canonical: str) -> SourceRecord | None:
        existing = self.registry.lookup(url)
        if existing is None and canonical != url:  # doi:10.1/x and doi.org/10.1/x: one paper
            existing = self.registry.lookup(canonical)
        return existing

    async def _in_registry(self, call: Callable[..., _T], *args: Any) -> _T:
        """Run a registry read or note (SQLite, milliseconds, no file lock) off the event loop."""
        return await asyncio.to_thread(call, *args)

    async def _registering(self, call: Callable[..., _T], *args: Any) -> _T:
        """Run a registration (the registry's file lock, writing the archive files) in the threads
        kept for it: while another process holds the lock, pages keep loading and lookups answer."""
        if self._register_pool is None:
            self._register_pool = ThreadPoolExecutor(REGISTER_THREADS, thread_name_prefix="register")
        return await asyncio.get_running_loop().run_in_executor(self._register_pool, call, *args)

    def stale(self, record: SourceRecord) -> bool:
        """Whether a known source's archive is older than the freshness cutoff (`renew_before`)."""
        if self.renew_before is None:
            return False
        try:
            fetched = datetime.fromisoformat(record.fetched)
        except ValueError:
            return False
        return fetched < self.renew_before if fetched.tzinfo else False

    async def _kept(
        self, existing: SourceRecord | None, url: str, why: str, who: Attribution
    ) -> SourceRecord | None:
        """A stale source whose current version could not be fetched: its old archive stands."""
        if existing is None:
            return None
        self._warn(f"could not archive the current version of {existing.id} ({why}); its archive of "
                   f"{existing.fetched[:10]} is used")  # fmt: skip
        await self._in_registry(self.registry.record_use, existing, url, who)
        return existing

    async def _build(self, url: str, target: Target, shots: tuple[bool, bool]) -> Built:
        """Fetch and read one target by its route (blocking work in worker threads)."""
        if target.route is Route.LOCAL and not self.local_files:
            raise FetchFailure(
                UNSUPPORTED,
                f"{url}: local files are not archived during research (a person runs `deepresearch "
                "archive PATH`, or lists them under `documents:` to have them archived before it starts)",
            )
        if target.route is not Route.WEB:
            return built_special(await asyncio.to_thread(archive_special, target, self._tools()))
        fetched, fallback = await self._fetch(url, shots)
        fetched.url = url
        content = await asyncio.to_thread(build_content, fetched)  # CPU-bound: keep the loop free
        paper = landing_meta(content.html, fetched.final_url) if content.kind == "web" else None
        if paper is not None:  # a publisher's landing page: archive the paper it names
            special = await asyncio.to_thread(archive_landing, fetched, paper, self._tools())
            return built_special(special, fallback)
        return built_web(fetched, content, fallback)

    def _tools(self) -> Tools:
        return Tools(self.config, self.environ, self._page_from_thread, self.guard, self.provided)

    def _page_from_thread(self, url: str) -> Fetched:
        """A web page fetched on the archiver's loop (browser or fallback) for a route's worker thread."""
        assert self._driver is not None, "pages are read only while archive_async runs"
        future = asyncio.run_coroutine_threadsafe(self._fetch(url, (False, False)), self._driver)
        return future.result(timeout=2 * self.config.archive_timeout + 10)[0]

    @contextlib.asynccontextmanager
    async def _limit(self, url: str) -> AsyncIterator[None]:
        host = (urlsplit(url).hostname or "").lower()
        per_host = self._hosts.setdefault(host, asyncio.Semaphore(self.per_host))
        assert self._slots is not None
        async with per_host, self._slots:
            yield

    async def _fetch(self, url: str, shots: tuple[bool, bool]) -> tuple[Fetched, bool]:
        """(what was fetched, whether the plain HTTP fallback was used)."""
        if urlsplit(url).scheme not in ("http", "https"):
            raise FetchFailure(BAD_URL, f"not an http(s) URL: {url!r}")
        await asyncio.to_thread(self.guard.check, url)  # (it may resolve the host: off the loop)
        browser = await self._ensure_browser()
        if browser is not None:
            return await browser.fetch(url, screenshot=shots[0], print_pdf=shots[1]), False
        fetched = await asyncio.to_thread(
            http_fetch, url, self.config.archive_timeout, self.config.archive_max_bytes, self.guard
        )
        return fetched, True

    async def _ensure_browser(self) -> Browser | None:
        assert self._start_lock is not None
        async with self._start_lock:  # concurrent URLs wait for the one launch
            if self._browser is None and not self.browser_unavailable:
                browser = Browser(self.options)
                try:
                    await browser.start()
                    self._browser = browser
                    self.launches += 1
                except BrowserUnavailable as exc:
                    self.browser_unavailable = str(exc)
                    self._warn(
                        "no Chromium could be launched, archiving with plain HTTP (pages are not "
                        f"rendered: text that scripts add is missing) — tried {exc}. Install one with "
                        "`playwright install chromium` or your system's chromium package."
                    )
        return self._browser

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        self.sink(Notice(message=message, level="warning"))

    async def _failed(
        self, url: str, failure: FetchFailure, who: Attribution, kind: str = "web"
    ) -> SourceRecord:
        record = SourceRecord.failure(
            url,
            failure.kind,
            failure.message,
            final_url=failure.final_url,
            http_status=failure.status,
            content_type=failure.content_type,
            fallback=bool(self.browser_unavailable),
            **who.fields(),
        )
        record.kind = kind
        await self._in_registry(self.registry.record_failure, record)
        return record


def _key(url: str) -> str:
    try:
        return normalize_url(url)
    except ValueError:  # e.g. a bad port: keep it apart, its failure is recorded as is
        return url
