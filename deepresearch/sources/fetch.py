"""Plain HTTP fetching with urllib: the fallback when no browser can be launched, and the way
non-HTML documents (PDFs, text) are downloaded. Redirects are followed by hand so loops and the
final URL are known, and every hop's host is checked against the archive's host policy (no
loopback, link-local, private or other non-public address: sources/netguard.py); bodies are read
in chunks against a size cap and an overall deadline.
"""

from __future__ import annotations

import http.client
import re
import socket
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import Message
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from deepresearch.sources.record import (
    BAD_URL,
    CONNECTION,
    DNS,
    HTTP_4XX,
    HTTP_5XX,
    REDIRECT_LOOP,
    TIMEOUT,
    TOO_LARGE,
)

if TYPE_CHECKING:
    from deepresearch.sources.netguard import HostPolicy

USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) deepresearch/0.1"
MAX_REDIRECTS = 20
HTML_TYPES = ("text/html", "application/xhtml+xml")
_CHUNK = 64 * 1024
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)


class FetchFailure(Exception):
    """A fetch that failed in a known way; `kind` is one of record.FAILURE_KINDS."""

    def __init__(
        self, kind: str, message: str, status: int | None = None, final_url: str = "", content_type: str = ""
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.final_url = final_url
        self.content_type = content_type


@dataclass
class Fetched:
    """What a fetch brought back, before it is classified and stored."""

    url: str
    final_url: str
    status: int
    content_type: str  # MIME type without parameters, lower case
    charset: str  # declared or detected; "" when unknown
    body: bytes  # as served; for browser-rendered HTML, the DOM after scripts ran
    rendered: bool = False
    title: str = ""
    screenshot: bytes | None = None
    page_pdf: bytes | None = None
    settled: float = 0.0  # seconds a rendered page was waited for after "load" (settle.py)


def status_failure(status: int, url: str, content_type: str = "") -> FetchFailure:
    """The failure for an HTTP error status."""
    kind = HTTP_5XX if status >= 500 else HTTP_4XX
    return FetchFailure(kind, f"HTTP {status} from {url}", status, url, content_type)


def split_content_type(header: str | None) -> tuple[str, str]:
    """('text/html', 'utf-8') from 'text/html; charset=UTF-8'."""
    message = Message()
    message["content-type"] = header or ""
    charset = message.get_param("charset")
    return message.get_content_type() if header else "", str(charset or "").strip().lower()


def sniff_charset(body: bytes) -> str:
    """The charset an HTML document declares in a <meta> tag within its first 4 KB, or ""."""
    match = _META_CHARSET.search(body[:4096])
    return match.group(1).decode("ascii").lower() if match else ""


def decode_body(body: bytes, charset: str) -> tuple[str, str]:
    """(text, charset used): the declared charset, else UTF-8, else Windows-1252 (never fails)."""
    for candidate in (charset, "utf-8"):
        if not candidate:
            continue
        try:
            return body.decode(candidate), candidate
        except (LookupError, UnicodeDecodeError):
            continue
    return body.decode("windows-1252", errors="replace"), "windows-1252"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # every 3xx comes back as an HTTPError: we follow it ourselves


_OPENER = urllib.request.build_opener(_NoRedirect())  # through a proxy from the environment


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to the addresses the host policy checked, not to what the name resolves to now."""

    addresses: Sequence[str] = ()

    def connect(self) -> None:
        self.sock = _connect_any(self.addresses, self.port, self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    addresses: Sequence[str] = ()
    tls: ssl.SSLContext = ssl.create_default_context()

    def connect(self) -> None:
        sock = _connect_any(self.addresses, self.port, self.timeout)
        self.sock = self.tls.wrap_socket(sock, server_hostname=self.host)  # the name, for TLS


def _connect_any(addresses: Sequence[str], port: int, timeout: float | None) -> socket.socket:
    failure: OSError = socket.gaierror(socket.EAI_NONAME, "Name or service not known")  # no address
    for address in addresses:
        try:
            return socket.create_connection((address, port), timeout)
        except OSError as exc:
            failure = exc
    raise failure


class _PinnedHandlers(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
    def __init__(self, addresses: Sequence[str]) -> None:
        urllib.request.HTTPHandler.__init__(self)
        urllib.request.HTTPSHandler.__init__(self)
        self.addresses = addresses

    def _make(
        self, kind: type[_PinnedHTTP] | type[_PinnedHTTPS]
    ) -> Callable[..., http.client.HTTPConnection]:
        def connection(host: str, **kwargs: Any) -> http.client.HTTPConnection:
            made = kind(host, **kwargs)
            made.addresses = self.addresses
            return made

        return connection

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._make(_PinnedHTTP), req)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._make(_PinnedHTTPS), req)


def _opener(url: str, addresses: Sequence[str]) -> urllib.request.OpenerDirector:
    """An opener that connects to `addresses` — unless a proxy from the environment carries `url`
    (the proxy then resolves the name: the check could only be of the name's answer here)."""
    host = urlsplit(url).hostname or ""
    if urlsplit(url).scheme in urllib.request.getproxies() and not urllib.request.proxy_bypass(host):
        return _OPENER
    return urllib.request.build_opener(_NoRedirect(), _PinnedHandlers(addresses))


def _network_failure(exc: BaseException, url: str) -> FetchFailure:
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, socket.gaierror):
        return FetchFailure(DNS, f"cannot resolve the host of {url} ({reason})", final_url=url)
    if isinstance(reason, TimeoutError):
        return FetchFailure(TIMEOUT, f"timed out fetching {url}", final_url=url)
    if isinstance(reason, ssl.SSLError):
        return FetchFailure(CONNECTION, f"TLS error from {url} ({reason})", final_url=url)
    return FetchFailure(CONNECTION, f"cannot connect to {url} ({reason})", final_url=url)


def _read_capped(response: http.client.HTTPResponse, url: str, deadline: float, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise FetchFailure(TIMEOUT, f"timed out reading {url}", final_url=url)
        chunk = response.read(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            raise FetchFailure(TOO_LARGE, f"{url} is larger than the {max_bytes} byte cap", final_url=url)
        chunks.append(chunk)


def http_fetch(url: str, timeout: float, max_bytes: int, guard: HostPolicy, cookie: str = "") -> Fetched:
    """GET `url` following redirects by hand, each hop's host checked by `guard`; raises
    FetchFailure for every known failure (`blocked` for a host that is not on the public web)."""
    deadline = time.monotonic() + timeout
    seen: set[str] = set()
    current = url
    while True:
        if urlsplit(current).scheme not in ("http", "https"):
            raise FetchFailure(BAD_URL, f"not an http(s) URL: {current}", final_url=current)
        if current in seen or len(seen) > MAX_REDIRECTS:
            raise FetchFailure(REDIRECT_LOOP, f"redirect loop at {current}", final_url=current)
        seen.add(current)
        addresses = guard.admitted(current)
        headers = {"User-Agent": USER_AGENT, "Accept": "text/html,application/pdf,*/*;q=0.8"}
        if cookie:
            headers["Cookie"] = cookie
        request = urllib.request.Request(current, headers=headers)
        remaining = max(deadline - time.monotonic(), 0.1)
        try:
            with _opener(current, addresses).open(request, timeout=remaining) as response:
                content_type, charset = split_content_type(response.headers.get("Content-Type"))
                length = response.headers.get("Content-Length")
                if length and length.isdigit() and int(length) > max_bytes:
                    message = f"{current} is {length} bytes, over the {max_bytes} byte cap"
                    raise FetchFailure(TOO_LARGE, message, final_url=current)
                body = _read_capped(response, current, deadline, max_bytes)
                return Fetched(url, response.geturl(), response.status, content_type, charset, body)
        except urllib.error.HTTPError as exc:
            location = exc.headers.get("Location") if 300 <= exc.code < 400 else None
            if not location:
                content_type = split_content_type(exc.headers.get("Content-Type"))[0]
                raise status_failure(exc.code, current, content_type) from exc
            current = urljoin(current, location)
        except (urllib.error.URLError, OSError) as exc:
            raise _network_failure(exc, current) from exc
