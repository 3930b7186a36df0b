"""report.pdf printed through Playwright (its own Chromium, else /usr/bin/chromium)."""

from __future__ import annotations

import asyncio

import pytest
from pypdf import PdfReader

from deepresearch.core.errors import UsageError
from deepresearch.core.workspace import Workspace
from deepresearch.report.finalize import verify_and_finalize
from deepresearch.report.html import render_pdf
from tests.helpers import skip_without_browser
from tests.report.conftest import CLEAN_EN, Run


def print_or_skip(workspace: Workspace) -> None:
    try:
        render_pdf(workspace.report_html, workspace.root / "report.pdf")
    except UsageError as exc:
        skip_without_browser(str(exc))


@pytest.mark.browser
def test_render_pdf(run: Run) -> None:
    workspace = Workspace(run.root)
    verify_and_finalize(workspace, run.doc, CLEAN_EN)
    print_or_skip(workspace)
    text = "".join(page.extract_text() for page in PdfReader(run.root / "report.pdf").pages)
    assert "Citation statistics" in text and "Global EV Outlook 2025" in text


@pytest.mark.browser
def test_render_pdf_from_inside_an_event_loop(run: Run) -> None:
    workspace = Workspace(run.root)
    verify_and_finalize(workspace, run.doc, CLEAN_EN)

    async def inside_loop() -> None:
        print_or_skip(workspace)

    asyncio.run(inside_loop())
    assert (run.root / "report.pdf").read_bytes().startswith(b"%PDF")


def test_render_pdf_with_a_chromium_that_does_not_exist(run: Run) -> None:
    workspace = Workspace(run.root)
    verify_and_finalize(workspace, run.doc, CLEAN_EN)
    with pytest.raises(UsageError, match="no Chromium could be launched"):
        render_pdf(workspace.report_html, run.root / "report.pdf", run.root / "no-such-chromium")
