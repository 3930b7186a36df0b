"""Brave Search: GET /res/v1/web/search?q=&count= with X-Subscription-Token; hits in web.results[]."""

from __future__ import annotations

from urllib.parse import urlencode

from deepresearch.search.model import SearchResult
from deepresearch.search.providers.base import ApiProvider, shape
from deepresearch.search.transport import fetch_json, result_list

MAX_COUNT = 20  # the API's documented maximum for count


class Brave(ApiProvider):
    """api.search.brave.com: web.results[] items carry title, url, description."""

    name = "brave"
    key_env = "BRAVE_API_KEY"
    default_base_url = "https://api.search.brave.com"
    path = "/res/v1/web/search"

    def search(self, query: str, k: int, timeout: float) -> list[SearchResult]:
        """At most `k` web results for `query`."""
        query_string = urlencode({"q": query, "count": min(k, MAX_COUNT)})
        payload = fetch_json(
            self.name,
            f"{self.endpoint}?{query_string}",
            timeout=timeout,
            headers={"X-Subscription-Token": self.api_key},
        )
        return shape(self.name, result_list(self.name, payload, "web", "results"), k, "url", "description")
