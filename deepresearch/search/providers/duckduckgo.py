"""DuckDuckGo's keyless HTML endpoint: POST /html/ q=...; results parsed from the page with lxml."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import lxml.etree
import lxml.html

from deepresearch.search.model import ErrorKind, ProviderError, SearchResult, clean_text
from deepresearch.search.providers.base import ApiProvider
from deepresearch.search.transport import fetch

# DuckDuckGo serves its HTML page to browsers only; a plain client gets an error page.
_BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
_RESULT_LINKS = "//a[contains(concat(' ', normalize-space(@class), ' '), ' result__a ')]"
_RESULT_BOX = "ancestor::div[contains(concat(' ', normalize-space(@class), ' '), ' result ')][1]"
_SNIPPET = ".//*[contains(concat(' ', normalize-space(@class), ' '), ' result__snippet ')]"


class DuckDuckGo(ApiProvider):
    """html.duckduckgo.com: no key, one page of results; the last resort of the chain."""

    name = "duckduckgo"
    key_env = None
    default_base_url = "https://html.duckduckgo.com"
    path = "/html/"

    def search(self, query: str, k: int, timeout: float) -> list[SearchResult]:
        """At most `k` organic (non-ad) results for `query`."""
        body = fetch(
            self.name,
            self.endpoint,
            timeout=timeout,
            headers={"User-Agent": _BROWSER_UA, "Content-Type": "application/x-www-form-urlencoded"},
            data=urlencode({"q": query}).encode("ascii"),
            method="POST",
        )
        return parse_results(body, k)


def parse_results(body: bytes, k: int) -> list[SearchResult]:
    """The organic results of a DuckDuckGo HTML page, redirect links unwrapped."""
    try:
        page = lxml.html.fromstring(body)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise ProviderError("duckduckgo", ErrorKind.BAD_RESPONSE, f"not an HTML page: {exc}") from exc
    results: list[SearchResult] = []
    for link in page.xpath(_RESULT_LINKS):
        box = next(iter(link.xpath(_RESULT_BOX)), None)
        if box is not None and "result--ad" in (box.get("class") or ""):
            continue
        url = unwrap_redirect(link.get("href") or "")
        host = urlsplit(url).hostname or ""
        if not url.startswith(("http://", "https://")) or host.endswith("duckduckgo.com"):
            continue  # ad click-trackers (duckduckgo.com/y.js) and internal links
        snippets = box.xpath(_SNIPPET) if box is not None else []
        snippet = clean_text(snippets[0].text_content()) if snippets else ""
        title = clean_text(link.text_content(), 200) or url
        results.append(SearchResult(title, url, snippet, "duckduckgo", len(results) + 1))
        if len(results) == k:
            break
    return results


def unwrap_redirect(href: str) -> str:
    """`//duckduckgo.com/l/?uddg=<target>&rut=...` → the target; other links unchanged."""
    if href.startswith("//"):
        href = "https:" + href
    parts = urlsplit(href)
    if parts.hostname and parts.hostname.endswith("duckduckgo.com") and parts.path.startswith("/l/"):
        target = parse_qs(parts.query).get("uddg")
        if target:
            return target[0]
    return href
