"""The archiver with real headless Chromium against the local test site (one browser for all)."""

from __future__ import annotations

import hashlib

import pytest

from deepresearch.sources.record import FAILED
from deepresearch.sources.registry import SourceRegistry
from tests.helpers import skip_without_browser
from tests.sources.conftest import SiteRun
from tests.sources.site import (
    ARTICLE_TEXT,
    CYRILLIC,
    INJECTION,
    JAPANESE,
    JS_TEXT,
    PDF_LINES,
    RESTLESS_TEXT,
    TICK_TEXT,
    TIMER_TEXT,
    XHR_TEXT,
    TestSite,
)

pytestmark = pytest.mark.browser


def _text(run: SiteRun, path: str) -> str:
    return (run.workspace.root / run.records[path].archive).read_text(encoding="utf-8")


def test_article_metadata_and_files(browser_run: SiteRun, site: TestSite) -> None:
    record = browser_run.records["/article"]
    assert record.ok and not record.fallback
    assert record.title == "Solar capacity grows"
    assert record.published == "2024-03-05"
    assert record.http_status == 200 and record.content_type == "text/html"
    assert record.final_url == site.url("/article")
    assert record.archive.startswith("assets/web/") and record.archive.endswith("-127-0-0-1.md")
    markdown = (browser_run.workspace.root / record.archive).read_bytes()
    assert hashlib.sha256(markdown).hexdigest() == record.sha256
    text = markdown.decode("utf-8")
    assert text.startswith("# Solar capacity grows\n")
    assert f"- URL: {site.url('/article')}" in text and "- Published: 2024-03-05" in text
    assert ARTICLE_TEXT in text and "Home | World" not in text  # main text only, no navigation
    html = (browser_run.workspace.root / record.html_path).read_text(encoding="utf-8")
    assert "application/ld+json" in html
    assert record.authority is not None and record.recency is not None
    assert record.weight == round(0.6 * record.authority + 0.4 * record.recency, 3)


def test_text_written_by_javascript_is_archived(browser_run: SiteRun) -> None:
    text = _text(browser_run, "/js")
    assert JS_TEXT in text  # only a browser that ran the page's script has this
    assert XHR_TEXT in text  # arrived by fetch() after load: the archiver waits for the network


def test_a_page_filled_by_timers_is_archived_with_its_values(browser_run: SiteRun) -> None:
    text = _text(browser_run, "/timer")
    assert TIMER_TEXT in text and TICK_TEXT in text  # no request after load: the timers were waited for
    assert "Loading" not in text


def test_a_page_that_never_rests_is_taken_as_it_is(browser_run: SiteRun) -> None:
    assert RESTLESS_TEXT in _text(browser_run, "/restless")  # archived after the settle limit, not hung


def test_settle_follows_what_the_page_does(site: TestSite) -> None:
    """A static page settles soon after load; a page busy for ever only at the limit."""
    import asyncio

    from deepresearch.sources.browser import Browser, BrowserOptions, BrowserUnavailable
    from deepresearch.sources.fetch import Fetched
    from deepresearch.sources.settle import MAX_SETTLE_SECONDS

    async def fetched() -> dict[str, Fetched]:
        browser = Browser(BrowserOptions(pool_size=1))
        try:
            await browser.start()
        except BrowserUnavailable as exc:
            skip_without_browser(str(exc))
        try:
            return {path: await browser.fetch(site.url(path)) for path in ("/article", "/restless", "/timer")}
        finally:
            await browser.close()

    pages = asyncio.run(fetched())
    settled = {path: page.settled for path, page in pages.items()}
    # Not the limit: the static page was taken at rest, long before it (0.06 s here when quiet, 0.5 s
    # seen on a fresh clone beside the integration lanes), where the restless page waits for all of it.
    assert settled["/article"] < MAX_SETTLE_SECONDS / 2
    # The timers (set at 0.3 s and 0.4 s from the script's run, before "load") were waited for: their
    # text is in the page taken. Not a time: under load "load" comes late, and 0.26 s was seen after it.
    timer = pages["/timer"].body.decode()
    assert settled["/timer"] > 0 and TIMER_TEXT in timer and TICK_TEXT in timer and "Loading" not in timer
    assert settled["/restless"] >= MAX_SETTLE_SECONDS


