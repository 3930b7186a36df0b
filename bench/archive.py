"""Archive N local pages with one shared browser and with one browser launch per page.

    python bench/archive.py [--pages 50] [--concurrency 4]

Serves N small article pages from four loopback hosts (127.0.0.1-4, so the per-host limit of 2
does not hide the pool) and archives them into throw-away workspaces:
1. one Archiver (one Chromium, a pool of pages) for all N pages, at --concurrency;
2. the same, one page at a time (concurrency 1);
3. one Archiver per page (a Chromium launch per page), as a naive tool would.
Prints pages per second for each and the ratios. Figures depend on the machine; nothing asserts.
"""

from __future__ import annotations

import argparse
import dataclasses
import http.server
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


def main() -> None:
    """Run the three measurements and print the figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    servers = [http.server.ThreadingHTTPServer((f"127.0.0.{h}", 0), _Pages) for h in range(1, 5)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    bases = [f"http://{s.server_address[0]}:{s.server_address[1]}" for s in servers]
    urls = [f"{bases[n % len(bases)]}/page/{n}" for n in range(1, args.pages + 1)]
    config = Config(archive_concurrency=args.concurrency)
    serial = dataclasses.replace(config, archive_concurrency=1)
    print(f"{args.pages} local pages; Chromium via Playwright; settle wait for network idle included")
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
