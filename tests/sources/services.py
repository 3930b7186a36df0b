"""Local stand-ins for the services of the specialist routes, on 127.0.0.1: the arXiv API (Atom),
Crossref (JSON), Unpaywall (JSON), a DOI resolver with publisher landing pages (`citation_*` meta
tags), and YouTube's watch page, player API and caption track (what youtube-transcript-api reads).

Each answers in the real service's format with the fields the archiver reads. Requests are logged
(`hits`) so tests can see which services were asked.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from urllib.parse import parse_qs, unquote, urlsplit

ARXIV_ID = "2401.01234"
OPEN_DOI = "10.5555/open.2023.1"
CLOSED_DOI = "10.5555/closed.2022.7"
UNPAYWALL_DOI = "10.5555/oa.2024.3"
DIRECT_DOI = "10.5555/direct.2021.4"  # the resolver leads straight to the PDF
VIDEO_ID = "AbCdEfGhI_0"
EMAIL = "researcher@example.org"

# A quote on page 3 of each paper's PDF, found by tests to check the page it links to.
PAGE3 = "The calibrated model reduced the forecast error by 41 percent on the held-out winters."
PAPER_PAGES = [
    ["Seasonal Forecasting with Sparse Models", "Introduction to the problem of seasonal forecasts."],
    ["Related work on sparse regression is reviewed here.", "Earlier models ignored snow cover."],
    ["Results", PAGE3],
]
ABSTRACT = (
    "We study paywalled heat storage and find that sand batteries keep 90 percent of their heat for a week."
)
CAPTIONS = [
    (0.0, 2.5, "Welcome to the lecture on heat pumps."),
    (65.2, 3.0, "In our field trial the median seasonal COP was 3.1 in cold regions."),
    (123.7, 2.0, "Defrost cycles cost about eight percent of the output."),
]
AUTO_CAPTIONS = [(0.0, 2.0, "welcome to the lecture on heat pumps automatic")]


def pdf_pages(pages: list[list[str]], title: str) -> bytes:
    """A valid multi-page PDF whose text pypdf extracts page by page."""
    count = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    font = 3 + 2 * count
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {count} >>"]
    for i, lines in enumerate(pages):
        content = "BT /F1 12 Tf 72 720 Td 16 TL " + " ".join(f"({line}) Tj T*" for line in lines) + " ET"
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>"
        )
        objects.append(f"<< /Length {len(content)} >>\nstream\n{content}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    info = f"/Info << /Title ({title}) /CreationDate (D:20240110000000Z) >>"
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R {info} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


PAPER_PDF = pdf_pages(PAPER_PAGES, "Seasonal Forecasting with Sparse Models")
UNPAYWALL_PDF = pdf_pages(
    [["Open copy of the repository version."], ["Unpaywall found this repository copy."]], "OA"
)


def _atom(base: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom"
      xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
  <title type="html">ArXiv Query: id_list={ARXIV_ID}</title>
  <opensearch:totalResults>1</opensearch:totalResults>
  <entry>
    <id>http://arxiv.org/abs/{ARXIV_ID}v2</id>
    <updated>2024-02-01T10:00:00Z</updated>
    <published>2024-01-03T18:00:00Z</published>
    <title>Seasonal Forecasting with
      Sparse Models</title>
    <summary>  We forecast seasons with sparse models and show large gains.  </summary>
    <author><name>Ada Lovelace</name></author>
    <author><name>Alan Turing</name></author>
    <arxiv:comment>12 pages</arxiv:comment>
    <link href="http://arxiv.org/abs/{ARXIV_ID}v2" rel="alternate" type="text/html"/>
    <link title="pdf" href="{base}/pdf/{ARXIV_ID}v2" rel="related" type="application/pdf"/>
    <arxiv:primary_category term="stat.ML" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
</feed>"""


