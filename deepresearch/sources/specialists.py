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
from deepresearch.sources.fetch import Fetched
from deepresearch.sources.positions import strip_markers
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.routes import Route, Target
from deepresearch.sources.specialist_store import SpecialSource, Tools, store_special
from deepresearch.sources.store import StoreContext, store_source

_KINDS = {Route.ARXIV: "paper", Route.DOI: "paper", Route.YOUTUBE: "transcript", Route.LOCAL: "document"}
_KINDS |= {Route.REMOTE_FILE: "document", Route.WEB: "web"}


@dataclass
class Built:
    """A source read and ready to store: its final URL and dedup key, and how to write its files."""

    final_url: str
    content_sha256: str
    store: Callable[[StoreContext, str, str], SourceRecord]  # (context, source ID, URL asked) → record
    fallback: bool = False  # the plain HTTP fallback fetched it
    text: str = ""  # the main text, for copy detection (not the page's navigation)


def kind_of(target: Target) -> str:
    """The source kind a target's route leads to (for failed records too)."""
    return _KINDS[target.route]


def _handler(route: Route) -> Callable[[str, Tools], SpecialSource]:
    # Imported on demand: each `deepresearch archive` is a new process, and most archive web pages
    # only; requests/youtube-transcript-api and python-docx load when a video or a file needs them.
    if route is Route.YOUTUBE:
        from deepresearch.sources.transcripts import archive_youtube

        return archive_youtube
    if route in (Route.LOCAL, Route.REMOTE_FILE):
        from deepresearch.sources.documents import archive_local, archive_remote_file

        return archive_local if route is Route.LOCAL else archive_remote_file
    from deepresearch.sources.papers import archive_arxiv, archive_doi

    return archive_arxiv if route is Route.ARXIV else archive_doi


def archive_special(target: Target, tools: Tools) -> SpecialSource:
    """Read a specialist target by its route (blocking: run it in a worker thread)."""
    if target.route is Route.WEB:
        raise ValueError("a web page has no specialist route")
    return _handler(target.route)(target.key, tools)


def built_special(special: SpecialSource, fallback: bool = False) -> Built:
    """A specialist source, ready to store."""
    return Built(
        special.record.final_url,
        special.content_sha256,
        lambda ctx, source_id, url: store_special(ctx, source_id, url, special),
        fallback,
        strip_markers(special.text),  # page and time markers are not the text
    )


def built_web(fetched: Fetched, content: Content, fallback: bool) -> Built:
    """A web page or PDF, ready to store."""
    return Built(
        fetched.final_url,
        content.content_sha256,
        lambda ctx, source_id, url: store_source(ctx, source_id, url, fetched, content),
        fallback,
        content.text,
    )
