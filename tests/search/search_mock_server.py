"""A local HTTP server that answers like each search provider's documented API, scriptable per test.

Routes: /<provider>/<documented path>, e.g. POST /serper/search, GET /brave/res/v1/web/search.
Each provider can be told to answer normally, with no results, 429, 500, 401, garbage, to hang
(never answer: the client times out), or to hold (answer only when the test releases it).
Requests that do not follow the provider's documented format get 400, so a passing test also
proves the request format.
"""

from __future__ import annotations

import html
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

PROVIDERS = ("serper", "tavily", "exa", "brave", "duckduckgo")
KEY_VARS = {
    "serper": "SERPER_API_KEY",
    "tavily": "TAVILY_API_KEY",
    "exa": "EXA_API_KEY",
    "brave": "BRAVE_API_KEY",
}
PATHS = {
    "serper": "/search",
    "tavily": "/search",
    "exa": "/search",
    "brave": "/res/v1/web/search",
    "duckduckgo": "/html/",
}
Hit = tuple[str, str, str]  # title, url, snippet


def default_hits(provider: str, n: int = 5) -> list[Hit]:
    """Distinct results per provider, so a test can tell who answered."""
    return [
        (f"{provider} result {i}", f"https://example.org/{provider}/{i}", f"about {i}")
        for i in range(1, n + 1)
    ]


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Script:
    mode: str = "ok"  # ok | empty | 429 | 500 | 401 | garbage | hang | hold
    hits: list[Hit] | None = None


@dataclass
class Seen:
    provider: str
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # names lower-cased
    body: bytes = field(repr=False)


