"""Evidence weight: authority by type and domain, recency by date and time scope."""

from __future__ import annotations

from datetime import date

import pytest

from deepresearch.sources.weight import (
    authority,
    classify_source_type,
    evidence_weight,
    parse_time_scope,
    recency,
)

TODAY = date(2026, 11, 20)


@pytest.mark.parametrize(
    ("source_type", "url", "expected"),
    [
        ("official", "https://example.org/", 1.0),
        ("unknown", "https://www.energy.gov/report", 1.0),
        ("blog", "https://www.gov.uk/government/news/x", 1.0),  # an official blog is official
        ("unknown", "https://ec.europa.eu/eurostat", 1.0),
        ("unknown", "https://www.who.int/news", 1.0),
        ("unknown", "https://www.ox.ac.uk/research", 1.0),
        ("unknown", "https://mit.edu/", 1.0),
        ("unknown", "https://www.meti.go.jp/", 1.0),
        ("peer-reviewed", "https://example.org/paper", 0.9),
        ("unknown", "https://doi.org/10.1000/xyz", 0.9),
        ("unknown", "https://www.nature.com/articles/x", 0.9),
        ("peer-reviewed", "https://arxiv.org/abs/2401.00001", 0.8),  # preprints are capped
        ("preprint", "https://doi.org/10.1101/2024.01.01.123456", 0.8),  # a preprint's DOI too
        ("preprint", "https://www.nature.com/articles/x", 0.8),  # metadata said posted-content
        ("industry", "https://www.mckinsey.com/x", 0.8),
        ("news", "https://www.reuters.com/x", 0.7),
        ("blog", "https://someone.substack.com/p/x", 0.5),
        ("forum", "https://www.reddit.com/r/x", 0.5),
        ("social", "https://x.com/someone", 0.5),
        ("unknown", "https://example.com/", 0.5),
        ("made-up", "https://example.com/", 0.5),
        ("unknown", "https://go.com/", 0.5),  # "go" is a government label only under a country code
    ],
)
def test_authority(source_type: str, url: str, expected: float) -> None:
    assert authority(source_type, url) == expected


@pytest.mark.parametrize(
    ("url", "title", "hint", "expected"),
    [
        ("https://www.bls.gov/news", "", "", "official"),
        ("https://www.sciencedirect.com/science/article/x", "", "", "peer-reviewed"),
        ("https://example.org/paper", "A study", "doi: 10.1234/abcd.5678", "peer-reviewed"),
        ("https://arxiv.org/abs/2401.00001", "", "", "industry"),
        ("https://www.bbc.co.uk/news/x", "", "", "news"),
        ("https://www.statista.com/x", "", "", "industry"),
        ("https://stackoverflow.com/q/1", "", "", "forum"),
        ("https://forum.example.com/t/1", "", "", "forum"),
        ("https://www.linkedin.com/posts/x", "", "", "social"),
        ("https://blog.example.com/post", "", "", "blog"),
        ("https://example.com/blog/2024/post", "", "", "blog"),
        ("https://example.com/whitepaper", "Industry report 2025", "", "industry"),
        ("https://example.com/about", "About us", "", "unknown"),
    ],
)
def test_classify_source_type(url: str, title: str, hint: str, expected: str) -> None:
    assert classify_source_type(url, title, hint) == expected


@pytest.mark.parametrize(
    ("published", "expected"),
    [
        ("2026-06-01", 1.0),
        ("2026-11-20T10:00:00Z", 1.0),
        ("2027-01-01", 1.0),  # a date after the research date (clock skew) counts as new
        ("2025-06-01", 0.8),
        ("2024-01-01", 0.6),
        ("2022-01-01", 0.6),
        ("2020-06-01", 0.3),
        ("", 0.6),
        ("not a date", 0.6),
        ("2025", 0.8),
    ],
)
def test_recency_against_the_research_date(published: str, expected: float) -> None:
    assert recency(published, TODAY) == expected


@pytest.mark.parametrize(
    ("published", "scope", "expected"),
    [
        ("2018-05-01", "2015-2020", 1.0),
        ("2014-05-01", "2015-2020", 0.8),
        ("2012-05-01", "2015-2020", 0.6),
        ("2005-05-01", "2015-2020", 0.3),
        ("2024-02-01", "since 2023", 1.0),
        ("2021-02-01", "since 2023", 0.6),
        ("2023-02-01", "last 5 years", 1.0),
        ("2020-02-01", "last 5 years", 0.8),
        ("2019-02-01", "worldwide", 0.3),  # no years in the scope: judged against the research date
    ],
)
def test_recency_against_the_time_scope(published: str, scope: str, expected: float) -> None:
    assert recency(published, TODAY, scope) == expected


def test_parse_time_scope() -> None:
    assert parse_time_scope("2020 to 2024", TODAY) == (2020, 2024)
    assert parse_time_scope("the year 2023", TODAY) == (2023, 2023)
    assert parse_time_scope("before 2000", TODAY) == (1800, 2000)
    assert parse_time_scope("past year", TODAY) == (2025, 2026)
    assert parse_time_scope(None, TODAY) is None


def test_evidence_weight() -> None:
    assert evidence_weight(1.0, 1.0) == 1.0
    assert evidence_weight(0.7, 0.6) == 0.66
    assert evidence_weight(0.5, 0.3) == 0.42
