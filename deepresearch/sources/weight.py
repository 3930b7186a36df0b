"""Evidence weight W = 0.6·authority + 0.4·recency (docs/architecture.md: Layers, sources): pure
functions, no I/O.

Authority by source type, raised by the domain when it is plainly official or a journal:
official (.gov, .gov.xx, .mil, .edu, .ac.xx, .int, gov.uk, europa.eu, intergovernmental bodies) 1.0;
peer-reviewed (journals, doi.org) 0.9; industry report 0.8; major news 0.7; blog, forum, social 0.5;
unknown 0.5. Preprint servers (arXiv, bioRxiv, medRxiv, SSRN) are *not* peer review: they are
classified as report-like research (`industry`, 0.8) and capped at 0.8 whatever type an agent gave.

Recency of the published date against the question's time scope when one is given (inside it 1.0),
else against the research date: under a year 1.0, 1-2 years 0.8, 2-5 years 0.6, 5+ years (clearly
outdated) 0.3; a date outside the time scope is aged from the scope's nearest edge. No published
date: 0.6, neither rewarded nor written off.
"""

from __future__ import annotations

import re
from datetime import date
from urllib.parse import urlsplit

SOURCE_TYPES = (
    "official", "peer-reviewed", "preprint", "industry", "news", "blog", "forum", "social", "unknown",
)  # fmt: skip
TYPE_AUTHORITY = {
    "official": 1.0,
    "peer-reviewed": 0.9,
    "preprint": 0.8,  # a paper archived from arXiv or as Crossref posted-content: not (yet) reviewed
    "industry": 0.8,
    "news": 0.7,
    "blog": 0.5,
    "forum": 0.5,
    "social": 0.5,
    "unknown": 0.5,
}
UNKNOWN_RECENCY = 0.6
PREPRINT_CAP = 0.8

_OFFICIAL_SUFFIXES = ("gov", "mil", "edu", "int")  # .gov, .gov.uk, .edu.au, .mil ...
_OFFICIAL_LABELS = ("gov", "gouv", "gob", "govt", "go", "mil", "edu", "ac")  # second level: gov.uk, ac.jp
_OFFICIAL_DOMAINS = (
    "europa.eu", "un.org", "worldbank.org", "imf.org", "oecd.org", "wto.org", "bis.org", "ecb.europa.eu",
    "bund.de", "admin.ch", "gc.ca", "canada.ca", "gouvernement.fr", "service-public.fr",
)  # fmt: skip
_JOURNAL_DOMAINS = (
    "doi.org", "nature.com", "science.org", "sciencedirect.com", "springer.com", "wiley.com",
    "nejm.org", "thelancet.com", "jamanetwork.com", "bmj.com", "cell.com", "plos.org", "pnas.org",
    "ieee.org", "acm.org", "mdpi.com", "frontiersin.org", "tandfonline.com", "sagepub.com",
    "jstor.org", "academic.oup.com", "pubmed.ncbi.nlm.nih.gov", "aps.org", "acs.org", "iop.org",
)  # fmt: skip
_PREPRINT_DOMAINS = ("arxiv.org", "biorxiv.org", "medrxiv.org", "ssrn.com", "researchgate.net", "osf.io")
_INDUSTRY_DOMAINS = (
    "mckinsey.com", "gartner.com", "statista.com", "pwc.com", "deloitte.com", "bcg.com", "idc.com",
    "forrester.com", "accenture.com", "kpmg.com", "ey.com", "bain.com", "bloombergnef.com",
)  # fmt: skip
_NEWS_DOMAINS = (
    "reuters.com", "apnews.com", "bbc.com", "bbc.co.uk", "nytimes.com", "wsj.com", "ft.com",
    "bloomberg.com", "theguardian.com", "washingtonpost.com", "economist.com", "cnn.com", "npr.org",
    "aljazeera.com", "lemonde.fr", "spiegel.de", "nikkei.com", "afp.com", "axios.com", "politico.com",
    "cnbc.com", "latimes.com", "theatlantic.com", "elpais.com", "faz.net", "asahi.com",
)  # fmt: skip
_FORUM_DOMAINS = ("reddit.com", "stackoverflow.com", "stackexchange.com", "quora.com", "news.ycombinator.com")
_SOCIAL_DOMAINS = (
    "twitter.com", "x.com", "facebook.com", "instagram.com", "linkedin.com", "tiktok.com",
    "youtube.com", "threads.net", "bsky.app", "mastodon.social", "t.me", "weibo.com",
)  # fmt: skip
_BLOG_DOMAINS = ("medium.com", "substack.com", "wordpress.com", "blogspot.com", "dev.to", "hashnode.dev")


