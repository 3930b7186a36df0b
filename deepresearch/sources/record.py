"""One archived (or failed) source, as stored in the workspace's source registry (DESIGN.md §6)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
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

FAILURE_KINDS = (
    HTTP_4XX, HTTP_5XX, DNS, CONNECTION, TIMEOUT, REDIRECT_LOOP, NON_TEXT, TOO_LARGE,
    LOGIN_WALL, CAPTCHA, EMPTY, BAD_URL, BROWSER_UNAVAILABLE, INTERNAL,
)  # fmt: skip


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
    sha256: str = ""  # of the main archived file: the .md for web pages, the .pdf for PDFs
    content_sha256: str = ""  # of the content itself (main text, or PDF bytes): used for dedup
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