_ARXIV_EMPTY = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>ArXiv Query</title>
<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_9999.99999</id><title>Error</title>
<summary>incorrect id format for 9999.99999</summary></entry></feed>"""


def _crossref(doi: str, title: str, journal: str, kind: str, date: list[int], abstract: str = "") -> dict:
    message = {
        "DOI": doi,
        "type": kind,
        "title": [title],
        "container-title": [journal] if journal else [],
        "author": [{"given": "Grace", "family": "Hopper"}, {"given": "Katherine", "family": "Johnson"}],
        "published": {"date-parts": [date]},
        "URL": f"https://doi.org/{doi}",
    }
    if abstract:
        message["abstract"] = f"<jats:p>{abstract}</jats:p>"
    return {"status": "ok", "message-type": "work", "message": message}


CROSSREF = {
    OPEN_DOI: _crossref(OPEN_DOI, "Cold-climate heat pumps in the field", "Journal of Building Physics",
                        "journal-article", [2023, 5, 17]),
    CLOSED_DOI: _crossref(CLOSED_DOI, "Sand batteries for seasonal heat storage", "Energy Storage Letters",
                          "journal-article", [2022, 11, 2], ABSTRACT),
    UNPAYWALL_DOI: _crossref(UNPAYWALL_DOI, "Repository copies of open papers", "Open Science Review",
                             "journal-article", [2024, 1, 9]),
    DIRECT_DOI: _crossref(DIRECT_DOI, "Proceedings of a cold workshop", "", "proceedings-article", [2021, 9]),
}  # fmt: skip


def _landing(title: str, doi: str, pdf: str, journal: str) -> str:
    pdf_tag = f'<meta name="citation_pdf_url" content="{pdf}">' if pdf else ""
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{title} | Publisher</title>
<meta name="citation_title" content="{title}"><meta name="citation_author" content="Hopper, Grace">
<meta name="citation_journal_title" content="{journal}"><meta name="citation_doi" content="{doi}">
<meta name="citation_publication_date" content="2023/05/17">{pdf_tag}</head>
<body><article><h1>{title}</h1><p>Abstract: this landing page shows the abstract of the article.</p>
<p>Buy this article or sign in through your institution to read the full text.</p></article></body></html>"""


def _watch_page(video_id: str) -> str:
    return f"""<!doctype html><html><head><title>Heat pumps explained - YouTube</title>
<meta name="title" content="Heat pumps explained: field trial results">
<meta itemprop="uploadDate" content="2024-03-05T09:00:00-08:00">
<span itemprop="author" itemscope itemtype="http://schema.org/Person">
<link itemprop="url" href="http://www.youtube.com/@energyagency"><link itemprop="name" content="National Energy Agency"></span>
</head><body><script>var ytcfg = {{"INNERTUBE_API_KEY": "AIzaTestKey_123", "VIDEO_ID": "{video_id}"}};</script></body></html>"""


def _player(video_id: str) -> dict:
    track = "https://www.youtube.com/api/timedtext?v={v}&lang=en{kind}"
    return {
        "playabilityStatus": {"status": "OK"},
        "videoDetails": {"videoId": video_id, "title": "Heat pumps explained", "author": "National Energy Agency"},
        "captions": {
            "playerCaptionsTracklistRenderer": {
                "captionTracks": [
                    {"baseUrl": track.format(v=video_id, kind="&kind=asr"), "name": {"runs": [{"text": "English (auto)"}]},
                     "languageCode": "en", "kind": "asr", "isTranslatable": True},
                    {"baseUrl": track.format(v=video_id, kind=""), "name": {"runs": [{"text": "English"}]},
                     "languageCode": "en", "isTranslatable": True},
                ],
                "translationLanguages": [],
            }
        },
    }  # fmt: skip


def _timedtext(captions: list[tuple[float, float, str]]) -> str:
    texts = "".join(f'<text start="{s}" dur="{d}">{t}</text>' for s, d, t in captions)
    return f'<?xml version="1.0" encoding="utf-8" ?><transcript>{texts}</transcript>'


