"""Each provider against the local server speaking its documented format, and every failure class."""

from __future__ import annotations

import json

import pytest

from deepresearch.search.model import ErrorKind, ProviderError
from deepresearch.search.providers import PROVIDER_CLASSES
from deepresearch.search.providers.duckduckgo import parse_results, unwrap_redirect
from tests.search.search_mock_server import MockProviders, closed_port

TIMEOUT = 1.0


@pytest.mark.parametrize("name", list(PROVIDER_CLASSES))
def test_provider_parses_its_documented_answer(server: MockProviders, name: str) -> None:
    provider = PROVIDER_CLASSES[name](base_url=server.base_url(name), api_key=f"test-key-{name}")
    results = provider.search("solar panel efficiency", 3, TIMEOUT)
    assert [r.url for r in results] == [f"https://example.org/{name}/{i}" for i in (1, 2, 3)]
    assert [r.rank for r in results] == [1, 2, 3]
    assert results[0].title == f"{name} result 1"
    assert results[0].snippet == "about 1"
    assert {r.provider for r in results} == {name}
    assert server.hits[name] == 1


def test_requests_follow_each_documented_format(server: MockProviders) -> None:
    for name in PROVIDER_CLASSES:
        PROVIDER_CLASSES[name](base_url=server.base_url(name), api_key=f"test-key-{name}").search("q x", 4, 1)
    seen = {r.provider: r for r in server.requests}
    assert json.loads(seen["serper"].body) == {"q": "q x", "num": 4}
    assert seen["serper"].headers["x-api-key"] == "test-key-serper"
    tavily = json.loads(seen["tavily"].body)
    assert (tavily["query"], tavily["max_results"]) == ("q x", 4)
    assert seen["tavily"].headers["authorization"] == "Bearer test-key-tavily"
    exa = json.loads(seen["exa"].body)
    assert (exa["query"], exa["numResults"], "text" in exa["contents"]) == ("q x", 4, True)
    assert seen["brave"].method == "GET"
    assert seen["brave"].query == {"q": ["q x"], "count": ["4"]}
    assert seen["brave"].headers["x-subscription-token"] == "test-key-brave"
    assert seen["duckduckgo"].method == "POST"
    assert seen["duckduckgo"].body == b"q=q+x"


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        ("429", ErrorKind.RATE_LIMITED),
        ("401", ErrorKind.AUTH),
        ("500", ErrorKind.SERVER),
        ("hang", ErrorKind.TIMEOUT),
        ("garbage", ErrorKind.BAD_RESPONSE),
    ],
)
def test_failures_are_classified(server: MockProviders, mode: str, kind: ErrorKind) -> None:
    server.script("tavily", mode)
    provider = PROVIDER_CLASSES["tavily"](base_url=server.base_url("tavily"), api_key="test-key-tavily")
    with pytest.raises(ProviderError) as caught:
        provider.search("anything", 5, TIMEOUT)
    assert caught.value.kind is kind
    assert caught.value.provider == "tavily"


def test_a_wrong_key_is_an_auth_failure(server: MockProviders) -> None:
    provider = PROVIDER_CLASSES["serper"](base_url=server.base_url("serper"), api_key="not-the-key")
    with pytest.raises(ProviderError) as caught:
        provider.search("anything", 5, TIMEOUT)
    assert caught.value.kind is ErrorKind.AUTH


def test_nothing_listening_is_unreachable() -> None:
    provider = PROVIDER_CLASSES["brave"](base_url=f"http://127.0.0.1:{closed_port()}", api_key="k")
    with pytest.raises(ProviderError) as caught:
        provider.search("anything", 5, TIMEOUT)
    assert caught.value.kind is ErrorKind.UNREACHABLE


def test_an_empty_duckduckgo_page_is_a_bad_response(server: MockProviders) -> None:
    with pytest.raises(ProviderError) as caught:
        parse_results(b"", 5)
    assert caught.value.kind is ErrorKind.BAD_RESPONSE


def test_duckduckgo_skips_ads_and_unwraps_redirects(server: MockProviders) -> None:
    hits = [("Paper <one>", "https://journal.example/a?x=1&y=2", "First & best")]
    server.script("duckduckgo", hits=hits)
    provider = PROVIDER_CLASSES["duckduckgo"](base_url=server.base_url("duckduckgo"))
    results = provider.search("q", 10, TIMEOUT)
    assert [(r.title, r.url, r.snippet, r.rank) for r in results] == [
        ("Paper <one>", "https://journal.example/a?x=1&y=2", "First & best", 1)
    ]


def test_unwrap_redirect_leaves_direct_links_alone() -> None:
    assert (
        unwrap_redirect("//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fp&rut=z") == "https://a.example/p"
    )
    assert unwrap_redirect("https://b.example/q") == "https://b.example/q"


def test_keyed_providers_need_their_key_set() -> None:
    serper = PROVIDER_CLASSES["serper"]()
    assert not serper.available({})
    assert not serper.available({"SERPER_API_KEY": "  "})
    assert serper.available({"SERPER_API_KEY": "abc"})
    assert PROVIDER_CLASSES["duckduckgo"]().available({})


def test_results_are_cut_at_k_and_non_web_links_dropped(server: MockProviders) -> None:
    hits = [
        ("ftp", "ftp://files.example/x", ""),
        *[(f"t{i}", f"https://e.example/{i}", "") for i in range(8)],
    ]
    server.script("exa", hits=hits)
    provider = PROVIDER_CLASSES["exa"](base_url=server.base_url("exa"), api_key="test-key-exa")
    results = provider.search("q", 3, TIMEOUT)
    assert [r.url for r in results] == ["https://e.example/0", "https://e.example/1", "https://e.example/2"]