class MockProviders:
    """The server plus its script, request log and counters (thread-safe)."""

    def __init__(self) -> None:
        self.scripts: dict[str, Script] = {}
        self.hits: Counter[str] = Counter()
        self.pending: Counter[str] = Counter()
        self.requests: list[Seen] = []
        self.release = threading.Event()
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.mock = self  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    def start(self) -> MockProviders:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def script(self, provider: str, mode: str = "ok", hits: list[Hit] | None = None) -> None:
        self.scripts[provider] = Script(mode, hits)

    def base_url(self, provider: str) -> str:
        return f"http://127.0.0.1:{self.port}/{provider}"

    def env(self, providers: tuple[str, ...] = PROVIDERS, timeout: float = 1.0) -> dict[str, str]:
        """API keys and base URLs for `providers`, every base URL pointing here."""
        env = {f"DEEPRESEARCH_{p.upper()}_BASE_URL": self.base_url(p) for p in PROVIDERS}
        env.update({KEY_VARS[p]: f"test-key-{p}" for p in providers if p in KEY_VARS})
        env["DEEPRESEARCH_SEARCH_TIMEOUT"] = str(timeout)
        return env

    def wait_pending(self, provider: str, count: int = 1, timeout: float = 5.0) -> int:
        """Requests of `provider` being answered, once `count` have arrived or `timeout` has passed
        (a client's thread may reach the server after a faster provider's answer, on a busy machine)."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                pending = self.pending[provider]
            if pending >= count or time.monotonic() > deadline:
                return pending
            time.sleep(0.01)

    def total_hits(self) -> int:
        with self.lock:
            return sum(self.hits.values())

    def handle(self, handler: _Handler) -> None:
        parts = urlsplit(handler.path)
        provider, _, rest = parts.path.lstrip("/").partition("/")
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in handler.headers.items()}
        seen = Seen(provider, handler.command, "/" + rest, parse_qs(parts.query), headers, body)
        with self.lock:
            self.hits[provider] += 1
            self.requests.append(seen)
            self.pending[provider] += 1
        try:
            self._answer(handler, seen)
        finally:
            with self.lock:
                self.pending[provider] -= 1

    def _answer(self, handler: _Handler, seen: Seen) -> None:
        if seen.provider not in PROVIDERS or seen.path != PATHS[seen.provider]:
            return _send(handler, 404, b"no such route", "text/plain")
        script = self.scripts.get(seen.provider, Script())
        if script.mode == "hang":
            self.stopping.wait(10)
            return None
        if script.mode == "hold":
            self.release.wait(10)
        if script.mode in ("429", "500", "401"):
            return _send(handler, int(script.mode), b'{"error": "scripted"}', "application/json")
        if script.mode == "garbage":
            return _send(handler, 200, b"\x00\xff<<not what you expected", "application/json")
        problem, query = _CHECKS[seen.provider](seen)
        if problem:
            status = 401 if "key" in problem else 400
            return _send(handler, status, json.dumps({"error": problem}).encode(), "application/json")
        hits = [] if script.mode == "empty" else (script.hits or default_hits(seen.provider))
        body, ctype = _RENDER[seen.provider](query, hits)
        return _send(handler, 200, body, ctype)


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.server.mock.handle(self)  # type: ignore[attr-defined]

    def do_POST(self) -> None:
        self.server.mock.handle(self)  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        return


def _send(handler: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _json_body(seen: Seen) -> dict[str, Any]:
    try:
        data = json.loads(seen.body)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


# --- request checks: (problem or "", query) --------------------------------------------------


def _check_serper(seen: Seen) -> tuple[str, str]:
    data = _json_body(seen)
    if seen.headers.get("x-api-key") != "test-key-serper":
        return "bad key", ""
    if seen.method != "POST" or not isinstance(data.get("q"), str) or not isinstance(data.get("num"), int):
        return "expected POST JSON {q, num}", ""
    return "", data["q"]


def _check_tavily(seen: Seen) -> tuple[str, str]:
    data = _json_body(seen)
    if seen.headers.get("authorization") != "Bearer test-key-tavily":
        return "bad key", ""
    if (
        seen.method != "POST"
        or not isinstance(data.get("query"), str)
        or not isinstance(data.get("max_results"), int)
    ):
        return "expected POST JSON {query, max_results}", ""
    return "", data["query"]


def _check_exa(seen: Seen) -> tuple[str, str]:
    data = _json_body(seen)
    if seen.headers.get("x-api-key") != "test-key-exa":
        return "bad key", ""
    if (
        seen.method != "POST"
        or not isinstance(data.get("query"), str)
        or not isinstance(data.get("numResults"), int)
    ):
        return "expected POST JSON {query, numResults}", ""
    return "", data["query"]


def _check_brave(seen: Seen) -> tuple[str, str]:
    if seen.headers.get("x-subscription-token") != "test-key-brave":
        return "bad key", ""
    if seen.method != "GET" or "q" not in seen.query or not seen.query.get("count", [""])[0].isdigit():
        return "expected GET ?q=&count=", ""
    return "", seen.query["q"][0]


def _check_duckduckgo(seen: Seen) -> tuple[str, str]:
    form = parse_qs(seen.body.decode()) if seen.method == "POST" else seen.query
    if "q" not in form:
        return "expected form field q", ""
    return "", form["q"][0]


_CHECKS: dict[str, Callable[[Seen], tuple[str, str]]] = {
    "serper": _check_serper,
    "tavily": _check_tavily,
    "exa": _check_exa,
    "brave": _check_brave,
    "duckduckgo": _check_duckduckgo,
}

# --- answers in each provider's documented format --------------------------------------------


def _as_json(data: dict[str, Any]) -> tuple[bytes, str]:
    return json.dumps(data).encode(), "application/json"


def _render_serper(query: str, hits: list[Hit]) -> tuple[bytes, str]:
    organic = [{"title": t, "link": u, "snippet": s, "position": i} for i, (t, u, s) in enumerate(hits, 1)]
    return _as_json({"searchParameters": {"q": query, "type": "search"}, "organic": organic, "credits": 1})


def _render_tavily(query: str, hits: list[Hit]) -> tuple[bytes, str]:
    results = [{"title": t, "url": u, "content": s, "score": 0.9, "raw_content": None} for t, u, s in hits]
    return _as_json({"query": query, "answer": None, "images": [], "results": results, "response_time": 0.4})


def _render_exa(query: str, hits: list[Hit]) -> tuple[bytes, str]:
    results = [
        {"id": u, "title": t, "url": u, "publishedDate": "2026-01-01", "author": None, "text": s}
        for t, u, s in hits
    ]
    return _as_json({"requestId": "req-1", "resolvedSearchType": "neural", "results": results})


def _render_brave(query: str, hits: list[Hit]) -> tuple[bytes, str]:
    results = [{"type": "search_result", "title": t, "url": u, "description": s} for t, u, s in hits]
    return _as_json(
        {"type": "search", "query": {"original": query}, "web": {"type": "search", "results": results}}
    )


def _render_duckduckgo(query: str, hits: list[Hit]) -> tuple[bytes, str]:
    ad = (
        '<div class="result results_links results_links_deep result--ad">'
        '<div class="links_main links_deep result__body"><h2 class="result__title">'
        '<a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;u3=x">'
        'Sponsored</a></h2><a class="result__snippet" href="#">Buy now</a></div></div>'
    )
    blocks = [ad]
    for title, url, snippet in hits:
        link = f"//duckduckgo.com/l/?uddg={quote(url, safe='')}&amp;rut=abc123"
        blocks.append(
            '<div class="result results_links results_links_deep web-result ">'
            '<div class="links_main links_deep result__body"><h2 class="result__title">'
            f'<a rel="nofollow" class="result__a" href="{link}">{html.escape(title)}</a></h2>'
            f'<div class="result__extras__url"><a class="result__url" href="{link}">'
            f"{html.escape(url)}</a></div>"
            f'<a class="result__snippet" href="{link}"><b>{html.escape(snippet)}</b></a>'
            '<div class="clear"></div></div></div>'
        )
    page = (
        f"<!DOCTYPE html><html><head><title>{html.escape(query)} at DuckDuckGo</title></head><body>"
        f'<div id="links" class="results">{"".join(blocks)}</div></body></html>'
    )
    return page.encode(), "text/html; charset=UTF-8"


_RENDER: dict[str, Callable[[str, list[Hit]], tuple[bytes, str]]] = {
    "serper": _render_serper,
    "tavily": _render_tavily,
    "exa": _render_exa,
    "brave": _render_brave,
    "duckduckgo": _render_duckduckgo,
}
