"""chain, race and batch over real providers talking to the local server."""

from __future__ import annotations

from deepresearch.search.model import ErrorKind, Provider, SearchResult
from deepresearch.search.providers import PROVIDER_CLASSES
from deepresearch.search.strategies import batch, chain, merge, race
from tests.search.search_mock_server import MockProviders

TIMEOUT = 1.0


def providers(server: MockProviders, *names: str) -> list[Provider]:
    return [PROVIDER_CLASSES[n](base_url=server.base_url(n), api_key=f"test-key-{n}") for n in names]


def test_chain_falls_through_a_429_and_a_timeout(server: MockProviders) -> None:
    server.script("serper", "429")
    server.script("tavily", "hang")
    results, attempts = chain(providers(server, "serper", "tavily", "exa", "brave"), "q", 5, TIMEOUT)
    assert {r.provider for r in results} == {"exa"}
    assert [(a.provider, a.error.kind if a.error else None) for a in attempts] == [
        ("serper", ErrorKind.RATE_LIMITED),
        ("tavily", ErrorKind.TIMEOUT),
        ("exa", None),
    ]
    assert "rate limited (HTTP 429)" in attempts[0].describe()
    assert server.hits["brave"] == 0  # the chain stops at the first answer


def test_chain_passes_over_a_provider_without_results(server: MockProviders) -> None:
    server.script("serper", "empty")
    results, attempts = chain(providers(server, "serper", "duckduckgo"), "q", 5, TIMEOUT)
    assert {r.provider for r in results} == {"duckduckgo"}
    assert [a.describe() for a in attempts] == ["serper: 0 results", "duckduckgo: 5 results"]


def test_chain_reports_every_failure_when_none_answers(server: MockProviders) -> None:
    server.script("serper", "500")
    server.script("brave", "garbage")
    results, attempts = chain(providers(server, "serper", "brave"), "q", 5, TIMEOUT)
    assert results == []
    assert [a.error.kind for a in attempts if a.error] == [ErrorKind.SERVER, ErrorKind.BAD_RESPONSE]


def test_race_returns_the_first_success_without_waiting_for_a_slow_provider(server: MockProviders) -> None:
    server.script("serper", "hold")  # answers only when released, after race has returned
    server.script("tavily", "429")
    results, attempts = race(providers(server, "serper", "tavily", "brave"), "q", 5, TIMEOUT)
    assert {r.provider for r in results} == {"brave"}
    assert server.wait_pending("serper") == 1  # asked, still unanswered: race did not wait for it
    assert "serper" not in {a.provider for a in attempts}
    server.release.set()


def test_race_reports_all_failures(server: MockProviders) -> None:
    server.script("serper", "401")
    server.script("exa", "hang")
    results, attempts = race(providers(server, "serper", "exa"), "q", 5, TIMEOUT)
    assert results == []
    assert {a.provider: a.error.kind for a in attempts if a.error} == {
        "serper": ErrorKind.AUTH,
        "exa": ErrorKind.TIMEOUT,
    }


def test_batch_merges_interleaved_and_deduplicates_by_normalised_url(server: MockProviders) -> None:
    server.script(
        "serper",
        hits=[
            ("A", "https://a.example/x", "sa"),
            ("B", "https://b.example/", "sb"),
            ("C", "https://c.example", ""),
        ],
    )
    server.script(
        "brave",
        hits=[
            ("A again", "https://www.A.example/x/?utm_source=feed#top", "ba"),  # same page as serper's A
            ("D", "https://d.example/", "bd"),
            ("B again", "http://b.example:80/?ref=x", "bb"),  # scheme differs: a different URL
        ],
    )
    server.script("tavily", "500")
    results, attempts = batch(providers(server, "serper", "tavily", "brave"), "q", 10, TIMEOUT)
    assert [(r.title, r.provider, r.rank) for r in results] == [
        ("A", "serper", 1),
        ("B", "serper", 2),
        ("D", "brave", 3),
        ("C", "serper", 4),
        ("B again", "brave", 5),
    ]
    assert [a.provider for a in attempts] == ["serper", "tavily", "brave"]
    assert not attempts[1].ok


def test_merge_stops_at_k() -> None:
    first = [SearchResult(f"t{i}", f"https://x.example/{i}", "", "serper", i) for i in range(1, 4)]
    second = [SearchResult(f"u{i}", f"https://y.example/{i}", "", "exa", i) for i in range(1, 4)]
    assert [r.url for r in merge([first, second], 3)] == [
        "https://x.example/1",
        "https://y.example/1",
        "https://x.example/2",
    ]
