"""The Archiver: fetch URLs (one browser for all), store them under assets/, register them.

    with Archiver(workspace, config) as archiver:
        records = archiver.archive_many(urls)

Pages load concurrently (`config.archive_concurrency`, at most `per_host` per host) on one event
loop driving Playwright's async API. A URL already in the registry is not fetched again. Every
failure becomes a failed record in the registry; nothing is raised out of `archive_many`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from datetime import date
from types import TracebackType
from urllib.parse import urlsplit

from deepresearch.core.attribution import BY_HAND, Attribution
from deepresearch.core.clock import utc_now
from deepresearch.core.config import Config
from deepresearch.core.events import EventSink, Notice, NullSink
from deepresearch.core.urls import normalize_url
from deepresearch.core.workspace import Workspace
from deepresearch.sources.browser import Browser, BrowserOptions, BrowserUnavailable
from deepresearch.sources.content import build_content
from deepresearch.sources.fetch import Fetched, FetchFailure, http_fetch
from deepresearch.sources.record import BAD_URL, INTERNAL, SourceRecord
from deepresearch.sources.registry import SourceRegistry
from deepresearch.sources.store import StoreContext, store_source

PER_HOST = 2


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
        attribution: Attribution = BY_HAND,
    ) -> None:
        self.workspace = workspace
        self.config = config
        self.registry = SourceRegistry(workspace)
        self.research_date = research_date or utc_now().date()
        self.sink: EventSink = sink or NullSink()
        self.per_host = per_host
        self.attribution = attribution  # recorded on every record and use (registry)
        self.options = BrowserOptions(
            chromium_path=config.chromium_path,
            profile=workspace.browser_profile,
            timeout=config.archive_timeout,
            max_bytes=config.archive_max_bytes,
            pool_size=config.archive_concurrency,
            screenshot=screenshot,
            print_pdf=print_pdf,
        )
        self.warnings: list[str] = []
        self.browser_unavailable = ""  # why the plain HTTP fallback is in use, once known
        self._loop: asyncio.AbstractEventLoop | None = None
        self._browser: Browser | None = None
        self._start_lock: asyncio.Lock | None = None
        self._slots: asyncio.Semaphore | None = None
        self._hosts: dict[str, asyncio.Semaphore] = {}

    def __enter__(self) -> Archiver:
        self._loop = asyncio.new_event_loop()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._loop is None:
            return
        if self._browser is not None:
            self._loop.run_until_complete(self._browser.close())
        self._loop.close()
        self._loop, self._browser = None, None

    def archive_many(self, urls: list[str]) -> list[SourceRecord]:
        """One record per URL, in order: archived (new or existing) or failed. Never raises for a URL."""
        if self._loop is None:
            raise RuntimeError("use Archiver as a context manager: with Archiver(...) as archiver")
        return self._loop.run_until_complete(self._archive_all(urls))

    def archive(self, url: str) -> SourceRecord:
        """Archive one URL (see archive_many)."""
        return self.archive_many([url])[0]

    async def _archive_all(self, urls: list[str]) -> list[SourceRecord]:
        self._slots = self._slots or asyncio.Semaphore(self.config.archive_concurrency)
        self._start_lock = self._start_lock or asyncio.Lock()
        unique = list(dict.fromkeys(urls))
        keys = {url: _key(url) for url in unique}
        jobs: dict[str, asyncio.Task[SourceRecord]] = {}
        for url in unique:  # the same page under two spellings is fetched once
            if keys[url] not in jobs:
                jobs[keys[url]] = asyncio.ensure_future(self._archive_one(url))
        await asyncio.gather(*jobs.values())
        results = {key: job.result() for key, job in jobs.items()}
        return [results[keys[url]] for url in urls]

    async def _archive_one(self, url: str) -> SourceRecord:
        try:
            existing = self.registry.lookup(url)
            if existing is not None:
                self.registry.record_use(existing, url, self.attribution)
                return existing
            async with self._limit(url):
                fetched, fallback = await self._fetch(url)
            fetched.url = url
            content = await asyncio.to_thread(build_content, fetched)  # CPU-bound: keep the loop free
        except FetchFailure as failure:
            return self._failed(url, failure)
        except Exception as exc:  # a bug must not cost the other URLs their archive: record it
            return self._failed(url, FetchFailure(INTERNAL, f"{url}: {type(exc).__name__}: {exc}"))
        warning = "archived with plain HTTP: no browser could be launched" if fallback else ""
        ctx = StoreContext(self.workspace, self.research_date, self.config.time_scope, fallback, warning)
        tag = self.attribution.fields()
        record, new = self.registry.register(
            url,
            fetched.final_url,
            content.content_sha256,
            lambda source_id: dataclasses.replace(store_source(ctx, source_id, url, fetched, content), **tag),
        )
        if not new:
            self.registry.record_use(record, url, self.attribution)
        return record

    @contextlib.asynccontextmanager
    async def _limit(self, url: str) -> AsyncIterator[None]:
        host = (urlsplit(url).hostname or "").lower()
        per_host = self._hosts.setdefault(host, asyncio.Semaphore(self.per_host))
        assert self._slots is not None
        async with per_host, self._slots:
            yield

    async def _fetch(self, url: str) -> tuple[Fetched, bool]:
        """(what was fetched, whether the plain HTTP fallback was used)."""
        if urlsplit(url).scheme not in ("http", "https"):
            raise FetchFailure(BAD_URL, f"not an http(s) URL: {url!r}")
        browser = await self._ensure_browser()
        if browser is not None:
            return await browser.fetch(url), False
        fetched = await asyncio.to_thread(
            http_fetch, url, self.config.archive_timeout, self.config.archive_max_bytes
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

    def _failed(self, url: str, failure: FetchFailure) -> SourceRecord:
        record = SourceRecord.failure(
            url,
            failure.kind,
            failure.message,
            final_url=failure.final_url,
            http_status=failure.status,
            content_type=failure.content_type,
            fallback=bool(self.browser_unavailable),
            **self.attribution.fields(),
        )
        self.registry.record_failure(record)
        return record


def _key(url: str) -> str:
    try:
        return normalize_url(url)
    except ValueError:  # e.g. a bad port: keep it apart, its failure is recorded as is
        return url
