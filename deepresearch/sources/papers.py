"""The paper route: arXiv IDs, DOIs and publisher landing pages archived as papers.

Metadata comes from the arXiv API or Crossref (falling back to the landing page's `citation_*`
tags); the open-access PDF from the landing page's `citation_pdf_url`, Unpaywall (when
UNPAYWALL_EMAIL is set) or Crossref's PDF links, tried in that order. The PDF is kept under
assets/pdf/ with its text (page markers kept). A paper with no open PDF is archived as its abstract
under assets/web/, marked `abstract only`. Authority comes from the metadata (scholarly.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from deepresearch.core.urls import host_slug
from deepresearch.sources.content import sha256_hex
from deepresearch.sources.extract import extract_html
from deepresearch.sources.fetch import Fetched, FetchFailure, decode_body
from deepresearch.sources.pdf import is_pdf, pdf_text
from deepresearch.sources.record import EMPTY, SourceRecord
from deepresearch.sources.routes import arxiv_url, doi_url
from deepresearch.sources.scholarly import (
    MetadataError,
    PaperMeta,
    arxiv_api_url,
    crossref_url,
    landing_meta,
    paper_source_type,
    parse_arxiv,
    parse_crossref,
    parse_unpaywall,
    unpaywall_url,
)
from deepresearch.sources.specialist_store import SpecialSource, Tools

T = TypeVar("T")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "paper"


def _try(notes: list[str], what: str, call: Callable[[], T]) -> T | None:
    """Run `call()`; on a known failure note what failed (without URLs: they may hold an email)."""
    try:
        return call()
    except (FetchFailure, MetadataError) as exc:
        kind = exc.kind if isinstance(exc, FetchFailure) else "unreadable"
        notes.append(f"{what}: {kind}")
        return None


def _crossref(doi: str, tools: Tools, notes: list[str]) -> PaperMeta | None:
    fetched = _try(notes, "Crossref", lambda: tools.http(crossref_url(tools.base("crossref"), doi)))
    return None if fetched is None else _try(notes, "Crossref", lambda: parse_crossref(fetched.body))


def _unpaywall(doi: str, tools: Tools, notes: list[str]) -> list[str]:
    email = tools.environ.get("UNPAYWALL_EMAIL", "").strip()
    if not email:
        return []
    fetched = _try(notes, "Unpaywall", lambda: tools.http(unpaywall_url(tools.base("unpaywall"), doi, email)))
    urls = None if fetched is None else _try(notes, "Unpaywall", lambda: parse_unpaywall(fetched.body))
    return urls or []


def _landing(url: str, tools: Tools, notes: list[str]) -> tuple[Fetched | None, PaperMeta | None]:
    fetched = _try(notes, "landing page", lambda: tools.page(url))
    if fetched is None:
        return None, None
    html, _ = decode_body(fetched.body, fetched.charset)
    return fetched, landing_meta(html, fetched.final_url)


def _open_pdf(candidates: list[str], tools: Tools, notes: list[str]) -> Fetched | None:
    """The first candidate that really is a PDF (publishers often answer a PDF link with a login page)."""
    for url in dict.fromkeys(candidates):
        fetched = _try(notes, "PDF", lambda url=url: tools.http(url))  # type: ignore[misc]
        if fetched is not None and is_pdf(fetched.content_type, fetched.body):
            return fetched
        if fetched is not None:
            notes.append(f"PDF: {fetched.final_url} is {fetched.content_type or 'not a PDF'}")
    return None


def _record(meta: PaperMeta, canonical: str) -> SourceRecord:
    return SourceRecord(
        url=canonical, final_url=canonical, title=meta.title or canonical, published=meta.published,
        kind="paper", authors=meta.authors, venue=meta.venue, doi=meta.doi, arxiv_id=meta.arxiv_id,
        source_type=paper_source_type(meta),
    )  # fmt: skip


def _build(
    meta: PaperMeta, canonical: str, tools: Tools, landing: Fetched | None, notes: list[str]
) -> SpecialSource:
    """The paper with its PDF when one is open, else its abstract (marked abstract only)."""
    record = _record(meta, canonical)
    slug = _slug((meta.arxiv_id and f"arxiv-{meta.arxiv_id}") or meta.doi or host_slug(canonical))
    # Some DOIs resolve straight to the PDF: then the "landing page" is the paper itself.
    direct = landing is not None and is_pdf(landing.content_type, landing.body)
    pdf = landing if direct else _open_pdf(meta.pdf_urls, tools, notes)
    if pdf is not None:
        document = pdf_text(pdf.body)
        record.pdf_url, record.http_status, record.content_type = pdf.final_url, pdf.status, pdf.content_type
        record.positions, record.warning = "page", document.problem
        record.title = meta.title or document.title or canonical
        record.published = meta.published or document.published
        return SpecialSource(record, "pdf", slug, document.text, sha256_hex(pdf.body), {".pdf": pdf.body})
    abstract = meta.abstract or (_landing_text(landing) if landing is not None else "")
    if not abstract:
        raise FetchFailure(EMPTY, f"{canonical}: no open-access PDF and no abstract ({'; '.join(notes)})")
    record.abstract_only = True
    record.http_status = landing.status if landing is not None else None
    record.warning = "abstract only: no open-access PDF found" + (f" ({'; '.join(notes)})" if notes else "")
    text = "\n\n".join(part for part in (_byline(meta), "## Abstract", abstract) if part)
    originals = {".html": landing.body} if landing is not None else {}
    return SpecialSource(record, "web", slug, text, sha256_hex(text.encode("utf-8")), originals)


def _byline(meta: PaperMeta) -> str:
    parts = ["; ".join(meta.authors), meta.venue, meta.published]
    return " · ".join(p for p in parts if p)


def _landing_text(landing: Fetched) -> str:
    html, _ = decode_body(landing.body, landing.charset)
    return extract_html(html, landing.final_url).markdown


def archive_arxiv(arxiv_id: str, tools: Tools) -> SpecialSource:
    """An arXiv paper: metadata from the arXiv API, the PDF it links (a preprint: authority ≤ 0.8)."""
    answer = tools.http(arxiv_api_url(tools.base("arxiv"), arxiv_id))
    try:
        meta = parse_arxiv(answer.body, arxiv_id)
    except MetadataError as exc:
        raise FetchFailure(EMPTY, f"arXiv:{arxiv_id}: {exc}", answer.status, answer.final_url) from exc
    return _build(meta, arxiv_url(arxiv_id), tools, None, [])


def archive_doi(doi: str, tools: Tools) -> SpecialSource:
    """A DOI: Crossref's metadata, the landing page it resolves to, an open PDF if there is one."""
    notes: list[str] = []
    crossref = _crossref(doi, tools, notes)
    landing, from_page = _landing(f"{tools.base('doi')}/{doi}", tools, notes)
    if crossref is None and from_page is None and landing is None:
        raise FetchFailure(
            EMPTY, f"doi:{doi}: neither Crossref nor the DOI's landing page answered ({'; '.join(notes)})"
        )
    meta = (crossref or PaperMeta(doi=doi)).fill(from_page)
    meta.doi = meta.doi or doi
    meta.pdf_urls = [
        *(from_page.pdf_urls if from_page else []),
        *_unpaywall(doi, tools, notes),
        *meta.pdf_urls,
    ]
    return _build(meta, doi_url(doi), tools, landing, notes)


def archive_landing(page: Fetched, meta: PaperMeta, tools: Tools) -> SpecialSource:
    """A publisher's landing page (it has `citation_*` tags); Crossref's metadata wins when it names a DOI."""
    notes: list[str] = []
    on_page = list(meta.pdf_urls)
    if meta.doi:
        crossref = _crossref(meta.doi, tools, notes)
        meta = crossref.fill(meta) if crossref is not None else meta
        meta.pdf_urls = [*on_page, *_unpaywall(meta.doi, tools, notes), *meta.pdf_urls]
    return _build(meta, page.final_url, tools, page, notes)
