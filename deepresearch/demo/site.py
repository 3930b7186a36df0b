"""The demonstration's web site, served on 127.0.0.1 for one `deepresearch demo` run: its bundled
pages (`site/*.html`) and a search endpoint that answers like DuckDuckGo's HTML page, ranking the
pages by the query's words, so the run's real search and archive code reach something offline.
"""

from __future__ import annotations

import html
import re
import threading
from dataclasses import dataclass
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qs

SEARCH_PATH = "/html/"  # DuckDuckGo's HTML endpoint (search/providers/duckduckgo.py)
MAX_BODY = 10_000
_TAG = re.compile(r"<[^>]+>")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Page:
    """One bundled page: its name (the URL is /<name>.html), title, readable paragraphs and bytes."""

    name: str
    title: str
    paragraphs: tuple[str, ...]
    body: bytes

    def score(self, words: set[str]) -> int:
        """How well the page matches a query's words: each in the title counts thrice."""
        title = _WORD.findall(self.title.lower())
        text = _WORD.findall(" ".join(self.paragraphs).lower())
        return sum(3 * title.count(w) + text.count(w) for w in words)

    def snippet(self, words: set[str]) -> str:
        """The paragraph holding most of the query's words (the first of equals)."""
        if not self.paragraphs:
            return ""
        return max(self.paragraphs, key=lambda p: len(words & set(_WORD.findall(p.lower()))))


def _text(fragment: str) -> str:
    return html.unescape(" ".join(_TAG.sub(" ", fragment).split()))


@cache
def pages() -> tuple[Page, ...]:
    """Every page bundled under site/, in name order."""
    found = []
    folder = resources.files("deepresearch.demo").joinpath("site")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".html"):
            continue
        body = entry.read_bytes()
        source = _COMMENT.sub("", body.decode("utf-8"))
        title = re.search(r"<title>(.*?)</title>", source, re.S)
        paragraphs = tuple(_text(p) for p in re.findall(r"<p[^>]*>(.*?)</p>", source, re.S))
        found.append(
            Page(entry.name.removesuffix(".html"), _text(title.group(1)) if title else "", paragraphs, body)
        )
    return tuple(found)


def search(query: str) -> list[Page]:
    """The pages matching `query`, best first (ties in name order)."""
    words = set(_WORD.findall(query.lower()))
    scored = [(page.score(words), n, page) for n, page in enumerate(pages())]
    return [page for score, _, page in sorted(scored, key=lambda s: (-s[0], s[1])) if score > 0]


def results_page(base_url: str, query: str) -> bytes:
    """The search results as DuckDuckGo's HTML page marks them up (result__a, result__snippet)."""
    words = set(_WORD.findall(query.lower()))
    blocks = [
        f'<div class="result results_links web-result"><h2 class="result__title">'
        f'<a class="result__a" href="{base_url}/{page.name}.html">{html.escape(page.title)}</a></h2>'
        f'<a class="result__snippet">{html.escape(page.snippet(words))}</a></div>'
        for page in search(query)
    ]
    title = html.escape(query)
    head = f'<meta charset="utf-8"><title>{title}</title>'
    return f"<!doctype html><html><head>{head}</head><body>{''.join(blocks)}</body></html>".encode()


def index_page(base_url: str) -> bytes:
    """A page listing the bundled pages (what a person opening the site sees)."""
    items = "".join(
        f'<li><a href="{base_url}/{p.name}.html">{html.escape(p.title)}</a></li>' for p in pages()
    )
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>deepresearch demo site</title></head><body>'
        "<h1>Pages bundled with deepresearch for its demonstration</h1>"
        f"<p>Norbridge is a fictional city; every figure is invented.</p><ul>{items}</ul></body></html>"
    ).encode()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        name = self.path.split("?", 1)[0].strip("/")
        if name in ("", "index.html"):
            return self._send(200, index_page(self.server.base_url))
        page = next((p for p in pages() if f"{p.name}.html" == name), None)
        if page is None:
            return self._send(404, b"<!doctype html><title>Not found</title><p>No such page.</p>")
        return self._send(200, page.body)

    def do_POST(self) -> None:
        if self.path.split("?", 1)[0] != SEARCH_PATH:
            return self._send(404, b"<!doctype html><title>Not found</title><p>No such page.</p>")
        length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY)
        form = parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
        query = (form.get("q") or [""])[0]
        return self._send(200, results_page(self.server.base_url, query))

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return None  # the run's own logs say what was searched and archived


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class DemoSite:
    """The site, served in a thread while the `with` block runs. `port` 0 takes any free port; a
    port that is taken falls back to any free one."""

    def __init__(self, port: int = 0) -> None:
        try:
            self.server = _Server(("127.0.0.1", port), _Handler)
        except OSError:
            self.server = _Server(("127.0.0.1", 0), _Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.1,), daemon=True)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def __enter__(self) -> DemoSite:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