def test_pdf_saved_with_its_text(browser_run: SiteRun) -> None:
    record = browser_run.records["/report.pdf"]
    assert record.ok and record.content_type == "application/pdf"
    assert record.pdf_path.startswith("assets/pdf/") and record.archive.startswith("assets/pdf/")
    data = (browser_run.workspace.root / record.pdf_path).read_bytes()
    assert data.startswith(b"%PDF-") and hashlib.sha256(data).hexdigest() == record.content_sha256
    # The one hash rule: the recorded SHA-256 is of the file the Archive column names (the .md).
    archived = (browser_run.workspace.root / record.archive).read_bytes()
    assert record.archive.endswith(".md") and hashlib.sha256(archived).hexdigest() == record.sha256
    assert record.title == "Wind Power Annual Report" and record.published == "2023-01-15"
    assert PDF_LINES[1] in _text(browser_run, "/report.pdf")


def test_pdf_recognised_by_magic_bytes_when_served_as_a_download(browser_run: SiteRun) -> None:
    record = browser_run.records["/download"]
    assert record.ok and record.pdf_path.endswith(".pdf")
    assert "Mislabelled PDF body text." in _text(browser_run, "/download")


def test_redirect_chain_records_the_final_url(browser_run: SiteRun, site: TestSite) -> None:
    record = browser_run.records["/start"]
    assert record.ok and record.url == site.url("/start") and record.final_url == site.url("/final")
    assert f"- Requested URL: {site.url('/start')}" in _text(browser_run, "/start")


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/missing", "http_4xx"),
        ("/broken", "http_5xx"),
        ("/loop-a", "redirect_loop"),
        ("/slow", "timeout"),
        ("/binary", "non_text"),
        ("/image.png", "non_text"),
        ("/login", "login_wall"),
        ("/members", "login_wall"),
        ("/captcha", "captcha"),
        ("/big", "too_large"),
    ],
)
def test_failures_are_recorded_with_their_kind(browser_run: SiteRun, path: str, kind: str) -> None:
    record = browser_run.records[path]
    assert record.status == FAILED and record.error == kind and record.id == ""
    assert record.message
    logged = [r for r in SourceRegistry(browser_run.workspace).records() if r.url.endswith(path)]
    assert [r.error for r in logged] == [kind]


def test_http_status_of_a_failure_is_kept(browser_run: SiteRun) -> None:
    assert browser_run.records["/missing"].http_status == 404
    assert browser_run.records["/broken"].http_status == 500


def test_non_utf8_pages_are_decoded(browser_run: SiteRun) -> None:
    assert CYRILLIC in _text(browser_run, "/cp1251")  # charset in the HTTP header
    assert JAPANESE in _text(browser_run, "/sjis")  # charset only in <meta>
    record = browser_run.records["/cp1251"]
    html = (browser_run.workspace.root / record.html_path).read_bytes()
    assert CYRILLIC.encode("windows-1251") in html  # stored in its own charset, meta tag still true


def test_instructions_in_a_page_are_stored_verbatim(browser_run: SiteRun) -> None:
    record = browser_run.records["/injection"]
    assert record.ok
    visible = INJECTION.split(" <!--")[0]
    assert visible in _text(browser_run, "/injection")
    html = (browser_run.workspace.root / record.html_path).read_text(encoding="utf-8")
    assert INJECTION in html  # including the HTML comment aimed at agents


def test_same_page_twice_keeps_one_id(browser_run: SiteRun) -> None:
    first = browser_run.records["/article"]
    assert browser_run.records["/article?utm_source=newsletter#top"].id == first.id  # URL variant
    assert browser_run.records["/mirror"].id == first.id  # another URL, same content
    ids = [r.id for r in SourceRegistry(browser_run.workspace).archived()]
    assert len(ids) == len(set(ids))
    assert SourceRegistry(browser_run.workspace).lookup(browser_run.records["/mirror"].url) == first


def test_every_archived_source_has_a_distinct_id_and_files(browser_run: SiteRun) -> None:
    archived = SourceRegistry(browser_run.workspace).archived()
    # article, js, 2 PDFs, text, redirect target, 2 charsets, injection, timer, restless
    assert len(archived) == 11
    for record in archived:
        assert (browser_run.workspace.root / record.archive).is_file()
        assert record.archive.split("/")[-1].startswith(record.id + "-")
