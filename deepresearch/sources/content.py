"""From fetched bytes to readable content: PDF, HTML page or plain text, or a recorded failure
(non-text, empty, login wall, captcha). Pure: no files are written here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from deepresearch.sources.extract import detect_wall, extract_html
from deepresearch.sources.fetch import HTML_TYPES, Fetched, FetchFailure, decode_body, sniff_charset
from deepresearch.sources.pdf import is_pdf, pdf_text
from deepresearch.sources.record import EMPTY, NON_TEXT

_TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-yaml")


@dataclass
class Content:
    """Readable content of one source, ready to be stored."""

    kind: str  # web | pdf | text
    title: str
    published: str
    text: str  # the readable text (markdown for web pages), stored under the header
    content_sha256: str  # dedup key: of the text for pages, of the bytes for PDFs
    html: str = ""  # the decoded page, for web
    warning: str = ""


def sha256_hex(data: bytes) -> str:
    """SHA-256 of `data` as 64 hex digits."""
    return hashlib.sha256(data).hexdigest()


def _looks_binary(body: bytes) -> bool:
    sample = body[:4096]
    return b"\x00" in sample or sum(b < 9 or 13 < b < 32 for b in sample) > len(sample) // 20


def _kind_of(fetched: Fetched) -> str:
    mime = fetched.content_type
    if is_pdf(mime, fetched.body):
        return "pdf"
    if mime in HTML_TYPES or (
        not mime and fetched.body[:1024].lstrip().lower().startswith((b"<!doc", b"<html"))
    ):
        return "web"
    textual = mime.startswith("text/") or mime in _TEXT_TYPES or mime.endswith(("+json", "+xml"))
    if (textual or not mime) and not _looks_binary(fetched.body):
        return "text"
    raise FetchFailure(
        NON_TEXT,
        f"{fetched.final_url} is {mime or 'binary data'}: nothing to read or quote",
        fetched.status,
        fetched.final_url,
        mime,
    )


def _web(fetched: Fetched) -> Content:
    charset = fetched.charset or sniff_charset(fetched.body)
    html, _ = decode_body(fetched.body, charset)
    extracted = extract_html(html, fetched.final_url, fetched.title)
    wall = detect_wall(html, extracted.markdown)
    if wall is not None:
        kind, message = wall
        raise FetchFailure(kind, f"{fetched.final_url}: {message}", fetched.status, fetched.final_url)
    if not extracted.markdown:
        raise FetchFailure(EMPTY, f"{fetched.final_url}: the page has no readable text", fetched.status)
    digest = sha256_hex(extracted.markdown.encode("utf-8"))
    return Content("web", extracted.title, extracted.published, extracted.markdown, digest, html=html)


def _pdf(fetched: Fetched) -> Content:
    document = pdf_text(fetched.body)
    return Content(
        "pdf",
        document.title,
        document.published,
        document.text,
        sha256_hex(fetched.body),
        warning=document.problem,
    )


def _text(fetched: Fetched) -> Content:
    text, _ = decode_body(fetched.body, fetched.charset)
    if not text.strip():
        raise FetchFailure(EMPTY, f"{fetched.final_url}: the document is empty", fetched.status)
    return Content("text", "", "", text, sha256_hex(text.encode("utf-8")))


def build_content(fetched: Fetched) -> Content:
    """Classify and read what was fetched; raises FetchFailure when there is nothing to archive."""
    kind = _kind_of(fetched)
    if kind == "pdf":
        return _pdf(fetched)
    if kind == "web":
        return _web(fetched)
    return _text(fetched)
