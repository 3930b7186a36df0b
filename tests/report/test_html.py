"""report.html: escaping, citation links, table of contents, self-contained; checked in real Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from playwright.sync_api import Browser, Page

from deepresearch.core.workspace import Workspace
from deepresearch.report.citations import find_citations
from deepresearch.report.finalize import verify_and_finalize
from deepresearch.report.html import render_html
from deepresearch.report.references import finalize_report
from deepresearch.sources.browser import BROWSER_ARGS
from deepresearch.sources.chromiums import SYSTEM_CHROMIUMS
from tests.helpers import skip_without_browser
from tests.report.conftest import CLEAN_EN, CLEAN_ZH, Run

ARTIFACTS = Path(__file__).parent / "artifacts"


def html_for(run: Run, report: str) -> str:
    return render_html(finalize_report(report, run.doc, run.root, []), run.doc, run.root)


def test_everything_from_the_report_is_escaped(run: Run) -> None:
    report = 'Bad <script>alert(1)</script> <img src=x onerror="y"> [x](javascript:alert(1)) [S01].\n'
    page = html_for(run, report)
    assert "<script" not in page and "<img src=x" not in page and 'href="javascript' not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Battery cost teardown &lt;2024&gt; &amp; &quot;notes&quot;" in page  # a title from task.md


def test_self_contained_no_external_resources(run: Run) -> None:
    page = html_for(run, CLEAN_EN)
    assert not re.search(r"<(script|link|iframe|object)\b", page)
    assert not re.search(r"""src=["']?(https?:)?//""", page)
    assert "@import" not in page and "url(" not in page
    assert '<img src="assets/images/sales.svg"' in page


def test_citations_link_to_reference_entries(run: Run) -> None:
    page = html_for(run, CLEAN_EN + "\nUnknown stays text [S99] and code `[S01]` stays code.\n")
    links = re.findall(r'<a href="#ref-(S\d+)" class="cite"', page)
    expected = [i for g in find_citations(CLEAN_EN) for i in g.ids]
    assert links == expected
    assert set(links) <= set(re.findall(r'<li id="ref-(S\d+)"', page))
    assert "[S99]" in page and 'href="#ref-S99"' not in page
    assert "<code>[S01]</code>" in page


def test_table_of_contents_and_heading_ids(run: Run) -> None:
    page = html_for(run, CLEAN_EN)
    toc = re.search(r'<nav class="toc".*?</nav>', page, re.S)
    assert toc is not None
    assert re.findall(r'href="#([^"]+)"', toc.group()) == [
        "executive-summary",
        "market-size",
        "costs",
        "impact",
        "references",
        "cited-sources",
        "additional-sources-not-cited",
        "citation-statistics",
    ]
    assert '<h2 id="executive-summary">' in page
    assert "<title>The electric car market in 2025</title>" in page


def test_chinese_headings_get_ids_and_lang(run: Run) -> None:
    page = html_for(run, CLEAN_ZH)
    assert '<html lang="zh">' in page
    assert '<h2 id="摘要">' in page and 'href="#成本分歧"' in page


def test_failed_report_has_a_banner_linking_to_verification(run: Run) -> None:
    outcome = verify_and_finalize(Workspace(run.root), run.doc, CLEAN_EN + "\nMade up [S99].\n")
    page = Workspace(run.root).report_html.read_text(encoding="utf-8")
    assert not outcome.passed
    assert '<a href="#verification">see the problems listed at the end</a>' in page
    assert "did not pass" not in html_for(run, CLEAN_EN)


# --- in real headless Chromium -------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch()
        except Error:
            try:
                launched = playwright.chromium.launch(executable_path=SYSTEM_CHROMIUMS[0], args=BROWSER_ARGS)
            except Error as exc:
                skip_without_browser(f"no Chromium launches here: {str(exc).splitlines()[0]}")
        yield launched
        launched.close()


def open_report(browser: Browser, run: Run, report: str, width: int = 1280) -> tuple[Page, list[str]]:
    """Finalize `report` into the workspace, open report.html; return the page and every URL requested."""
    verify_and_finalize(Workspace(run.root), run.doc, report)
    page = browser.new_page(viewport={"width": width, "height": 900})
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(Workspace(run.root).report_html.as_uri(), wait_until="load")
    return page, requested


@pytest.mark.browser
def test_report_in_chromium_links_resolve_and_screenshot(browser: Browser, run: Run) -> None:
    page, requested = open_report(browser, run, CLEAN_EN)
    cite_targets = page.eval_on_selector_all(
        "a.cite", "els => els.map(a => [a.getAttribute('href'), !!document.getElementById(a.hash.slice(1))])"
    )
    assert len(cite_targets) == sum(len(g.ids) for g in find_citations(CLEAN_EN)) > 10
    assert all(found for _, found in cite_targets), cite_targets
    archives = page.eval_on_selector_all("a.archive", "els => els.map(a => a.href)")
    assert len(archives) == len(run.doc.sources)
    for href in archives:
        assert Path(unquote(urlsplit(href).path)).is_file(), href
    # Offline: the page loaded nothing but local files (itself and the chart).
    assert requested and all(url.startswith("file://") for url in requested), requested
    assert page.evaluate("document.querySelector('img').naturalWidth") == 480
    page.click("a.cite >> nth=2")
    assert page.evaluate("location.hash") == "#ref-S02"
    assert page.evaluate("document.querySelector(':target').id") == "ref-S02"
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
    assert (ARTIFACTS / "report.png").stat().st_size > 10_000


@pytest.mark.browser
def test_chinese_failed_report_in_narrow_chromium(browser: Browser, run: Run) -> None:
    page, _ = open_report(browser, run, CLEAN_ZH + "\n没有来源的断言。另一个断言。第三个断言。\n", width=420)
    assert page.locator("#verification").is_visible()
    assert page.locator("header .failed").is_visible()
    page.screenshot(path=str(ARTIFACTS / "report-zh-narrow.png"), full_page=True)
