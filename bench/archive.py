"""Archive local pages: how long one page takes, whether script-filled pages and PDFs come out right,
and pages per second with one shared browser against one browser launch per page.

    python bench/archive.py [--pages 50] [--concurrency 4] [--latency-pages 30]

1. One page at a time with a warm browser (an Archiver whose Chromium is up): a static article
   page, `--latency-pages` times (each a new URL): median and best seconds per archive, the part of
   it the page was waited for after "load" (settle.py), and its CPU. Then the pages of the test site
   (tests/sources/site.py) whose content is not in the HTML as served: a page that fetches a
   paragraph 0.1 s after load, a dashboard filled by two timers, and a PDF; each is timed and its
   archive checked for the text that only the rendering (or the PDF's text layer) gives.
2. Throughput: N small article pages from four loopback hosts (127.0.0.1-4, so the per-host limit
   of 2 does not hide the pool) archived into throw-away workspaces: one Archiver for all N pages
   at --concurrency; the same one page at a time; one Archiver (a Chromium launch) per page, as a
   naive tool would. Pages per second for each and the ratios.
Figures depend on the machine (and on what else runs on it); nothing asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import http.server
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deepresearch.core.config import Config
from deepresearch.core.workspace import Workspace
from deepresearch.sources.archive import Archiver
from deepresearch.sources.browser import Browser, BrowserOptions
from tests.sources.site import JS_TEXT, PDF_LINES, TICK_TEXT, TIMER_TEXT, XHR_TEXT, TestSite

# The pages are served on 127.0.0.x, which archiving refuses unless the person allows it.
LOCAL_PAGES = ["127.0.0.0/8"]


class _Pages(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        n = self.path.strip("/").split("/")[-1]
        if not n.isdigit():  # favicon.ico and the like
            self.send_error(404)
            return
        body = (
            f"<!doctype html><html><head><meta charset='utf-8'><title>Page {n}</title>"
            f'<meta name="date" content="2025-0{int(n) % 9 + 1}-01"></head><body><article>'
            f"<h1>Measurement {n}</h1><p>Station {n} recorded {int(n) * 7} units in the spring survey.</p>"
            "<p>The survey covers every region and is repeated each year by the same team.</p>"
            "</article></body></html>"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _timed(label: str, pages: int, run: Callable[[], int]) -> float:
    start = time.perf_counter()
    archived = run()
    seconds = time.perf_counter() - start
    rate = pages / seconds
    print(f"{label:44} {archived:3d}/{pages} archived in {seconds:6.2f} s = {rate:5.2f} pages/s")
    return rate


def _shared(urls: list[str], config: Config) -> int:
    with tempfile.TemporaryDirectory() as folder, Archiver(Workspace(Path(folder)), config) as archiver:
        records = archiver.archive_many(urls)
        if archiver.browser_unavailable:
            raise SystemExit(f"no Chromium could be launched: {archiver.browser_unavailable}")
    return sum(r.ok for r in records)


def _per_page(urls: list[str], config: Config) -> int:
    archived = 0
    with tempfile.TemporaryDirectory() as folder:
        workspace = Workspace(Path(folder))
        for url in urls:
            with Archiver(workspace, config) as archiver:
                archived += archiver.archive(url).ok
    return archived


def _latency(site: TestSite, pages: int) -> None:
    """One page at a time with a warm browser: static pages, then the script-filled ones and a PDF."""
    config = Config(allow_private_hosts=LOCAL_PAGES)
    with tempfile.TemporaryDirectory() as folder, Archiver(Workspace(Path(folder)), config) as archiver:
        archiver.archive(site.url("/page/0"))  # Chromium starts here, not in the figures below
        if archiver.browser_unavailable:
            raise SystemExit(f"no Chromium could be launched: {archiver.browser_unavailable}")
        walls, cpus = [], []
        for n in range(1, pages + 1):
            wall, cpu = time.perf_counter(), time.process_time()
            record = archiver.archive(site.url(f"/page/{n}"))
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            assert record.ok, record.message
        print(f"static page, one at a time, warm browser ({pages} pages):")
        print(
            f"  archive (load, settle, extract, store, register)  median {statistics.median(walls):.3f} s, "
            f"best {min(walls):.3f} s; CPU of deepresearch (not Chromium) {statistics.median(cpus):.3f} s"
        )
        print(
            f"  of which settling after load                      median {_settle_median(site, pages):.3f} s"
        )
        cases = (
            ("/js", "script + fetch() 0.1 s after load", (JS_TEXT, XHR_TEXT)),
            ("/timer", "dashboard filled by two timers", (TIMER_TEXT, TICK_TEXT)),
            ("/report.pdf", "PDF (text layer, page markers)", PDF_LINES),
        )
        for path, label, texts in cases:
            wall = time.perf_counter()
            record = archiver.archive(site.url(path))
            seconds = time.perf_counter() - wall
            text = (Path(folder) / record.archive).read_text(encoding="utf-8") if record.ok else ""
            right = "correct" if all(t in text for t in texts) else f"WRONG: missing text ({record.message})"
            print(f"  {label:48}  {seconds:.3f} s  {right}")


def _settle_median(site: TestSite, pages: int) -> float:
    """The settle wait alone, on the same static page (Browser.fetch reports it)."""

    async def run() -> list[float]:
        browser = Browser(BrowserOptions(pool_size=1))
        await browser.start()
        try:
            return [(await browser.fetch(site.url(f"/page/{n}"))).settled for n in range(pages)]
        finally:
            await browser.close()

    return statistics.median(asyncio.run(run()))


def main() -> None:
    """Run the measurements and print the figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--latency-pages", type=int, default=30)
    args = parser.parse_args()
    site = TestSite().start()
    try:
        _latency(site, args.latency_pages)
    finally:
        site.stop()
    print()
    servers = [http.server.ThreadingHTTPServer((f"127.0.0.{h}", 0), _Pages) for h in range(1, 5)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    bases = [f"http://{s.server_address[0]}:{s.server_address[1]}" for s in servers]
    urls = [f"{bases[n % len(bases)]}/page/{n}" for n in range(1, args.pages + 1)]
    config = Config(archive_concurrency=args.concurrency, allow_private_hosts=LOCAL_PAGES)
    serial = dataclasses.replace(config, archive_concurrency=1)
    print(f"{args.pages} local pages; Chromium via Playwright; settling after load included")
    label = f"one browser, {args.concurrency} pages at a time"
    shared = _timed(label, args.pages, lambda: _shared(urls, config))
    one_by_one = _timed("one browser, one page at a time", args.pages, lambda: _shared(urls, serial))
    launches = _timed("one browser launch per page", args.pages, lambda: _per_page(urls, serial))
    print(f"shared browser vs a launch per page: {shared / launches:.1f}x faster")
    print(f"page pool of {args.concurrency} vs one at a time: {shared / one_by_one:.1f}x faster")
    for server in servers:
        server.shutdown()


if __name__ == "__main__":
    main()
