"""What the orchestrator calls between phases: archive what executors cited but did not archive,
check quotes, and turn registry records into task.md Source rows.

    records = archive_missing(workspace, config, cited_urls)      # {url: SourceRecord}
    ok = verify_quote_for(workspace, records[url], fact.quote)     # → Fact.verified yes/no
    text = passage_for(workspace, records[url], fact.quote)        # the archive around the quote
    doc.sources.append(record_to_source(records[url]))             # when its ID is new to task.md

The registry (`SourceRegistry(workspace).archived()`) lists every archived source with its ID;
the orchestrator adds to task.md the ones it does not hold yet.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import date

from deepresearch.core.config import Config
from deepresearch.core.events import EventSink
from deepresearch.core.workspace import Workspace
from deepresearch.sources.quotes import archived_passage, verify_fact_quote
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry
from deepresearch.state.model import Fact, Source, Verified


def archive_missing(
    workspace: Workspace,
    config: Config,
    urls: list[str],
    *,
    sink: EventSink | None = None,
    research_date: date | None = None,
    archive: Callable[[list[str]], list[SourceRecord]] | None = None,
) -> dict[str, SourceRecord]:
    """A record for every URL: the registry's when archived already, else archived now (or failed),
    by `archive` when given (the run's tool service, with the run's browser), else by an Archiver
    of its own. A browser is launched only when some URL is not in the registry yet.
    """
    registry = SourceRegistry(workspace)
    found = {url: record for url in urls if (record := registry.lookup(url)) is not None}
    missing = [url for url in dict.fromkeys(urls) if url not in found]
    if missing and archive is not None:
        found.update(zip(missing, archive(missing), strict=True))
    elif missing:
        from deepresearch.sources.archive import Archiver  # Playwright loads only when needed

        # Never local files: the orchestrator runs outside the agents' sandbox, and a file:// URL an
        # agent cites (perhaps told to by a web page) must not pull a private file into the report.
        with Archiver(
            workspace, config, sink=sink, research_date=research_date, local_files=False
        ) as archiver:
            found.update(zip(missing, archiver.archive_many(missing), strict=True))
    return {url: found[url] for url in urls}


def verify_quote_for(workspace: Workspace, record: SourceRecord, quote: str) -> bool:
    """True when `quote` is found in the record's archived text (normalised, slightly fuzzy)."""
    return verify_fact_quote(workspace, record, quote).verified is Verified.YES


ABSTRACT_ONLY = "(abstract only)"


def passage_for(workspace: Workspace, record: SourceRecord, quote: str) -> str | None:
    """The archived text around `quote` in the record's archive (None: quote or archive not found)."""
    return archived_passage(workspace, record, quote)


def record_to_source(record: SourceRecord) -> Source:
    """The task.md Sources row for an archived record (final URL, type, dates, authority, archive,
    language).

    A paper archived without its full text says so in its title (`… (abstract only)`): every fact
    citing it, in task.md and in the report's References, then shows where it came from."""
    title = record.title
    if record.abstract_only and ABSTRACT_ONLY not in title:
        title = f"{title} {ABSTRACT_ONLY}"
    return Source(
        id=record.id,
        title=title,
        url=record.final_url or record.url,
        type=record.source_type,
        published=record.published,
        accessed=record.fetched,
        authority=record.authority,
        archive=record.archive,
        sha256=record.sha256,
        copy_of=record.copy_of,
        flags=list(record.flags),
        language=record.language,
    )


def mark_abstract_only(fact: Fact, records: dict[str, SourceRecord]) -> Fact:
    """The fact with `(abstract only)` at the end of its statement when every archived source it cites
    is a paper archived without its full text: the claim rests on an abstract, and says so wherever
    it goes (task.md, the synthesizer's prompt, the report)."""
    cited = [records[s] for s in fact.sources if s in records]
    if not cited or not all(r.abstract_only for r in cited) or ABSTRACT_ONLY in fact.statement:
        return fact
    text = fact.statement.rstrip()
    end = text[-1] if text and text[-1] in ".!?。" else ""
    return dataclasses.replace(fact, statement=f"{text.removesuffix(end)} {ABSTRACT_ONLY}{end}")
