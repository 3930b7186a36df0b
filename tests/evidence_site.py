"""A small web site on 127.0.0.1 for the evidence tests: a PDF, and one news article that a second site
syndicates (the same article under another host name, with other navigation and a credit line).

The server answers every host name that resolves to it; the Host header picks the site: requests to
`localhost:PORT` see the syndicating site's chrome, requests to `127.0.0.1:PORT` the original's.
"""

from __future__ import annotations

import http.server
import threading

from tests.sources.site import minimal_pdf

PDF_LINES = (
    "National Offshore Wind Strategy",
    "The strategy targets 10 GW of offshore wind capacity by 2030.",
    "Installed capacity reached 4,800 MW at the end of 2023.",
)
ARTICLE = (
    "The grid operator said on Monday that offshore wind output rose by 12 percent in 2023, as three "
    "new parks came online along the northern coast and older turbines were repowered.",
    "Officials expect the expansion to continue through the decade, with auctions planned every "
    "spring and new transmission lines approved for the coastal regions that host most of the parks.",
    "Critics point to delays in port upgrades and to rising costs for steel and cables, which pushed "
    "back two projects that had been due to start construction last year.",
    "The operator publishes its detailed figures in an annual statistical report each summer.",
)
PUBLISHED = "2024-02-12"

_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta property="article:published_time" content="{published}"></head><body>
<header><nav>{nav}</nav></header><aside>{aside}</aside>
<article><h1>Offshore wind output rose 12 percent</h1>{paragraphs}</article>
<footer>{footer}</footer></body></html>
"""
_CHROME = {
    "original": {
        "title": "Offshore wind output rose 12 percent | Coastal Times",
        "nav": "Home | Energy | Climate | Markets | Opinion",
        "aside": "Most read: port strike ends; ferry timetable changes",
        "footer": "Coastal Times, all rights reserved",
        "published": PUBLISHED,
    },
    "copy": {
        "title": "Offshore wind output rose 12 percent - Energy Digest Network",
        "nav": "Start | News wire | Subscribe | Events | Jobs board | Contact",
        "aside": "Sponsored: compare electricity tariffs in your area today",
        "footer": "Energy Digest Network republishes wire stories with permission",
        "published": "2024-02-13",
    },
}


SYNDICATION = "This story first appeared in the Coastal Times and is republished here with permission."


def article_html(site: str) -> str:
    """The article page as `site` ("original" or "copy") serves it: the copy adds a credit line."""
    texts = [*ARTICLE, SYNDICATION] if site == "copy" else list(ARTICLE)
    paragraphs = "".join(f"<p>{text}</p>" for text in texts)
    return _PAGE.format(paragraphs=paragraphs, **_CHROME[site])


class EvidenceSite:
    """Serves /strategy.pdf and /news.html on 127.0.0.1 in a thread (a context manager)."""

    def __init__(self) -> None:
        pdf = minimal_pdf(PDF_LINES, "National Offshore Wind Strategy")

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/strategy.pdf":
                    self._send(pdf, "application/pdf")
                elif self.path == "/news.html":
                    site = "copy" if self.headers.get("Host", "").startswith("localhost") else "original"
                    self._send(article_html(site).encode(), "text/html; charset=utf-8")
                else:
                    self.send_error(404)

            def _send(self, body: bytes, content_type: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return None

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        """The URL of `path` under `host` (127.0.0.1: the original site; localhost: the copy)."""
        return f"http://{host}:{self.port}{path}"

    def __enter__(self) -> EvidenceSite:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
