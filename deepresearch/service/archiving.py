"""One Archiver for the whole run, driven on an event loop of its own thread; its browser starts
with the first archive, or before it when the run's executors are about to start (`warm`): a run,
or a test, that archives nothing launches no Chromium.

Every archive request of every executor (and the orchestrator's own archiving of cited URLs) goes
to the same Archiver, so the run has one Chromium with one pool of pages, one global concurrency
limit and one per-host limit. Requests arrive on the service's connection threads and wait for
their coroutine on this loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from datetime import date, datetime

from deepresearch.core.attribution import BY_HAND, Attribution
from deepresearch.core.config import Config
from deepresearch.core.events import EventSink
from deepresearch.core.workspace import Workspace
from deepresearch.sources.archive import Archiver
from deepresearch.sources.record import SourceRecord

CLOSE_TIMEOUT = 30.0


class SharedArchiver:
    """An Archiver on a private event loop; thread-safe `archive`."""

    def __init__(
        self,
        workspace: Workspace,
        config: Config,
        sink: EventSink,
        research_date: date | None = None,
        renew_before: datetime | None = None,
    ) -> None:
        # Never local files: the service runs outside the agents' sandbox with the person's rights,
        # so `archive file:///home/...` from an agent (perhaps told to by a web page) is refused.
        self.archiver = Archiver(
            workspace, config, sink=sink, research_date=research_date, local_files=False,
            renew_before=renew_before,
        )  # fmt: skip
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tool-archiver", daemon=True)
        self._thread.start()
        self._warming: concurrent.futures.Future[None] | None = None

    def warm(self) -> None:
        """Launch the browser in the background now (once), so the first page need not wait for it;
        pages asked for meanwhile wait for this one launch."""
        if self._warming is None:
            self._warming = asyncio.run_coroutine_threadsafe(self.archiver.ready(), self._loop)

    @property
    def launches(self) -> int:
        """Chromium launches so far (one for the run, unless none could start)."""
        return self.archiver.launches

    def archive(
        self,
        urls: list[str],
        screenshot: bool = False,
        print_pdf: bool = False,
        attribution: Attribution = BY_HAND,
    ) -> tuple[list[SourceRecord], list[str]]:
        """(one record per URL in order, the archiver's warnings so far); blocks until done. The
        records (and the registry's uses) carry `attribution`: the task and batch that asked."""
        job = self.archiver.archive_async(urls, screenshot, print_pdf, attribution)
        records = asyncio.run_coroutine_threadsafe(job, self._loop).result()
        return records, list(self.archiver.warnings)

    def close(self) -> None:
        """Close the browser, stop the loop and its thread."""
        if not self._thread.is_alive():
            return
        try:
            if self._warming is not None:
                with contextlib.suppress(Exception):  # a launch that failed is already recorded
                    self._warming.result(CLOSE_TIMEOUT)
            asyncio.run_coroutine_threadsafe(self.archiver.aclose(), self._loop).result(CLOSE_TIMEOUT)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(CLOSE_TIMEOUT)
            if not self._thread.is_alive():
                self._loop.close()
