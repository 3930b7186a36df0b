"""Paper metadata from the arXiv API (Atom), Crossref (JSON), Unpaywall (JSON) and a publisher's
landing page (`citation_*` meta tags). Parsing only: each reader gets the fetched bytes.

Base URLs (`source_base_urls` in the configuration; the defaults below) let a proxy or a local test
server stand in for each service.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from dataclasses import dataclass, field, fields
from urllib.parse import quote, urlencode, urljoin

import lxml.etree
import lxml.html
from lxml.etree import ParserError

DEFAULT_BASE_URLS = {
    "arxiv": "https://export.arxiv.org",
    "crossref": "https://api.crossref.org",
    "unpaywall": "https://api.unpaywall.org",
    "doi": "https://doi.org",
    "youtube": "https://www.youtube.com",
}
_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
_TAGS = re.compile(r"<[^>]+>")
_PEER_REVIEWED_TYPES = ("journal-article", "proceedings-article")
_REPORT_TYPES = ("report", "book", "monograph", "book-chapter", "edited-book", "dissertation", "standard")


class MetadataError(ValueError):
    """A service answered with something that is not the metadata it should hold."""


@dataclass
class PaperMeta:
    """What is known about a paper, from whichever service said it first."""

    title: str = ""
    authors: list[str] = field(default_factory=list)
    venue: str = ""  # journal, conference or (for arXiv) the journal reference
    work_type: str = ""  # Crossref's type (journal-article ...), or "preprint"
    published: str = ""  # ISO date
    doi: str = ""
    arxiv_id: str = ""
    abstract: str = ""
    pdf_urls: list[str] = field(default_factory=list)  # candidate open-access PDFs, best first

    def fill(self, other: PaperMeta | None) -> PaperMeta:
        """This metadata with its empty fields taken from `other`; PDF candidates are joined."""
        if other is None:
            return self
        for item in fields(self):
            if item.name != "pdf_urls" and not getattr(self, item.name):
                setattr(self, item.name, getattr(other, item.name))
        self.pdf_urls = list(dict.fromkeys([*self.pdf_urls, *other.pdf_urls]))
        return self


def base_url(bases: dict[str, str], service: str) -> str:
    """The configured base URL of a service, else its real one."""
    return bases.get(service) or DEFAULT_BASE_URLS[service]


def arxiv_api_url(base: str, arxiv_id: str) -> str:
    """The arXiv API query for one paper."""
    return f"{base}/api/query?" + urlencode({"id_list": arxiv_id, "max_results": 1})


def crossref_url(base: str, doi: str) -> str:
    """Crossref's record of one DOI."""
    return f"{base}/works/{quote(doi, safe='/')}"


def unpaywall_url(base: str, doi: str, email: str) -> str:
    """Unpaywall's record of one DOI (Unpaywall asks every caller for an email address)."""
    return f"{base}/v2/{quote(doi, safe='/')}?" + urlencode({"email": email})


def _text(node: lxml.etree._Element | None) -> str:
    return " ".join((node.text or "").split()) if node is not None else ""


def _date(value: str) -> str:
    match = re.match(r"\d{4}(?:-\d{2}(?:-\d{2})?)?", value.strip().replace("/", "-"))
    return match.group(0) if match else ""


def parse_arxiv(body: bytes, arxiv_id: str) -> PaperMeta:
    """The paper of an arXiv API answer (Atom); MetadataError when the feed holds no such paper."""
    try:
        root = lxml.etree.fromstring(body, parser=lxml.etree.XMLParser(resolve_entities=False))
    except lxml.etree.XMLSyntaxError as exc:
        raise MetadataError(f"the arXiv API answer is not XML ({exc})") from exc
    entry = root.find(f"{_ATOM}entry")
    entry_id = _text(entry.find(f"{_ATOM}id")) if entry is not None else ""
    if entry is None or "/api/errors" in entry_id or not _text(entry.find(f"{_ATOM}title")):
        raise MetadataError(f"arXiv has no paper {arxiv_id}")
    pdfs = [
        str(link.get("href"))
        for link in entry.findall(f"{_ATOM}link")
        if link.get("title") == "pdf" or link.get("type") == "application/pdf"
    ]
    return PaperMeta(
        title=_text(entry.find(f"{_ATOM}title")),
        authors=[_text(a.find(f"{_ATOM}name")) for a in entry.findall(f"{_ATOM}author")],
        venue=_text(entry.find(f"{_ARXIV}journal_ref")),
        work_type="preprint",
        published=_date(_text(entry.find(f"{_ATOM}published"))),
        doi=_text(entry.find(f"{_ARXIV}doi")),
        arxiv_id=arxiv_id,
        abstract=_text(entry.find(f"{_ATOM}summary")),
        pdf_urls=pdfs,
    )


