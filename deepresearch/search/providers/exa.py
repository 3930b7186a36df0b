"""Exa: POST /search {"query", "numResults", "contents"} with x-api-key; hits in results[]."""

from __future__ import annotations

from deepresearch.search.model import SNIPPET_CHARS, SearchResult
from deepresearch.search.providers.base import ApiProvider, shape
from deepresearch.search.transport import fetch_json, result_list


class Exa(ApiProvider):
    """api.exa.ai: results[] items carry title, url and (when contents asks for it) text."""

    name = "exa"
    key_env = "EXA_API_KEY"
    default_base_url = "https://api.exa.ai"
    path = "/search"

    def search(self, query: str, k: int, timeout: float) -> list[SearchResult]:
        """At most `k` results for `query`, with a short text excerpt as the snippet."""
        payload = fetch_json(
            self.name,
            self.endpoint,
            timeout=timeout,
            headers={"x-api-key": self.api_key},
            payload={
                "query": query,
                "numResults": k,
                "contents": {"text": {"maxCharacters": SNIPPET_CHARS * 2}},
            },
        )
        return shape(self.name, result_list(self.name, payload, "results"), k, "url", "text")
