"""One archived (or failed) source, as stored in the workspace's source registry.

(docs/architecture.md: Layers, sources.)"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from deepresearch.core.clock import iso_seconds, utc_now

ARCHIVED = "archived"
FAILED = "failed"

# Failure kinds: each names what went wrong so an agent (or a person) knows what to do next.
HTTP_4XX = "http_4xx"
HTTP_5XX = "http_5xx"
DNS = "dns"
CONNECTION = "connection"  # refused, reset, TLS, any other network error
TIMEOUT = "timeout"
REDIRECT_LOOP = "redirect_loop"
NON_TEXT = "non_text"  # an image, archive, executable...: nothing to read or quote
TOO_LARGE = "too_large"
LOGIN_WALL = "login_wall"
CAPTCHA = "captcha"
EMPTY = "empty"  # the page rendered but holds no readable text
BAD_URL = "bad_url"
BROWSER_UNAVAILABLE = "browser_unavailable"
INTERNAL = "internal"  # a bug in the archiver; the message says what
UNSUPPORTED = "unsupported"  # a local file of a kind that is not archived (or not allowed)
BLOCKED = "blocked"  # a host that is not on the public web (sources/netguard.py), said why

FAILURE_KINDS = (
    HTTP_4XX, HTTP_5XX, DNS, CONNECTION, TIMEOUT, REDIRECT_LOOP, NON_TEXT, TOO_LARGE,
    LOGIN_WALL, CAPTCHA, EMPTY, BAD_URL, BROWSER_UNAVAILABLE, INTERNAL, UNSUPPORTED, BLOCKED,
)  # fmt: skip

# What a source is: a web page, a PDF on the web, a paper (arXiv, DOI, a publisher's landing page),
# a video transcript, an ebook, or a document (a local file, or one of the person's own).
SOURCE_KINDS = ("web", "pdf", "paper", "transcript", "ebook", "document")


@dataclass
class SourceRecord:
    """A source's registry entry. `id` is empty for failures: failed fetches take no source ID."""

    url: str  # as asked
    id: str = ""  # S01, S02, ... (S100 after S99)
    final_url: str = ""  # after redirects
    title: str = ""
    http_status: int | None = None
    content_type: str = ""  # MIME type without parameters
    fetched: str = ""  # ISO 8601 UTC
    published: str = ""  # ISO date the source declares, or ""
    # The one hash rule: `sha256` is of the file `archive` names (the readable .md, for PDFs too),
    # the same file task.md's Archive column names and `deepresearch check` hashes.
    sha256: str = ""
    content_sha256: str = ""  # of the content itself (main text, or PDF/file bytes): used for dedup
    archive: str = ""  # readable text, relative to the workspace: assets/web/S07-example-com.md
    html_path: str = ""
    pdf_path: str = ""
    screenshot_path: str = ""
    source_type: str = "unknown"
    authority: float | None = None
    recency: float | None = None
    weight: float | None = None
    status: str = ARCHIVED
    error: str = ""  # one of FAILURE_KINDS when status is failed
    message: str = ""  # what failed, for people
    fallback: bool = False  # plain HTTP was used because no browser could be launched
    warning: str = ""
    kind: str = "web"  # one of SOURCE_KINDS
    authors: list[str] = field(default_factory=list)  # a paper's authors, a video's channel
    venue: str = ""  # journal or conference; "YouTube" for videos
    doi: str = ""
    arxiv_id: str = ""
    abstract_only: bool = False  # a paper with no open-access PDF: only its abstract is archived
    provided: bool = False  # one of the person's own documents (`documents:`)
    positions: str = ""  # what the archived text marks for quotes: page | time | chapter
    language: str = ""  # of the archived text (a transcript: of its captions), a code such as de
    captions: str = ""  # a transcript's captions: manual | automatic
    pdf_url: str = ""  # where a paper's PDF was downloaded from
    copy_of: str = ""  # the earlier-published source whose main text this one repeats (copies.py)
    renews: str = ""  # the earlier archive of the same URL this one replaced (a stale source, again)
    flags: list[str] = field(default_factory=list)  # suspicious: instructions aimed at AI agents
    task: str = ""  # the executor task that archived it (core.attribution), "" when archived by hand
    batch: int | None = None  # and the Top-K batch it was archived in

    @property
    def ok(self) -> bool:
        """True when the source is archived and can be cited."""
        return self.status == ARCHIVED

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with every field."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SourceRecord:
        """A record from `to_dict()` output; unknown keys (from newer versions) are ignored."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    @classmethod
    def failure(cls, url: str, kind: str, message: str, **fields: Any) -> SourceRecord:
        """A failed record for `url` with its kind and message, fetched now."""
        return cls(
            url=url, status=FAILED, error=kind, message=message, fetched=iso_seconds(utc_now()), **fields
        )
