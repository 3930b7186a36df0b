"""Tavily: POST /search {"query", "max_results"} with a Bearer key; hits in results[]."""

from __future__ import annotations

from deepresearch.search.model import SearchResult
from deepresearch.search.providers.base import ApiProvider, shape
from deepresearch.search.transport import fetch_json, result_list


class Tavily(ApiProvider):
    """api.tavily.com: results[] items carry title, url, content."""

    name = "tavily"
    key_env = "TAVILY_API_KEY"
    default_base_url = "https://api.tavily.com"
    path = "/search"

    def search(self, query: str, k: int, timeout: float) -> list[SearchResult]:
        """At most `k` results for `query` (basic depth: one credit per search)."""
        payload = fetch_json(
            self.name,
            self.endpoint,
            timeout=timeout,
            headers={"Authorization": f"Bearer {self.api_key}"},
            payload={"query": query, "max_results": k, "search_depth": "basic"},
        )
        return shape(self.name, result_list(self.name, payload, "results"), k, "url", "content")
