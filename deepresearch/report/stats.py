"""Citation statistics for the References section: what the report rests on, in figures."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlsplit

from deepresearch.state.model import Source, TaskDoc, Verified

_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")


@dataclass(frozen=True)
class CitationStats:
    sources_total: int
    sources_cited: int
    facts_total: int
    facts_verified: int
    single_source_facts: int  # facts backed by one independent source (copies of a text count once)
    independent_sources: int  # sources that are not copies of another source's text
    domains_cited: int
    domains_total: int
    authority_cited: dict[str, int]  # source type -> count, most common first
    authority_all: dict[str, int]
    median_age_days_cited: float | None  # None when no cited source has a usable published date
    median_age_days_all: float | None


def parse_date(value: str) -> date | None:
    """A date from ISO text; a bare year counts as its middle (1 July), a year-month as the 15th."""
    match = _DATE.match(value or "")
    if not match:
        return None
    year, month, day = match.groups()
    try:
        if month is None:
            return date(int(year), 7, 1)
        return date(int(year), int(month), int(day) if day else 15)
    except ValueError:
        return None


def domain(url: str) -> str:
    """The host of a URL, lower-case, without a leading www."""
    host = (urlsplit(url.strip()).hostname or "").lower()
    return host.removeprefix("www.")


def source_age_days(source: Source, fallback: date | None) -> int | None:
    """How old the source was when it was accessed (or at `fallback`), in days; None if unknown."""
    published = parse_date(source.published)
    seen = parse_date(source.accessed) or fallback
    if published is None or seen is None:
        return None
    return max(0, (seen - published).days)


def _median_age(sources: list[Source], fallback: date | None) -> float | None:
    ages = [a for a in (source_age_days(s, fallback) for s in sources) if a is not None]
    return float(statistics.median(ages)) if ages else None


def _mix(sources: list[Source]) -> dict[str, int]:
    counts = Counter((s.type or "unknown").strip().lower() or "unknown" for s in sources)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def citation_stats(doc: TaskDoc, cited_ids: list[str]) -> CitationStats:
    """Statistics over all registered sources and over those the report cites."""
    cited = [s for s in (doc.source(i) for i in cited_ids) if s is not None]
    fallback = parse_date(doc.front.updated) or parse_date(doc.front.created)
    return CitationStats(
        sources_total=len(doc.sources),
        sources_cited=len(cited),
        facts_total=len(doc.facts),
        facts_verified=sum(f.verified == Verified.YES for f in doc.facts),
        single_source_facts=sum(len(doc.independent(f.sources)) == 1 for f in doc.facts),
        independent_sources=len(doc.independent([s.id for s in doc.sources])),
        domains_cited=len({domain(s.url) for s in cited if domain(s.url)}),
        domains_total=len({domain(s.url) for s in doc.sources if domain(s.url)}),
        authority_cited=_mix(cited),
        authority_all=_mix(doc.sources),
        median_age_days_cited=_median_age(cited, fallback),
        median_age_days_all=_median_age(doc.sources, fallback),
    )


def age_unit(days: float) -> str:
    """The unit an age reads best in: days under two months, months under two years, then years."""
    return "days" if days < 60 else "months" if days < 730 else "years"


def format_age(days: float | None, unit: str | None = None) -> str:
    """An age for people, in `unit` (days, months or years; default: the one that reads best).
    Ages shown side by side share one unit, so they can be compared at a glance."""
    if days is None:
        return "unknown"
    unit = unit or age_unit(days)
    if unit == "days":
        return f"{days:.0f} day{'s' * (round(days) != 1)}"
    if unit == "months":
        months = days / 30.44
        return f"{months:.0f} month{'s' * (round(months) != 1)}"
    return f"{days / 365.25:.1f} years"


def format_ages(*ages: float | None) -> list[str]:
    """Several ages in the unit that reads best for the largest of them."""
    known = [a for a in ages if a is not None]
    unit = age_unit(max(known)) if known else None
    return [format_age(a, unit) for a in ages]


def share(part: int, whole: int, unit: str = "") -> str:
    """Part of a whole as text, e.g. 3 of 4 facts (75%); no percentage when `whole` is 0."""
    text = f"{part} of {whole} {unit}".rstrip()
    return f"{text} ({100 * part / whole:.0f}%)" if whole else text


@dataclass(frozen=True)
class LanguageShare:
    """What one language gave the research: queries made in it, sources in it, and cited ones."""

    code: str  # "" for sources whose language code could not tell
    planned: bool
    queries: int
    sources: int
    cited: int


def language_shares(doc: TaskDoc, cited_ids: list[str], queries: Mapping[str, int]) -> list[LanguageShare]:
    """Per language: the planned ones first (in plan order), then any other that a query or a
    source is in; `queries` counts the distinct queries per language (from the search log)."""
    planned = [p.code for p in doc.front.languages]
    by_source = Counter(s.language for s in doc.sources)
    cited = Counter(s.language for s in (doc.source(i) for i in set(cited_ids)) if s is not None)
    others = sorted({*queries, *by_source} - set(planned), key=lambda c: (c == "", -by_source[c], c))
    return [
        LanguageShare(code, code in planned, queries.get(code, 0), by_source[code], cited[code])
        for code in [*planned, *others]
        if code in planned or queries.get(code, 0) or by_source[code]
    ]
