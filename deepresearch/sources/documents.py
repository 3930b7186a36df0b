"""Documents as files: local ones (`deepresearch archive PATH`, `file://`, the person's `documents:`)
and EPUB/DOCX files on the web. PDF, EPUB, DOCX, Markdown, HTML and plain text are read with their
positions: PDF pages, EPUB chapters, DOCX and Markdown headings as chapters.

PDFs are stored under assets/pdf/, everything else under assets/ebook/, the original beside the
readable text. Hidden files and folders (`~/.ssh`, `.env`, `.git`, `.deepresearch`) and other file
types are refused: an agent may run `deepresearch archive`, and nothing private should reach a report.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import docx
import lxml.html
from docx.document import Document as DocxDocument
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from lxml.etree import ParserError

from deepresearch.sources.content import sha256_hex
from deepresearch.sources.ebooks import Chapter, EbookError, block_text, read_epub
from deepresearch.sources.extract import extract_html
from deepresearch.sources.fetch import FetchFailure, decode_body
from deepresearch.sources.pdf import pdf_text
from deepresearch.sources.positions import chapter_marker
from deepresearch.sources.record import BAD_URL, EMPTY, TOO_LARGE, UNSUPPORTED, SourceRecord
from deepresearch.sources.specialist_store import SpecialSource, Tools
from deepresearch.sources.weight import classify_source_type

SUPPORTED = (".pdf", ".epub", ".docx", ".md", ".markdown", ".txt", ".text", ".html", ".htm")
_HEADING = re.compile(r"^(#{1,2})\s+(.+?)\s*#*\s*$", re.M)


@dataclass
class Read:
    """What a document file holds: metadata, and its text with position markers."""

    title: str
    text: str
    positions: str = ""  # page | chapter | ""
    authors: tuple[str, ...] = ()
    published: str = ""
    problem: str = ""
    language: str = ""  # as the file declares it (an EPUB's dc:language)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "document"


def with_chapters(chapters: list[Chapter]) -> str:
    """Chapters joined, each after its `<!-- chapter N: title -->` marker."""
    return "\n\n".join(f"{chapter_marker(n, c.title)}\n\n{c.text}" for n, c in enumerate(chapters, 1))


def markdown_chapters(text: str) -> list[Chapter]:
    """A markdown text cut at its top headings (# or ##, whichever level it uses first); the text
    before the first heading is an untitled part."""
    levels = [len(m.group(1)) for m in _HEADING.finditer(text)]
    if not levels:
        return [Chapter("", text.strip())]
    top = min(levels)
    cuts = [m for m in _HEADING.finditer(text) if len(m.group(1)) == top]
    parts = [Chapter("", text[: cuts[0].start()].strip())] if text[: cuts[0].start()].strip() else []
    for m, nxt in zip(cuts, [*cuts[1:], None], strict=True):
        parts.append(Chapter(m.group(2).strip(), text[m.start() : nxt.start() if nxt else len(text)].strip()))
    return parts


def _chaptered(chapters: list[Chapter]) -> tuple[str, str]:
    """(text, positions): markers only when the document really has titled parts."""
    titled = [c for c in chapters if c.title]
    if not titled:
        return "\n\n".join(c.text for c in chapters if c.text), ""
    lead = "\n\n".join(c.text for c in chapters[: chapters.index(titled[0])] if c.text)
    body = with_chapters(chapters[chapters.index(titled[0]) :])
    return (f"{lead}\n\n{body}" if lead else body), "chapter"


def _docx(data: bytes) -> Read:
    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise EbookError(f"not a readable DOCX ({type(exc).__name__}: {exc})") from exc
    chapters = [Chapter("", "")]
    level = _chapter_level(document)
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            rows = [" | ".join(" ".join(c.text.split()) for c in row.cells) for row in block.rows]
            chapters[-1].text += "\n\n" + "\n".join(rows)
            continue
        text = " ".join(block.text.split())
        style = block.style.name if block.style is not None else ""
        if text and style == level:
            chapters.append(Chapter(text, f"## {text}"))
        elif text:
            chapters[-1].text += f"\n\n{text}"
    for chapter in chapters:
        chapter.text = chapter.text.strip()
    props = document.core_properties
    text, positions = _chaptered([c for c in chapters if c.text])
    # No published date: a DOCX's "created" is often its template's (python-docx's says 2013).
    return Read(props.title or "", text, positions, (props.author,) if props.author else ())


def _chapter_level(document: DocxDocument) -> str:
    """The heading style that starts chapters: Heading 1 when used, else Heading 2."""
    styles = {p.style.name for p in document.paragraphs if p.style is not None}
    return "Heading 1" if "Heading 1" in styles else "Heading 2"


def _html(data: bytes, url: str) -> Read:
    page, _ = decode_body(data, "")
    extracted = extract_html(page, url)
    if not extracted.markdown:
        try:
            extracted.markdown = block_text(lxml.html.fromstring(page))
        except (ParserError, ValueError):
            extracted.markdown = ""
    text, positions = _chaptered(markdown_chapters(extracted.markdown))
    return Read(extracted.title, text, positions, (), extracted.published)


def read_document(name: str, data: bytes, url: str, max_bytes: int) -> Read:
    """Read a document by its file name's type; EbookError for an unreadable one."""
    suffix = PurePosixPath(name.lower()).suffix
    if suffix == ".pdf":
        document = pdf_text(data)
        return Read(document.title, document.text, "page", (), document.published, document.problem)
    if suffix == ".epub":
        book = read_epub(data, max_bytes)
        return Read(
            book.title, with_chapters(book.chapters), "chapter", tuple(book.authors), book.published,
            language=book.language,
        )  # fmt: skip
    if suffix == ".docx":
        return _docx(data)
    if suffix in (".html", ".htm"):
        return _html(data, url)
    text, _ = decode_body(data, "")
    if suffix in (".md", ".markdown"):
        chapters = markdown_chapters(text)
        body, positions = _chaptered(chapters)
        return Read(next((c.title for c in chapters if c.title), ""), body, positions)
    return Read("", text.strip())


def _special(name: str, data: bytes, url: str, tools: Tools) -> SpecialSource:
    suffix = PurePosixPath(name.lower()).suffix
    try:
        read = read_document(name, data, url, tools.config.archive_max_bytes)
    except EbookError as exc:
        raise FetchFailure(EMPTY, f"{url}: {exc}", final_url=url) from exc
    if not read.text.strip():
        raise FetchFailure(
            EMPTY, f"{url}: {read.problem or 'the document has no readable text'}", final_url=url
        )
    title = read.title or PurePosixPath(name).stem
    record = SourceRecord(
        url=url, final_url=url, title=title, published=read.published, authors=list(read.authors),
        kind="ebook" if suffix == ".epub" else "document", positions=read.positions, warning=read.problem,
        language=read.language,
        provided=tools.provided,
        source_type="provided" if tools.provided else classify_source_type(url, title, read.text[:2000]),
    )  # fmt: skip
    original = ".source.md" if suffix in (".md", ".markdown") else suffix
    digest = sha256_hex(data)
    authority = tools.config.provided_authority if tools.provided else None
    folder = "pdf" if suffix == ".pdf" else "ebook"
    return SpecialSource(
        record, folder, _slug(PurePosixPath(name).stem), read.text, digest, {original: data}, authority
    )


def check_local(path: Path, max_bytes: int) -> None:
    """Refuse what must not be archived: a missing file, a hidden one, an unsupported type, a huge one."""
    uri = path.as_uri() if path.is_absolute() else str(path)
    if not path.is_file():
        raise FetchFailure(BAD_URL, f"no such file: {path}", final_url=uri)
    hidden = [part for part in path.resolve().parts[1:] if part.startswith(".")]
    if hidden:
        raise FetchFailure(
            UNSUPPORTED, f"{path}: files in hidden folders or hidden files ({hidden[0]}) are not archived"
        )
    if path.suffix.lower() not in SUPPORTED:
        raise FetchFailure(
            UNSUPPORTED,
            f"{path}: {path.suffix or 'no extension'} is not a supported document type (supported: {', '.join(SUPPORTED)})",
        )
    if path.stat().st_size > max_bytes:
        raise FetchFailure(TOO_LARGE, f"{path} is {path.stat().st_size} bytes, over the {max_bytes} byte cap")


def archive_local(path_text: str, tools: Tools) -> SpecialSource:
    """A local file, read by its type (see the module doc)."""
    path = Path(path_text)
    if not path.is_absolute():
        raise FetchFailure(BAD_URL, f"a file:// URL needs an absolute path, got {path_text!r}")
    check_local(path, tools.config.archive_max_bytes)
    return _special(path.name, path.read_bytes(), path.resolve().as_uri(), tools)


def archive_remote_file(url: str, tools: Tools) -> SpecialSource:
    """An EPUB or DOCX on the web: downloaded, then read like a local file."""
    fetched = tools.http(url)
    name = PurePosixPath(urlsplit(url).path).name  # the route matched its .epub/.docx ending
    special = _special(name, fetched.body, fetched.final_url, tools)
    special.record.http_status, special.record.content_type = fetched.status, fetched.content_type
    return special
