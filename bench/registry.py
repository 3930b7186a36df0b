"""The source registry as it grows, and the tool service while another process holds its lock.

    python bench/registry.py [--sizes 100,1000,10000] [--clients 8] [--hold 2.0] [--only registry|service]

1. Registry: a workspace's registry filled to each size (sources with ~250 words of main text and
   their copy sketches, written in bulk through the registry's own storage), then timed at that size:
   `lookup` of an archived URL and of an unknown one, `lookup_content`, and `register` of a new
   source with its copy check (the median of many calls each, in milliseconds). Flat means the
   cost does not grow with the number of sources.
2. Service: one tool service (real headless Chromium) and `--clients` clients archiving local pages —
   half ask for a page already archived every 0.1 s, half for a new page every 0.5 s without
   waiting for the answers (as an executor's parallel fetches) — while another process holds
   the registry's lock (as the orchestrator does through a durable task.md save) for `--hold`
   seconds. Printed: what completed while the lock was held (page loads served, archives of known
   pages, new archives) and how long requests waited. With registry work off the service's event
   loop, pages keep loading and known pages keep answering; new sources register when it is released.

Figures depend on the machine (and on what else it runs); nothing asserts.
"""

from __future__ import annotations

import argparse
import http.server
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deepresearch.core.budget import Budget
from deepresearch.core.config import Config
from deepresearch.core.events import NullSink
from deepresearch.core.workspace import Workspace
from deepresearch.service.client import ToolClient
from deepresearch.service.protocol import Caller
from deepresearch.service.server import ToolService
from deepresearch.sources.copies import CopyProbe, SketchTable, sketch
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry
from deepresearch.sources.registry_db import insert_record

WORDS = [
    "grid", "wind", "solar", "port", "cable", "steel", "turbine", "coast", "auction", "price", "demand",
    "supply", "line", "park", "operator", "region", "capacity", "output", "market", "policy", "report",
]  # fmt: skip


def text_of(n: int, words: int = 250) -> str:
    rng = random.Random(n)
    return " ".join(rng.choice(WORDS) + str(rng.randint(0, 999)) for _ in range(words))


def source(n: int, source_id: str = "") -> SourceRecord:
    url = f"https://site{n % 97}.example/article/{n}"
    return SourceRecord(
        url=url,
        id=source_id or f"S{n:02d}",
        final_url=url,
        content_sha256=f"sha-{n}",
        task=f"E{n % 50 + 1}",
        batch=1,
    )


def fill(registry: SourceRegistry, count: int) -> list[int]:
    """`count` more sources (numbered after the highest ID), in transactions of 1,000, as register
    writes them; their numbers."""
    first = registry.highest_id() + 1
    numbers = list(range(first, first + count))
    for low in range(0, count, 1000):
        with registry.db.writing() as db:
            sketches = SketchTable(db)
            for n in numbers[low : low + 1000]:
                insert_record(db, source(n))
                sketches.add(f"S{n:02d}", sketch(text_of(n)))
    return numbers


def median_ms(call: Callable[[int], object], count: int) -> float:
    times = []
    for i in range(count):
        started = time.perf_counter()
        call(i)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def measure_at(registry: SourceRegistry, numbers: list[int]) -> tuple[float, float, float, float]:
    """Median ms of a lookup hit, a miss, a lookup by content and a registration (with copy check)."""
    rng = random.Random(len(numbers))
    hit = median_ms(lambda i: registry.lookup(source(rng.choice(numbers)).url), 300)
    miss = median_ms(lambda i: registry.lookup(f"https://nowhere.example/{i}"), 300)
    content = median_ms(lambda i: registry.lookup_content(f"sha-{rng.choice(numbers)}"), 300)

    def register(i: int) -> None:
        n = 10**8 + len(numbers) * 100 + i
        registry.register(
            source(n).url, source(n).url, f"sha-{n}", lambda sid: source(n, sid), CopyProbe(text_of(n), 0.85)
        )

    return hit, miss, content, median_ms(register, 40)


def bench_registry(sizes: list[int]) -> None:
    print("registry: median milliseconds per call, at each number of sources")
    print(f"{'sources':>8} {'lookup hit':>11} {'lookup miss':>12} {'by content':>11} {'register':>9}")
    with tempfile.TemporaryDirectory() as folder:
        workspace = Workspace(Path(folder))
        workspace.ensure()
        registry = SourceRegistry(workspace)
        numbers: list[int] = []
        for size in sorted(sizes):
            numbers += fill(registry, size - registry.count())
            hit, miss, content, new = measure_at(registry, numbers)
            print(f"{registry.count():>8,} {hit:>11.3f} {miss:>12.3f} {content:>11.3f} {new:>9.2f}")
        registry.close()


