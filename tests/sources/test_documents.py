"""Local files and ebooks: EPUB, DOCX, PDF, Markdown, HTML and text archived with their positions."""

from __future__ import annotations

import http.server
import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.core.config import Config
from deepresearch.core.errors import ExitCode
from deepresearch.core.workspace import Workspace
from deepresearch.sources.api import archive_missing
from deepresearch.sources.archive import Archiver
from deepresearch.sources.positions import Position, PositionKind
from deepresearch.sources.quote_place import quote_position
from deepresearch.sources.record import BAD_URL, EMPTY, UNSUPPORTED, SourceRecord
from tests.sources.books import DOCX_CHAPTERS, EPUB_CHAPTERS, epub_bytes, write_docx
from tests.sources.conftest import cli, make_config
from tests.sources.services import PAGE3, PAPER_PAGES, pdf_pages


def config(tmp_path: Path, **extra: object) -> Config:
    return make_config(chromium_path=str(tmp_path / "no-chromium"), **extra)


def archive(workspace: Workspace, cfg: Config, *targets: str, provided: bool = False) -> list[SourceRecord]:
    with Archiver(workspace, cfg, provided=provided, environ={}) as archiver:
        return archiver.archive_many(list(targets))


def text_of(workspace: Workspace, record: SourceRecord) -> str:
    return (workspace.root / record.archive).read_text(encoding="utf-8")


def test_epub_archived_with_metadata_and_chapter_positions(
    tmp_path: Path, workspace: Workspace, cli_env: dict[str, str]
) -> None:
    books = tmp_path / "books"
    books.mkdir()
    (books / "lighthouses.epub").write_bytes(epub_bytes())
    # As a person would: a path relative to the current folder, the workspace elsewhere.
    argv = cli("archive", "--json", "-o", str(workspace.root), "lighthouses.epub")
    result = subprocess.run(argv, cwd=books, env=cli_env, capture_output=True, text=True, timeout=120)
    assert result.returncode == ExitCode.OK, result.stderr
    (record,) = json.loads(result.stdout)
    assert record["kind"] == "ebook" and record["positions"] == "chapter"
    assert record["archive"] == "assets/ebook/S01-lighthouses.md"
    assert record["title"] == "A Short History of Lighthouses" and record["authors"] == ["Mary Keeper"]
    assert (
        record["published"] == "2019-06-01" and record["final_url"] == (books / "lighthouses.epub").as_uri()
    )
    assert (workspace.root / "assets/ebook/S01-lighthouses.epub").read_bytes() == (
        books / "lighthouses.epub"
    ).read_bytes()
    text = (workspace.root / record["archive"]).read_text(encoding="utf-8")
    assert "<!-- chapter 2: The Second Chapter -->" in text and "\n- Oil lamps\n" in text
    assert quote_position(EPUB_CHAPTERS[1][1], text) == Position(
        PositionKind.CHAPTER, 2, "The Second Chapter"
    )
    assert quote_position(EPUB_CHAPTERS[2][1], text) == Position(PositionKind.CHAPTER, 3, "The Third Chapter")


def test_docx_archived_with_heading_chapters_and_tables(tmp_path: Path, workspace: Workspace) -> None:
    path = write_docx(tmp_path / "Field Notes.docx")
    (record,) = archive(workspace, config(tmp_path), path.as_uri())
    assert record.ok and record.kind == "document" and record.positions == "chapter"
    assert record.archive == "assets/ebook/S01-field-notes.md" and record.title == "Field notes on heat pumps"
    assert record.authors == ["Sam Field"] and record.source_type == "unknown"
    text = text_of(workspace, record)
    assert text.index("Private notes, first draft.") < text.index("<!-- chapter 1: Background -->")
    assert "H-17 | 3.9" in text
    assert quote_position(DOCX_CHAPTERS[1][1], text) == Position(PositionKind.CHAPTER, 2, "Findings")
    assert quote_position("Private notes, first draft.", text) is None  # before any chapter


