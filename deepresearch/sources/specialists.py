"""From a recognised target (routes.py) to something the registry can store: the one dispatch.

built = built_special(archive_special(target, tools))          # papers, videos, files
built = built_web(fetched, content, fallback)                   # an ordinary page or PDF
record, _ = registry.register(url, built.final_url, built.content_sha256,
                              lambda sid: built.store(ctx, sid, url))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from deepresearch.sources.content import Content
from deepresearch.sources.documents import archive_local, archive_remote_file
from deepresearch.sources.fetch import Fetched
from deepresearch.sources.papers import archive_arxiv, archive_doi
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.routes import Route, Target
from deepresearch.sources.special import SpecialSource, Tools, store_special
from deepresearch.sources.store import StoreContext, store_source
from deepresearch.sources.transcripts import archive_youtube

_HANDLERS: dict[Route, Callable[[str, Tools], SpecialSource]] = {
    Route.ARXIV: archive_arxiv,
    Route.DOI: archive_doi,
    Route.YOUTUBE: archive_youtube,
    Route.LOCAL: archive_local,
    Route.REMOTE_FILE: archive_remote_file,
}
_KINDS = {Route.ARXIV: "paper", Route.DOI: "paper", Route.YOUTUBE: "transcript", Route.LOCAL: "document"}
_KINDS |= {Route.REMOTE_FILE: "document", Route.WEB: "web"}


@dataclass
class Built:
    """A source read and ready to store: its final URL and dedup key, and how to write its files."""

    final_url: str
    content_sha256: str
    store: Callable[[StoreContext, str, str], SourceRecord]  # (context, source ID, URL asked) → record
    fallback: bool = False  # the plain HTTP fallback fetched it


def kind_of(target: Target) -> str:
    """The source kind a target's route leads to (for failed records too)."""
    return _KINDS[target.route]


def archive_special(target: Target, tools: Tools) -> SpecialSource:
    """Read a specialist target by its route (blocking: run it in a worker thread)."""
    return _HANDLERS[target.route](target.key, tools)


def built_special(special: SpecialSource, fallback: bool = False) -> Built:
    """A specialist source, ready to store."""
    return Built(
        special.record.final_url,
        special.content_sha256,
        lambda ctx, source_id, url: store_special(ctx, source_id, url, special),
        fallback,
    )


def built_web(fetched: Fetched, content: Content, fallback: bool) -> Built:
    """A web page or PDF, ready to store."""
    return Built(
        fetched.final_url,
        content.content_sha256,
        lambda ctx, source_id, url: store_source(ctx, source_id, url, fetched, content),
        fallback,
    )
