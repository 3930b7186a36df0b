"""The one place search talks HTTP (urllib), turning every failure into a classified ProviderError."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

from deepresearch.search.model import ErrorKind, ProviderError

USER_AGENT = "deepresearch-search/0.1"
_MAX_BYTES = 5_000_000  # a search answer is small; more is a misconfigured endpoint


def fetch(
    provider: str,
    url: str,
    *,
    timeout: float,
    headers: Mapping[str, str] | None = None,
    data: bytes | None = None,
    method: str = "GET",
) -> bytes:
    """The body of a 2xx answer; any other outcome raises ProviderError with its kind."""
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("User-Agent", USER_AGENT)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body: bytes = response.read(_MAX_BYTES)
            status = response.status
    except urllib.error.HTTPError as exc:
        raise _http_error(provider, exc.code, exc.reason) from exc
    except TimeoutError as exc:
        raise ProviderError(provider, ErrorKind.TIMEOUT, f"no answer within {timeout:g} s") from exc
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise ProviderError(provider, ErrorKind.TIMEOUT, f"no answer within {timeout:g} s") from exc
        raise ProviderError(provider, ErrorKind.UNREACHABLE, str(exc.reason)) from exc
    except http.client.HTTPException as exc:  # not HTTP at all, or a body cut short
        raise ProviderError(provider, ErrorKind.BAD_RESPONSE, f"{type(exc).__name__}: {exc}") from exc
    except (OSError, ValueError) as exc:  # connection reset, malformed URL...
        raise ProviderError(provider, ErrorKind.UNREACHABLE, str(exc)) from exc
    if status == 202:  # DuckDuckGo answers 202 with a challenge page when it throttles
        raise ProviderError(provider, ErrorKind.RATE_LIMITED, "HTTP 202 (throttled)")
    return body


def _http_error(provider: str, code: int, reason: object) -> ProviderError:
    if code == 429:
        return ProviderError(provider, ErrorKind.RATE_LIMITED, f"HTTP {code}")
    if code in (401, 403):
        return ProviderError(provider, ErrorKind.AUTH, f"HTTP {code}")
    if code >= 500:
        return ProviderError(provider, ErrorKind.SERVER, f"HTTP {code} {reason}".strip())
    return ProviderError(provider, ErrorKind.BAD_RESPONSE, f"HTTP {code} {reason}".strip())


def fetch_json(
    provider: str,
    url: str,
    *,
    timeout: float,
    headers: Mapping[str, str] | None = None,
    payload: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """POST `payload` as JSON (GET when None) and return the JSON object the provider answered."""
    all_headers = {"Accept": "application/json", **(headers or {})}
    data = None
    if payload is not None:
        data = json.dumps(payload).encode("utf-8")
        all_headers["Content-Type"] = "application/json"
    body = fetch(
        provider, url, timeout=timeout, headers=all_headers, data=data, method="POST" if data else "GET"
    )
    try:
        parsed = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProviderError(provider, ErrorKind.BAD_RESPONSE, f"not JSON: {body[:60]!r}") from exc
    if not isinstance(parsed, dict):
        kind = type(parsed).__name__
        raise ProviderError(provider, ErrorKind.BAD_RESPONSE, f"expected a JSON object, got {kind}")
    return parsed


def result_list(provider: str, payload: Mapping[str, Any], *path: str) -> list[Mapping[str, Any]]:
    """The list of result objects at `path` ([] when the provider left it out for no results)."""
    node: Any = payload
    for key in path:
        if not isinstance(node, Mapping):
            raise ProviderError(provider, ErrorKind.BAD_RESPONSE, f"expected an object at {key!r}")
        node = node.get(key)
        if node is None:
            return []
    if not isinstance(node, list):
        raise ProviderError(provider, ErrorKind.BAD_RESPONSE, f"{'.'.join(path)} is not a list")
    return [item for item in node if isinstance(item, Mapping)]