def _host(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


def _on(host: str, domains: tuple[str, ...]) -> bool:
    return any(host == d or host.endswith("." + d) for d in domains)


def is_official_domain(url: str) -> bool:
    """True for government, military, academic and intergovernmental hosts."""
    host = _host(url)
    labels = host.split(".")
    if len(labels) < 2:
        return False
    if labels[-1] in _OFFICIAL_SUFFIXES:
        return True
    if len(labels[-1]) == 2 and labels[-2] in _OFFICIAL_LABELS:  # gov.uk, ac.jp, gob.mx: ccTLD + label
        return True
    return _on(host, _OFFICIAL_DOMAINS)


def is_preprint(url: str) -> bool:
    """True for preprint servers, whose papers have not (yet) been peer reviewed."""
    return _on(_host(url), _PREPRINT_DOMAINS)


def classify_source_type(url: str, title: str = "", text_hint: str = "") -> str:
    """The source type from the domain first, then from hints in the URL path, title and text."""
    host = _host(url)
    path = urlsplit(url).path.lower()
    for domains, kind in (
        (_JOURNAL_DOMAINS, "peer-reviewed"),
        (_PREPRINT_DOMAINS, "industry"),
        (_NEWS_DOMAINS, "news"),
        (_INDUSTRY_DOMAINS, "industry"),
        (_FORUM_DOMAINS, "forum"),
        (_SOCIAL_DOMAINS, "social"),
        (_BLOG_DOMAINS, "blog"),
    ):
        if _on(host, domains):
            return kind
    if is_official_domain(url):
        return "official"
    hint = f"{title}\n{text_hint[:2000]}".lower()
    if host.startswith(("forum.", "forums.", "community.", "discuss.")) or "/forum" in path:
        return "forum"
    if host.startswith("blog.") or "/blog" in path:
        return "blog"
    if re.search(r"\bdoi:\s*10\.\d{4,}|\bjournal of\b|\bpeer[- ]reviewed\b", hint):
        return "peer-reviewed"
    if re.search(r"\b(white ?paper|industry report|market report)\b", hint):
        return "industry"
    return "unknown"


def authority(source_type: str, url: str) -> float:
    """Authority in 0..1 from the type, raised by an official or journal domain, capped for preprints."""
    score = TYPE_AUTHORITY.get(source_type, TYPE_AUTHORITY["unknown"])
    if is_official_domain(url):
        score = max(score, TYPE_AUTHORITY["official"])
    elif _on(_host(url), _JOURNAL_DOMAINS):
        score = max(score, TYPE_AUTHORITY["peer-reviewed"])
    if is_preprint(url) or source_type == "preprint":  # a preprint's DOI resolves on doi.org too
        score = min(score, PREPRINT_CAP)
    return score


def parse_published(published: str) -> date | None:
    """An ISO date (or date-time, or year-month, or year) as a date; None when unreadable."""
    match = re.match(r"\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?", published or "")
    if not match:
        return None
    year, month, day = int(match.group(1)), int(match.group(2) or 1), int(match.group(3) or 1)
    try:
        return date(year, month, day)
    except ValueError:
        return None


def parse_time_scope(time_scope: str | None, research_date: date) -> tuple[int, int] | None:
    """The (first, last) year a time scope covers: '2020-2024', 'since 2021', '2023', 'last 3 years'."""
    text = (time_scope or "").lower()
    relative = re.search(r"\b(?:last|past|previous)\s+(\d+)\s+years?\b", text)
    if relative:
        return research_date.year - int(relative.group(1)), research_date.year
    if re.search(r"\b(?:last|past) (?:year|12 months)\b", text):
        return research_date.year - 1, research_date.year
    years = [int(y) for y in re.findall(r"\b(1[89]\d\d|2\d\d\d)\b", text)]
    if not years:
        return None
    if len(years) == 1 and re.search(r"\b(since|from|after|onwards?)\b", text):
        return years[0], research_date.year
    if len(years) == 1 and re.search(r"\b(before|until|up to)\b", text):
        return 1800, years[0]
    return min(years), max(years)


def _age_score(years: float) -> float:
    if years < 1:
        return 1.0
    if years < 2:
        return 0.8
    if years < 5:
        return 0.6
    return 0.3


def recency(published: str, research_date: date, time_scope: str | None = None) -> float:
    """Recency in 0..1 of a published date, against the time scope if any, else the research date."""
    when = parse_published(published)
    if when is None:
        return UNKNOWN_RECENCY
    scope = parse_time_scope(time_scope, research_date)
    if scope is not None:
        first, last = scope
        if first <= when.year <= last:
            return 1.0
        distance = first - when.year if when.year < first else when.year - last
        return _age_score(float(distance))
    age_days = (research_date - when).days
    return _age_score(max(age_days, 0) / 365.25)


def evidence_weight(authority_score: float, recency_score: float) -> float:
    """W = 0.6·authority + 0.4·recency, rounded to 3 decimals."""
    return round(0.6 * authority_score + 0.4 * recency_score, 3)