def test_pdf_markdown_html_and_text_files(tmp_path: Path, workspace: Workspace) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "study.pdf").write_bytes(pdf_pages(PAPER_PAGES, "A study"))
    (docs / "notes.md").write_text(
        "Intro line.\n\n# Method\n\nWe measured twice.\n\n# Result\n\nIt worked well.\n"
    )
    (docs / "page.html").write_text(
        "<html><head><title>Saved page</title></head><body><article><h1>Saved page</h1>"
        "<p>The saved page says the pilot ran for nine months in three towns.</p></article></body></html>"
    )
    (docs / "plain.txt").write_text("Just a plain note about the pilot.\n")
    names = ("study.pdf", "notes.md", "page.html", "plain.txt")
    pdf, md, html, txt = archive(workspace, config(tmp_path), *(str((docs / n).as_uri()) for n in names))
    assert pdf.archive.startswith("assets/pdf/") and pdf.pdf_path.endswith(".pdf") and pdf.positions == "page"
    assert quote_position(PAGE3, text_of(workspace, pdf)) == Position(PositionKind.PAGE, 3)
    assert md.archive.startswith("assets/ebook/") and md.title == "Method" and md.positions == "chapter"
    assert quote_position("It worked well.", text_of(workspace, md)) == Position(
        PositionKind.CHAPTER, 2, "Result"
    )
    assert (workspace.root / md.archive.replace(".md", ".source.md")).is_file()
    assert html.title == "Saved page" and "nine months in three towns" in text_of(workspace, html)
    assert txt.title == "plain" and txt.positions == "" and "plain note" in text_of(workspace, txt)
    assert {r.kind for r in (pdf, md, html, txt)} == {"document"}


def test_provided_documents_take_their_type_and_configured_authority(
    tmp_path: Path, workspace: Workspace
) -> None:
    note = tmp_path / "memo.md"
    note.write_text("# Memo\n\nThe board approved the budget.\n")
    (record,) = archive(workspace, config(tmp_path, provided_authority=0.65), note.as_uri(), provided=True)
    assert record.provided and record.source_type == "provided" and record.authority == 0.65
    assert "- Provided: yes" in text_of(workspace, record)


def test_refused_files_say_why(tmp_path: Path, workspace: Workspace) -> None:
    hidden = tmp_path / ".secrets"
    hidden.mkdir()
    (hidden / "keys.txt").write_text("token=abc")
    (tmp_path / "photo.png").write_bytes(b"\x89PNG....")
    (tmp_path / "locked.epub").write_bytes(epub_bytes(drm=True))
    (tmp_path / "broken.docx").write_bytes(b"not a zip")
    targets = [
        (hidden / "keys.txt").as_uri(), (tmp_path / "photo.png").as_uri(), (tmp_path / "missing.pdf").as_uri(),
        (tmp_path / "locked.epub").as_uri(), (tmp_path / "broken.docx").as_uri(),
    ]  # fmt: skip
    hidden_r, png, missing, locked, broken = archive(workspace, config(tmp_path), *targets)
    assert hidden_r.error == UNSUPPORTED and "hidden" in hidden_r.message
    assert png.error == UNSUPPORTED and ".png is not a supported document type" in png.message
    assert missing.error == BAD_URL and "no such file" in missing.message
    assert locked.error == EMPTY and "DRM-encrypted" in locked.message
    assert broken.error == EMPTY and "not a readable DOCX" in broken.message
    assert {r.kind for r in (hidden_r, png, missing, locked, broken)} == {"document"}
    assert not list((workspace.root / "assets").rglob("*keys*"))


@pytest.fixture
def file_server(tmp_path: Path) -> Iterator[str]:
    root = tmp_path / "served"
    root.mkdir()
    (root / "guide.epub").write_bytes(epub_bytes(title="Lighthouse guide"))
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(root))  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None  # type: ignore[method-assign]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_epub_on_the_web_is_read_as_an_ebook(
    file_server: str, tmp_path: Path, workspace: Workspace
) -> None:
    (record,) = archive(workspace, config(tmp_path), f"{file_server}/guide.epub")
    assert record.ok and record.kind == "ebook" and record.title == "Lighthouse guide"
    assert record.http_status == 200 and record.archive.startswith("assets/ebook/")


def test_the_orchestrator_never_pulls_in_a_local_file_an_agent_cites(
    tmp_path: Path, workspace: Workspace
) -> None:
    private = tmp_path / "private-notes.md"
    private.write_text("# Private\n\nMy bank PIN is 1234.\n")
    records = archive_missing(workspace, config(tmp_path), [private.as_uri()])
    record = records[private.as_uri()]
    assert (
        not record.ok
        and record.error == UNSUPPORTED
        and "local files are not archived during research" in record.message
    )
    assert not [p for p in (workspace.root / "assets").rglob("*") if p.is_file()]
