"""What the JSON API providers share: key lookup, base-URL override, and result shaping."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from deepresearch.search.model import SearchResult, clean_text


class ApiProvider:
    """A provider reached at `default_base_url + path`, the base overridable for proxies and tests."""

    name = ""
    key_env: str | None = None
    default_base_url = ""
    path = ""

    def __init__(self, base_url: str | None = None, api_key: str | None = None) -> None:
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self.api_key = api_key or ""

    @property
    def endpoint(self) -> str:
        """The full URL requests go to."""
        return self.base_url + self.path

    def available(self, environ: Mapping[str, str]) -> bool:
        """Keyed providers need their key set (and non-blank); keyless ones always can be tried."""
        return self.key_env is None or bool(environ.get(self.key_env, "").strip())

    def search(self, query: str, k: int, timeout: float) -> list[SearchResult]:
        """At most `k` results for `query`; raises ProviderError on any failure."""
        raise NotImplementedError(f"{type(self).__name__} does not implement search")

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(base_url={self.base_url!r})"


def shape(
    provider: str, items: Iterable[Mapping[str, Any]], k: int, url_key: str, snippet_key: str
) -> list[SearchResult]:
    """Provider items → ranked results: web links only, at most `k`, snippets cleaned."""
    results: list[SearchResult] = []
    for item in items:
        url = str(item.get(url_key) or "").strip()
        if not url.startswith(("http://", "https://")):
            continue  # not a web page we could archive
        title = clean_text(item.get("title"), 200) or url
        snippet = clean_text(item.get(snippet_key))
        results.append(SearchResult(title, url, snippet, provider, len(results) + 1))
        if len(results) == k:
            break
    return results
