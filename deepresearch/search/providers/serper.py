"""Serper (Google results): POST /search {"q", "num"} with X-API-KEY; hits in organic[]."""

from __future__ import annotations

from deepresearch.search.model import SearchResult
from deepresearch.search.providers.base import ApiProvider, shape
from deepresearch.search.transport import fetch_json, result_list


class Serper(ApiProvider):
    """google.serper.dev: organic[] items carry title, link, snippet."""

    name = "serper"
    key_env = "SERPER_API_KEY"
    default_base_url = "https://google.serper.dev"
    path = "/search"

    def search(self, query: str, k: int, timeout: float) -> list[SearchResult]:
        """At most `k` organic results for `query`."""
        payload = fetch_json(
            self.name,
            self.endpoint,
            timeout=timeout,
            headers={"X-API-KEY": self.api_key},
            payload={"q": query, "num": k},
        )
        return shape(self.name, result_list(self.name, payload, "organic"), k, "link", "snippet")
