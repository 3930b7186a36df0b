"""EPUB reading: metadata and chapters in reading order, straight from the container (zip + OPF).

An EPUB is a zip holding META-INF/container.xml → the package (.opf) → its metadata (Dublin Core
title, creators, date) and its spine (the reading order of XHTML documents). Each spine document
becomes a chapter titled by its first heading (else its <title>, else "Chapter N"). Read with
zipfile and lxml (no EPUB library: the maintained ones are AGPL). A DRM-encrypted book cannot be
read and says so; an oversized member (a zip bomb) is refused.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from dataclasses import dataclass, field
from urllib.parse import unquote

import lxml.etree
import lxml.html
from lxml.etree import ParserError

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_XMLENC = "{http://www.w3.org/2001/04/xmlenc#}"
_HTML_TYPES = ("application/xhtml+xml", "text/html")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = frozenset(
    (*_HEADINGS, "p", "li", "blockquote", "pre", "dt", "dd", "td", "th", "caption", "figcaption")
)


class EbookError(ValueError):
    """The file is not a readable EPUB; the message says why."""


@dataclass
class Chapter:
    """One part of a document in reading order: its title and its text (markdown-ish)."""

    title: str
    text: str


@dataclass
class Book:
    """An EPUB's metadata and chapters."""

    title: str = ""
    authors: list[str] = field(default_factory=list)
    published: str = ""
    language: str = ""
    chapters: list[Chapter] = field(default_factory=list)


def _xml(data: bytes, what: str) -> lxml.etree._Element:
    try:
        return lxml.etree.fromstring(
            data, parser=lxml.etree.XMLParser(resolve_entities=False, no_network=True)
        )
    except lxml.etree.XMLSyntaxError as exc:
        raise EbookError(f"{what} is not well-formed XML ({exc})") from exc


def _read(book: zipfile.ZipFile, name: str, max_bytes: int) -> bytes:
    try:
        info = book.getinfo(name)
    except KeyError as exc:
        raise EbookError(f"the EPUB has no {name}") from exc
    if info.file_size > max_bytes:
        raise EbookError(f"{name} unpacks to {info.file_size} bytes, over the {max_bytes} byte cap")
    return book.read(info)


def _encrypted(book: zipfile.ZipFile) -> set[str]:
    """Members encrypted with DRM (font obfuscation also uses encryption.xml: only content counts)."""
    if "META-INF/encryption.xml" not in book.namelist():
        return set()
    root = _xml(book.read("META-INF/encryption.xml"), "META-INF/encryption.xml")
    return {unquote(str(ref.get("URI"))) for ref in root.iter(f"{_XMLENC}CipherReference")}


def block_text(tree: lxml.html.HtmlElement) -> str:
    """An HTML document's readable text: headings as markdown headings, each block on its own."""
    for node in tree.xpath("//script|//style|//head"):
        node.drop_tree()
    lines = []
    for node in tree.iter(*_BLOCKS):
        if any(child.tag in _BLOCKS for child in node.iterdescendants()):
            continue  # its inner blocks are taken one by one
        text = " ".join(node.text_content().split())
        if not text:
            continue
        if node.tag in _HEADINGS:
            text = f"{'#' * int(node.tag[1])} {text}"
        elif node.tag == "li":
            text = f"- {text}"
        lines.append(text)
    return "\n\n".join(lines)


def _chapter(data: bytes, number: int) -> Chapter | None:
    try:
        tree = lxml.html.fromstring(data)
    except (ParserError, ValueError):
        return None
    heading = next((" ".join(h.text_content().split()) for h in tree.iter(*_HEADINGS)), "")
    title = heading or " ".join((tree.findtext(".//title") or "").split()) or f"Chapter {number}"
    text = block_text(tree)
    return Chapter(title, text) if text else None


def read_epub(data: bytes, max_bytes: int) -> Book:
    """The book's metadata and its chapters in spine order; EbookError when it cannot be read."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise EbookError("not an EPUB: the file is not a zip archive") from exc
    with archive:
        container = _xml(_read(archive, "META-INF/container.xml", max_bytes), "META-INF/container.xml")
        rootfile = container.find(f".//{_CONTAINER}rootfile")
        if rootfile is None or not rootfile.get("full-path"):
            raise EbookError("META-INF/container.xml names no package document")
        opf_path = str(rootfile.get("full-path"))
        package = _xml(_read(archive, opf_path, max_bytes), opf_path)
        base = posixpath.dirname(opf_path)
        manifest = {
            str(item.get("id")): (
                posixpath.normpath(posixpath.join(base, unquote(str(item.get("href"))))),
                item,
            )
            for item in package.iter(f"{_OPF}item")
        }
        locked = _encrypted(archive)
        book = _metadata(package)
        for itemref in package.iter(f"{_OPF}itemref"):
            path, item = manifest.get(str(itemref.get("idref")), ("", None))
            if item is None or item.get("media-type") not in _HTML_TYPES:
                continue
            if path in locked:
                raise EbookError("the EPUB is DRM-encrypted: its text cannot be read")
            chapter = _chapter(_read(archive, path, max_bytes), len(book.chapters) + 1)
            if chapter is not None:
                book.chapters.append(chapter)
    if not book.chapters:
        raise EbookError("the EPUB has no readable text in its reading order")
    return book


def _metadata(package: lxml.etree._Element) -> Book:
    def all_of(tag: str) -> list[str]:
        return [
            " ".join((n.text or "").split()) for n in package.iter(f"{_DC}{tag}") if (n.text or "").strip()
        ]

    titles, dates, languages = all_of("title"), all_of("date"), all_of("language")
    return Book(
        title=titles[0] if titles else "",
        authors=all_of("creator"),
        published=dates[0][:10] if dates else "",
        language=languages[0] if languages else "",
    )
