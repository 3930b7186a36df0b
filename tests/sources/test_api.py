"""The orchestrator's side: archive what is missing, check quotes, map records to task.md rows."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from deepresearch.core.workspace import Workspace
from deepresearch.sources.api import archive_missing, record_to_source, verify_quote_for
from deepresearch.sources.archive import Archiver
from deepresearch.sources.browser import ensure_profile
from deepresearch.state.model import Source
from tests.helpers import skip_without_browser
from tests.sources.conftest import make_config
from tests.sources.site import ARTICLE_TEXT, TestSite


def test_archive_missing_fetches_only_what_is_not_archived(
    site: TestSite, workspace: Workspace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "none"))
    config = make_config(chromium_path=str(tmp_path / "none" / "chromium"), time_scope="2024")
    first = archive_missing(workspace, config, [site.url("/page/1")], research_date=date(2026, 1, 1))
    hits = dict(site.hits)
    urls = [site.url("/page/1"), site.url("/page/2"), site.url("/missing"), site.url("/page/1")]
    records = archive_missing(workspace, config, urls)
    assert list(records) == list(dict.fromkeys(urls))
    assert records[site.url("/page/1")] == first[site.url("/page/1")]
    assert site.hits["/page/1"] == hits["/page/1"]  # not fetched again
    assert records[site.url("/page/2")].id == "S02" and records[site.url("/missing")].error == "http_4xx"


def test_verify_quote_for_and_record_to_source(
    site: TestSite, workspace: Workspace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "none"))
    config = make_config(chromium_path=str(tmp_path / "none" / "chromium"))
    record = archive_missing(workspace, config, [site.url("/article")])[site.url("/article")]
    assert verify_quote_for(workspace, record, ARTICLE_TEXT.upper())
    assert not verify_quote_for(workspace, record, "Installed wind capacity fell")
    source = record_to_source(record)
    assert source == Source(
        id="S01",
        title="Solar capacity grows",
        url=site.url("/article"),
        type="unknown",
        published="2024-03-05",
        accessed=record.fetched,
        authority=0.5,
        archive="assets/web/S01-127-0-0-1.md",
        sha256=record.sha256,
        language="en",  # detected from the archived text
    )


@pytest.mark.browser
def test_archiver_reuses_the_signed_in_profile(site: TestSite, workspace: Workspace) -> None:
    ensure_profile(workspace.browser_profile)
    config = make_config()
    with Archiver(workspace, config) as archiver:  # stands in for the person signing in
        signed_in = archiver.archive(site.url("/set-session"))
        if archiver.browser_unavailable:
            skip_without_browser(f"no Chromium can be launched here: {archiver.browser_unavailable}")
    assert signed_in.ok
    with Archiver(workspace, config) as archiver:  # a new browser, the same profile
        members = archiver.archive(site.url("/members"))
    assert members.ok, members.message
    assert "Secret members report" in (workspace.root / members.archive).read_text(encoding="utf-8")
    assert (workspace.browser_profile / "Default").is_dir()


@pytest.mark.browser
def test_screenshot_and_printed_pdf_on_request(site: TestSite, workspace: Workspace) -> None:
    with Archiver(workspace, make_config(), screenshot=True, print_pdf=True) as archiver:
        record = archiver.archive(site.url("/page/shot"))
        if archiver.browser_unavailable:
            skip_without_browser(f"no Chromium can be launched here: {archiver.browser_unavailable}")
    assert record.ok
    assert record.screenshot_path == f"assets/images/{record.id}-127-0-0-1.png"
    assert (workspace.root / record.screenshot_path).read_bytes().startswith(b"\x89PNG")
    assert record.pdf_path == f"assets/images/{record.id}-127-0-0-1.pdf"
    assert (workspace.root / record.pdf_path).read_bytes().startswith(b"%PDF-")
