"""With no Chromium to launch, the archiver falls back to plain HTTP, says so, and still works."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.core.events import Notice, RecordingSink
from deepresearch.core.workspace import Workspace
from deepresearch.sources.archive import Archiver
from deepresearch.sources.record import FAILED
from tests.sources.conftest import SiteRun, archive_site, make_config
from tests.sources.site import ARTICLE_TEXT, CYRILLIC, JAPANESE, JS_TEXT, PDF_LINES, Request, TestSite


def no_browser(monkeypatch: pytest.MonkeyPatch, folder: Path) -> dict[str, str]:
    """Hide Playwright's own browsers and point chromium_path at nothing; returns config overrides."""
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(folder))
    return {"chromium_path": str(folder / "no-such-chromium")}


@pytest.fixture(scope="module")
def fallback_run(site: TestSite, tmp_path_factory: pytest.TempPathFactory) -> SiteRun:
    with pytest.MonkeyPatch.context() as monkeypatch:
        overrides = no_browser(monkeypatch, tmp_path_factory.mktemp("no-browsers"))
        return archive_site(site, tmp_path_factory.mktemp("fallback-run"), make_config(**overrides))


def test_fallback_is_announced(fallback_run: SiteRun) -> None:
    assert len(fallback_run.warnings) == 1
    warning = fallback_run.warnings[0]
    assert "no Chromium could be launched" in warning and "no-such-chromium" in warning
    assert "playwright install chromium" in warning


def test_pages_are_archived_over_plain_http(fallback_run: SiteRun) -> None:
    record = fallback_run.records["/article"]
    assert record.ok and record.fallback and "plain HTTP" in record.warning
    assert record.title == "Solar capacity grows" and record.published == "2024-03-05"
    text = (fallback_run.workspace.root / record.archive).read_text(encoding="utf-8")
    assert ARTICLE_TEXT in text


def test_script_text_is_missing_without_a_browser(fallback_run: SiteRun) -> None:
    record = fallback_run.records["/js"]
    assert JS_TEXT not in (fallback_run.workspace.root / record.archive).read_text(encoding="utf-8")


def test_documents_and_charsets_over_plain_http(fallback_run: SiteRun, site: TestSite) -> None:
    root = fallback_run.workspace.root
    assert PDF_LINES[1] in (root / fallback_run.records["/report.pdf"].archive).read_text(encoding="utf-8")
    assert CYRILLIC in (root / fallback_run.records["/cp1251"].archive).read_text(encoding="utf-8")
    assert JAPANESE in (root / fallback_run.records["/sjis"].archive).read_text(encoding="utf-8")
    assert fallback_run.records["/start"].final_url == site.url("/final")
    raw = (root / fallback_run.records["/cp1251"].html_path).read_bytes()
    assert raw == site.routes["/cp1251"](Request("/cp1251", "", ""))[2]  # the bytes as served


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/missing", "http_4xx"),
        ("/broken", "http_5xx"),
        ("/loop-a", "redirect_loop"),
        ("/slow", "timeout"),
        ("/binary", "non_text"),
        ("/login", "login_wall"),
        ("/captcha", "captcha"),
        ("/big", "too_large"),
    ],
)
def test_failures_over_plain_http(fallback_run: SiteRun, path: str, kind: str) -> None:
    record = fallback_run.records[path]
    assert record.status == FAILED and record.error == kind and record.fallback


def test_dns_failure_and_bad_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = make_config(**no_browser(monkeypatch, tmp_path / "none"))
    sink = RecordingSink()
    with Archiver(Workspace(tmp_path), config, sink=sink) as archiver:
        dns, bad = archiver.archive_many(["http://no-such-host.invalid/page", "ftp://example.org/file"])
    assert dns.error == "dns" and bad.error == "bad_url"
    notices = sink.of_type(Notice)
    assert len(notices) == 1 and isinstance(notices[0], Notice) and notices[0].level == "warning"