def _json(body: bytes, service: str) -> dict[str, object]:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MetadataError(f"the {service} answer is not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise MetadataError(f"the {service} answer is not a JSON object")
    return data


def _first(value: object) -> str:
    if isinstance(value, list):
        return str(value[0]).strip() if value else ""
    return str(value or "").strip()


def _crossref_date(message: dict[str, object]) -> str:
    for key in ("published", "published-print", "published-online", "issued", "created"):
        parts = message.get(key)
        date_parts = parts.get("date-parts") if isinstance(parts, dict) else None
        if isinstance(date_parts, list) and date_parts and isinstance(date_parts[0], list):
            numbers = [int(n) for n in date_parts[0] if isinstance(n, int)]
            if numbers:
                return "-".join(f"{n:02d}" if i else f"{n:04d}" for i, n in enumerate(numbers[:3]))
    return ""


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _person(author: object) -> str:
    if not isinstance(author, dict):
        return ""
    name = " ".join(str(author.get(k, "")).strip() for k in ("given", "family")).strip()
    return name or str(author.get("name", "")).strip()


def parse_crossref(body: bytes) -> PaperMeta:
    """The work of a Crossref `/works/{doi}` answer."""
    message = _json(body, "Crossref").get("message")
    if not isinstance(message, dict):
        raise MetadataError("the Crossref answer has no `message` record")
    pdfs = [
        str(link["URL"])
        for link in _list(message.get("link"))
        if isinstance(link, dict) and link.get("content-type") == "application/pdf" and link.get("URL")
    ]
    abstract = html_lib.unescape(_TAGS.sub(" ", str(message.get("abstract") or "")))
    return PaperMeta(
        title=_first(message.get("title")),
        authors=[p for p in map(_person, _list(message.get("author"))) if p],
        venue=_first(message.get("container-title")),
        work_type=str(message.get("type") or ""),
        published=_crossref_date(message),
        doi=str(message.get("DOI") or ""),
        abstract=" ".join(abstract.split()),
        pdf_urls=pdfs,
    )


def parse_unpaywall(body: bytes) -> list[str]:
    """Open-access PDF URLs from an Unpaywall answer: the best location first."""
    data = _json(body, "Unpaywall")
    locations = [data.get("best_oa_location"), *(data.get("oa_locations") or [])]  # type: ignore[misc]
    urls = [str(loc["url_for_pdf"]) for loc in locations if isinstance(loc, dict) and loc.get("url_for_pdf")]
    return list(dict.fromkeys(urls))


def _metas(tree: lxml.html.HtmlElement, *names: str) -> list[str]:
    wanted = {n.lower() for n in names}
    found = []
    for meta in tree.iter("meta"):
        name = str(meta.get("name") or meta.get("property") or "").lower()
        content = " ".join(str(meta.get("content") or "").split())
        if name in wanted and content:
            found.append(content)
    return found


def landing_meta(page_html: str, page_url: str) -> PaperMeta | None:
    """A landing page's paper metadata from its `citation_*` (Highwire) tags; None when it has none."""
    try:
        tree = lxml.html.fromstring(page_html) if page_html.strip() else None
    except (ParserError, ValueError):
        return None
    if tree is None or not (_metas(tree, "citation_pdf_url") or _metas(tree, "citation_doi")):
        return None
    one = lambda *names: next(iter(_metas(tree, *names)), "")  # noqa: E731
    journal = one("citation_journal_title")
    conference = one("citation_conference_title")
    return PaperMeta(
        title=one("citation_title", "dc.title"),
        authors=_metas(tree, "citation_author") or _metas(tree, "dc.creator"),
        venue=journal or conference,
        work_type="journal-article" if journal else ("proceedings-article" if conference else ""),
        published=_date(one("citation_publication_date", "citation_date", "citation_online_date")),
        doi=one("citation_doi").removeprefix("doi:").strip(),
        arxiv_id=one("citation_arxiv_id"),
        abstract=one("citation_abstract", "dc.description", "description", "og:description"),
        pdf_urls=[urljoin(page_url, u) for u in _metas(tree, "citation_pdf_url")],
    )


def paper_source_type(meta: PaperMeta) -> str:
    """The source type a paper's metadata earns: peer-reviewed, preprint, report-like, or unknown.

    A journal article in a named journal, or a proceedings article, is peer-reviewed (0.9); arXiv
    and Crossref's posted-content are preprints (0.8); books, reports and theses are report-like."""
    if meta.arxiv_id or meta.work_type in ("preprint", "posted-content"):
        return "preprint"
    if (meta.work_type == "journal-article" and meta.venue) or meta.work_type == "proceedings-article":
        return "peer-reviewed"
    if meta.work_type in _REPORT_TYPES:
        return "industry"
    return "unknown"
