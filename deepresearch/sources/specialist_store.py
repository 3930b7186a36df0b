"""Specialist sources (papers, transcripts, ebooks, documents): what a route builds, and storing it.

A route (papers.py, transcripts.py, documents.py) returns a `SpecialSource`: a record with the
metadata filled in, the readable text (with position markers), and the original files to keep.
`store_special` writes them under assets/<folder>/ named by source ID, with a header that names the
metadata (read back by `read_header`, e.g. for the report's References), and weighs the source.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from deepresearch.core.clock import iso_seconds, utc_now
from deepresearch.core.config import Config
from deepresearch.core.files import atomic_write
from deepresearch.core.langdetect import detect_language
from deepresearch.core.languages import language_code
from deepresearch.sources.content import sha256_hex
from deepresearch.sources.fetch import Fetched, http_fetch
from deepresearch.sources.netguard import HostPolicy
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.scholarly import base_url
from deepresearch.sources.store import StoreContext, flag_injection
from deepresearch.sources.weight import authority, evidence_weight, recency

_HEADER_LINE = re.compile(r"^- ([A-Za-z][A-Za-z -]*): (.*)$")
_POSITIONS_NOTE = {
    "page": "`<!-- page N -->` marks where each page of the PDF starts",
    "time": "`<!-- t=SECONDSs -->` marks when each caption starts in the video",
    "chapter": "`<!-- chapter N: title -->` marks where each chapter starts",
}


@dataclass
class Tools:
    """What a route may use: settings, the environment, plain HTTP, and the page fetcher."""

    config: Config
    environ: Mapping[str, str]
    page: Callable[[str], Fetched]  # a web page (through the browser when one runs), from a worker thread
    guard: HostPolicy  # the hosts archiving may reach
    provided: bool = False  # archiving the person's own documents

    def http(self, url: str) -> Fetched:
        """GET `url` over plain HTTP with the archive timeout, size cap and host policy (raises
        FetchFailure)."""
        return http_fetch(url, self.config.archive_timeout, self.config.archive_max_bytes, self.guard)

    def base(self, service: str) -> str:
        """The base URL of a service (arxiv, crossref, unpaywall, doi, youtube)."""
        return base_url(self.config.source_base_urls, service)


@dataclass
class SpecialSource:
    """A source a route has read: record template, readable text, and the originals to keep."""

    record: SourceRecord  # kind, title, final_url, published, metadata and source_type filled in
    folder: str  # the asset kind it is stored under: pdf | transcripts | ebook | web
    slug: str  # file name after the source ID: S07-<slug>.md
    text: str  # the readable text, with position markers
    content_sha256: str  # dedup key
    originals: dict[str, bytes] = field(default_factory=dict)  # suffix → bytes: {".pdf": ...}
    authority: float | None = None  # instead of the type's authority (the person's documents)


def _header(record: SourceRecord, url: str) -> list[str]:
    lines = [f"# {record.title or record.final_url}", "", f"- Source: {record.id}", f"- Kind: {record.kind}"]
    lines.append(f"- URL: {record.final_url}")
    if url != record.final_url:
        lines.append(f"- Requested URL: {url}")
    label = "Channel" if record.kind == "transcript" else "Authors"
    rows = [
        (label, "; ".join(record.authors)),
        ("Venue", record.venue),
        ("DOI", record.doi),
        ("arXiv", record.arxiv_id),
        ("PDF URL", record.pdf_url),
        ("Captions", f"{record.captions} ({record.language})" if record.captions else ""),
        ("Abstract only", "yes — no open-access PDF was found; only the abstract is archived"
         if record.abstract_only else ""),
        ("Provided", "yes — one of the documents you provided" if record.provided else ""),
    ]  # fmt: skip
    lines += [f"- {name}: {value}" for name, value in rows if value]
    lines += [f"- Fetched: {record.fetched}", f"- Published: {record.published or 'unknown'}"]
    if record.positions in _POSITIONS_NOTE:
        lines.append(f"- Positions: {_POSITIONS_NOTE[record.positions]}")
    return lines


def markdown_special(record: SourceRecord, url: str, text: str) -> str:
    """The readable archive of a specialist source: its metadata header, then the text verbatim."""
    return "\n".join([*_header(record, url), "", "---", "", text.rstrip(), ""])


def read_header(text: str) -> dict[str, str]:
    """The `- Key: value` lines of an archive's header (before its `---`), keys in lower case."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if line.strip() == "---":
            break
        match = _HEADER_LINE.match(line)
        if match:
            found[match.group(1).strip().lower()] = match.group(2).strip()
    return found


def store_special(ctx: StoreContext, source_id: str, url: str, special: SpecialSource) -> SourceRecord:
    """Write the source's files for `source_id` and return its archived, weighed record."""
    ws = ctx.workspace
    folder = ws.asset_dir(special.folder)
    stem = f"{source_id}-{special.slug}"
    record = dataclasses.replace(special.record, url=url, id=source_id, fetched=iso_seconds(utc_now()))
    record.content_sha256 = special.content_sha256
    record.fallback, record.warning = ctx.fallback, "; ".join(w for w in (ctx.warning, record.warning) if w)
    for suffix, data in special.originals.items():
        atomic_write(folder / f"{stem}{suffix}", data, durable=False)
        if suffix == ".pdf":
            record.pdf_path = ws.relative(folder / f"{stem}{suffix}")
        elif suffix in (".html", ".htm"):
            record.html_path = ws.relative(folder / f"{stem}{suffix}")
    markdown = markdown_special(record, url, special.text).encode("utf-8")
    atomic_write(folder / f"{stem}.md", markdown, durable=False)
    # The SHA-256 is of the file task.md names (the .md), so `deepresearch check` can compare it.
    record.archive, record.sha256 = ws.relative(folder / f"{stem}.md"), sha256_hex(markdown)
    if special.authority is not None:
        record.authority = special.authority
    else:
        record.authority = authority(record.source_type, record.final_url)
    record.recency = recency(record.published, ctx.research_date, ctx.time_scope)
    record.weight = evidence_weight(record.authority, record.recency)
    record.language = text_language(record.language, special.text)
    # A transcript, paper or document may address AI agents as well as a web page can.
    flag_injection(record, special.text)
    return record


def text_language(declared: str, text: str) -> str:
    """A source's language: the one it declares (a transcript's captions, an EPUB's metadata) when
    deepresearch knows it, else the one detected in its text."""
    try:
        return language_code(declared) if declared.strip() else detect_language(text)
    except ValueError:
        return detect_language(text)