class Services:
    """The server; `base` is the one base URL every service is configured with in tests."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        self.agents: dict[str, str] = {}  # path → the User-Agent that asked for it
        services = self

        class _Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return None

            def do_GET(self) -> None:
                services.hits.append(self.path)
                services.agents[urlsplit(self.path).path] = self.headers.get("User-Agent", "")
                self._answer(*services.answer("GET", self.path))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                services.hits.append(self.path)
                self._answer(*services.answer("POST", self.path, body))

            def _answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> Services:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, method: str, raw: str, body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(raw)
        path, query = unquote(parts.path), parse_qs(parts.query)
        if path == "/api/query":
            ids = query.get("id_list", [""])[0]
            return _xml(_atom(self.base) if ids.startswith(ARXIV_ID) else _ARXIV_EMPTY)
        if path.startswith("/pdf/") or path == "/files/open.pdf":
            return 200, {"Content-Type": "application/pdf"}, PAPER_PDF
        if path == "/files/repository.pdf":
            return 200, {"Content-Type": "application/pdf"}, UNPAYWALL_PDF
        if path.startswith("/works/"):
            record = CROSSREF.get(path.removeprefix("/works/"))
            return _json(record) if record else (404, {"Content-Type": "text/plain"}, b"Resource not found.")
        if path.startswith("/v2/"):
            return self._unpaywall(path.removeprefix("/v2/"), query)
        if path == f"/{DIRECT_DOI}":
            return 302, {"Location": f"{self.base}/files/open.pdf"}, b""
        if path.startswith("/10."):  # the DOI resolver: to the publisher's landing page
            return 302, {"Location": f"{self.base}/landing/{path.removeprefix('/')}"}, b""
        if path.startswith("/landing/"):
            return self._landing(path.removeprefix("/landing/"))
        if path == "/paywall.pdf":
            login = b"<html><head><title>Sign in</title></head><body>Sign in to download</body></html>"
            return 200, {"Content-Type": "text/html"}, login
        return self._youtube(method, path, query, body)

    def _unpaywall(self, doi: str, query: dict[str, list[str]]) -> tuple[int, dict[str, str], bytes]:
        if query.get("email") != [EMAIL]:
            return 422, {"Content-Type": "application/json"}, b'{"error": true, "message": "email required"}'
        if doi == UNPAYWALL_DOI:
            location = {"url_for_pdf": f"{self.base}/files/repository.pdf", "host_type": "repository"}
            return _json(
                {"doi": doi, "is_oa": True, "best_oa_location": location, "oa_locations": [location]}
            )
        return _json({"doi": doi, "is_oa": False, "best_oa_location": None, "oa_locations": []})

    def _landing(self, doi: str) -> tuple[int, dict[str, str], bytes]:
        record = CROSSREF.get(doi)
        if record is None:
            return 404, {"Content-Type": "text/html"}, b"<html><body>Not found</body></html>"
        message = record["message"]
        pdf = {OPEN_DOI: f"{self.base}/files/open.pdf", CLOSED_DOI: f"{self.base}/paywall.pdf"}.get(doi, "")
        page = _landing(message["title"][0], doi, pdf, message["container-title"][0])
        return 200, {"Content-Type": "text/html; charset=utf-8"}, page.encode()

    def _youtube(
        self, method: str, path: str, query: dict[str, list[str]], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        if path == "/watch" and query.get("v") == [VIDEO_ID]:
            return 200, {"Content-Type": "text/html; charset=utf-8"}, _watch_page(VIDEO_ID).encode()
        if path == "/youtubei/v1/player" and method == "POST" and query.get("key") == ["AIzaTestKey_123"]:
            video = json.loads(body or b"{}").get("videoId")
            if video == VIDEO_ID:
                return _json(_player(video))
            return _json({"playabilityStatus": {"status": "ERROR", "reason": "This video is unavailable"}})
        if path == "/api/timedtext" and query.get("v") == [VIDEO_ID]:
            captions = AUTO_CAPTIONS if query.get("kind") == ["asr"] else CAPTIONS
            return _xml(_timedtext(captions))
        if path == "/watch":
            return 200, {"Content-Type": "text/html"}, _watch_page(query.get("v", [""])[0]).encode()
        return 404, {"Content-Type": "text/plain"}, b"not found"


def _json(data: object) -> tuple[int, dict[str, str], bytes]:
    return 200, {"Content-Type": "application/json"}, json.dumps(data).encode()


def _xml(text: str) -> tuple[int, dict[str, str], bytes]:
    return 200, {"Content-Type": "application/atom+xml; charset=utf-8"}, text.encode()
