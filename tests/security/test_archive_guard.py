"""The tool service's archiving reaches the web, not the machine or the intranet: the cloud metadata
address, a local port, a private address and a page that redirects to 127.0.0.1 are refused — with
Chromium (every request of the page load and every redirect) and over plain HTTP — and recorded
with the reason; `allow_private_hosts` lets through what a person names."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from deepresearch.core.config import Config
from deepresearch.core.workspace import Workspace
from deepresearch.sources.archive import Archiver
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry
from tests.helpers import skip_without_browser

PAGE = b"""<!doctype html><html><head><title>Internal dashboard</title></head><body><article>
<h1>Internal dashboard</h1><p>This page is served on a local port that only the machine itself can
reach. It lists secrets that must never leave the machine, such as the admin password.</p>
<p>Nothing here is meant for the web, and an archive of it would carry it into the report.</p>
<img src="/pixel.png"></article></body></html>"""


class Local:
    """A server on 127.0.0.1 that records every request: pages, a redirect to another port."""

    def __init__(self, redirect_to: str = "", embed: str = "") -> None:
        self.hits: list[str] = []
        local = self
        page = PAGE.replace(
            b"</article>", f'<img src="{embed}"><iframe src="{embed}"></iframe></article>'.encode()
        )

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                local.hits.append(self.path)
                if self.path.startswith("/redirect") and redirect_to:
                    self.send_response(302)
                    self.send_header("Location", redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def secret() -> Iterator[Local]:
    server = Local()
    yield server
    server.close()


@pytest.fixture
def redirector(secret: Local) -> Iterator[Local]:
    """A page on `localhost` (allowed by name in these tests) that redirects to the secret port."""
    server = Local(redirect_to=f"http://127.0.0.1:{secret.port}/secret")
    yield server
    server.close()


def archive(tmp_path: Path, urls: list[str], browser: bool, **settings: object) -> list[SourceRecord]:
    workspace = Workspace(tmp_path / "ws")
    workspace.ensure()
    config = Config(archive_timeout=5.0)
    if not browser:
        config.chromium_path = str(tmp_path / "no-chromium-here")
    for key, value in settings.items():
        setattr(config, key, value)
    with Archiver(workspace, config, environ={}) as archiver:
        if not browser:
            archiver.browser_unavailable = "no browser in this test"
        records = archiver.archive_many(urls)
        if browser and archiver.browser_unavailable:
            skip_without_browser(archiver.browser_unavailable)
    failed = {r.url: r for r in SourceRegistry(workspace).records() if r.status == "failed"}
    for record in records:  # the registry keeps each refusal with its reason
        if record.status == "failed":
            assert failed[record.url].message == record.message
    return records


@pytest.mark.parametrize("browser", [True, False], ids=["chromium", "plain-http"])
def test_local_private_and_metadata_addresses_are_refused_with_a_reason(
    tmp_path: Path, secret: Local, browser: bool
) -> None:
    urls = [
        "http://169.254.169.254/latest/meta-data/",
        f"http://127.0.0.1:{secret.port}/admin",
        "http://10.255.255.1/internal",
        f"http://[::1]:{secret.port}/admin",
    ]
    records = archive(tmp_path, urls, browser)
    for url, record in zip(urls, records, strict=True):
        assert record.status == "failed" and record.error == "blocked", (url, record.error, record.message)
        assert "allow_private_hosts" in record.message
    assert "link-local" in records[0].message and "loopback" in records[1].message
    assert "private" in records[2].message
    assert secret.hits == []


@pytest.mark.parametrize("browser", [True, False], ids=["chromium", "plain-http"])
def test_a_page_that_redirects_to_a_local_port_is_refused(
    tmp_path: Path, secret: Local, redirector: Local, browser: bool
) -> None:
    url = f"http://localhost:{redirector.port}/redirect"
    [record] = archive(tmp_path, [url], browser, allow_private_hosts=["localhost"])
    assert record.status == "failed" and record.error == "blocked", (record.error, record.message)
    assert f"127.0.0.1:{secret.port}" in record.message or "127.0.0.1" in record.message
    assert redirector.hits == ["/redirect"] and secret.hits == []


@pytest.mark.parametrize("browser", [True, False], ids=["chromium", "plain-http"])
def test_allow_private_hosts_lets_a_named_host_or_network_through(
    tmp_path: Path, secret: Local, redirector: Local, browser: bool
) -> None:
    urls = [f"http://127.0.0.1:{secret.port}/admin", f"http://localhost:{redirector.port}/redirect"]
    records = archive(tmp_path, urls, browser, allow_private_hosts=["127.0.0.0/8", "localhost"])
    assert [r.status for r in records] == ["archived", "archived"], [r.message for r in records]
    assert "Internal dashboard" in records[0].title


def test_a_public_pages_resources_on_a_local_port_are_not_fetched(tmp_path: Path, secret: Local) -> None:
    embedding = Local(embed=f"http://127.0.0.1:{secret.port}/pixel.png")
    try:
        [record] = archive(
            tmp_path, [f"http://localhost:{embedding.port}/page"], True, allow_private_hosts=["localhost"]
        )
    finally:
        embedding.close()
    assert record.status == "archived", record.message  # the page itself is fine
    assert secret.hits == []  # its image and frame on 127.0.0.1 were refused


@pytest.mark.parametrize("browser", [True, False], ids=["chromium", "plain-http"])
def test_a_host_that_does_not_resolve_is_still_a_dns_failure(tmp_path: Path, browser: bool) -> None:
    [record] = archive(tmp_path, ["http://no-such-host.invalid/page"], browser)
    assert (record.status, record.error) == ("failed", "dns"), record.message