class Pages(http.server.BaseHTTPRequestHandler):
    """Small article pages; each request's time is noted (the page loads the browser made)."""

    served: ClassVar[list[float]] = []

    def log_message(self, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        n = self.path.strip("/").split("/")[-1]
        if not n.isdigit():
            self.send_error(404)
            return
        Pages.served.append(time.monotonic())
        body = (
            f"<!doctype html><html><head><meta charset='utf-8'><title>Bulletin {n}</title></head><body>"
            f"<article><h1>Bulletin {n}</h1><p>{text_of(int(n), 120)}</p></article></body></html>"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@dataclass
class Request:
    known: bool
    started: float
    ended: float
    ok: bool


HOLDER = """
import sys, time
from pathlib import Path
from deepresearch.core.files import file_lock
with file_lock(Path(sys.argv[1])):
    print(time.monotonic(), flush=True)
    time.sleep(float(sys.argv[2]))
    print(time.monotonic(), flush=True)
"""


def ask(client: ToolClient, root: Path, url: str, known: bool) -> Request:
    started = time.monotonic()
    answer = client.archive(root, [url], False, False)
    ok = all(r.get("status") == "archived" for r in answer.get("records", []))
    return Request(known, started, time.monotonic(), ok)


def reader(client: ToolClient, root: Path, urls: list[str], until: float, pace: float) -> list[Request]:
    """Ask for a page already archived every `pace` seconds, one request after another, until `until`."""
    done: list[Request] = []
    while time.monotonic() < until:
        done.append(ask(client, root, urls[len(done) % len(urls)], True))
        time.sleep(max(pace - (done[-1].ended - done[-1].started), 0))
    return done


def writer(client: ToolClient, root: Path, urls: list[str], until: float, pace: float) -> list[Request]:
    """Ask for a new page every `pace` seconds (without waiting for earlier answers) until `until`,
    as several executors of one task would."""
    with ThreadPoolExecutor(32) as pool:
        jobs = []
        for url in urls:
            if time.monotonic() >= until:
                break
            jobs.append(pool.submit(ask, client, root, url, False))
            time.sleep(pace)
        return [job.result() for job in jobs]


def hold_lock(lock: Path, at: float, hold: float) -> tuple[float, float]:
    """From `at`, hold the registry's lock for `hold` seconds in another process: (taken, released)."""
    time.sleep(max(at - time.monotonic(), 0))
    proc = subprocess.run(
        [sys.executable, "-c", HOLDER, str(lock), str(hold)],
        capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], check=True,
    )  # fmt: skip
    taken, released = (float(line) for line in proc.stdout.split())
    return taken, released


def bench_service(clients: int, hold: float) -> None:
    servers = [http.server.ThreadingHTTPServer((f"127.0.0.{h}", 0), Pages) for h in range(1, 5)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    bases = [f"http://{s.server_address[0]}:{s.server_address[1]}" for s in servers]
    with tempfile.TemporaryDirectory() as folder:
        workspace = Workspace(Path(folder))
        workspace.ensure()
        config = Config(allow_private_hosts=["127.0.0.0/8"])  # the bench's own pages
        with ToolService(workspace, config, Budget(workspace, config), {}, NullSink()) as service:
            address = Path(service.address())
            known = [f"{bases[i % 4]}/page/{i}" for i in range(8)]
            ToolClient(address, Caller(task="E0")).archive(workspace.root, known, False, False)  # browser up
            start = time.monotonic()
            with ThreadPoolExecutor(clients + 1) as pool:
                lock_job = pool.submit(hold_lock, workspace.source_registry_lock, start + 1.5, hold)
                jobs = []
                until = start + 1.5 + hold + 2.0
                for c in range(clients):  # half ask for pages already archived, half for new ones
                    client = ToolClient(address, Caller(task=f"E{c + 1}", batch=1))
                    if c % 2 == 0:
                        jobs.append(pool.submit(reader, client, workspace.root, known, until, 0.1))
                        continue
                    new = [f"{bases[(c + i) % 4]}/page/{1000 * (c + 1) + i}" for i in range(200)]
                    jobs.append(pool.submit(writer, client, workspace.root, new, until, 0.5))
                held = lock_job.result()
                requests = [r for job in jobs for r in job.result()]
    for server in servers:
        server.shutdown()
    report(requests, held, clients, hold)


def report(requests: list[Request], held: tuple[float, float], clients: int, hold: float) -> None:
    taken, released = held
    inside = [r for r in requests if taken <= r.started and r.ended <= released]
    served = sum(1 for t in Pages.served if taken <= t <= released)
    waited = [r.ended - released for r in requests if not r.known and r.started < released < r.ended]
    known = [r.ended - r.started for r in requests if r.known]
    print(
        f"\nservice: {clients} clients (half asking for a known page every 0.1 s, half for a new page every"
    )
    print("0.5 s);", end=" ")
    print(f"another process holds the registry's lock for {released - taken:.2f} s")
    print(f"  archive requests                      {len(requests)} ({sum(r.ok for r in requests)} archived)")
    print("  asked and answered while it was held:")
    print(f"    archives of known pages             {sum(1 for r in inside if r.known)}")
    print(
        f"    new sources                         {sum(1 for r in inside if not r.known)} (they wait for the lock)"
    )
    print(f"  page loads served while it was held   {served}")
    print(f"  known page: median / longest answer   {statistics.median(known):.3f} s / {max(known):.3f} s")
    if waited:
        print(
            f"  new sources waiting at the release    {len(waited)}, all registered {max(waited):.2f} s after it"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--hold", type=float, default=2.0)
    parser.add_argument("--only", choices=("registry", "service"))
    args = parser.parse_args()
    if args.only != "service":
        bench_registry([int(s) for s in args.sizes.split(",")])
    if args.only != "registry":
        bench_service(args.clients, args.hold)


if __name__ == "__main__":
    main()
