"""The data every search module shares: a result, a provider's failure, and the provider protocol."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Protocol

SNIPPET_CHARS = 300  # snippets are for choosing what to read, not for quoting


@dataclass(frozen=True)
class SearchResult:
    """One hit: where it points, what it says about itself, who found it and at which rank (1-based)."""

    title: str
    url: str
    snippet: str
    provider: str
    rank: int

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready mapping."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchResult:
        """A result back from `to_dict` (the cache's format)."""
        return cls(
            title=str(data["title"]),
            url=str(data["url"]),
            snippet=str(data["snippet"]),
            provider=str(data["provider"]),
            rank=int(data["rank"]),
        )


class ErrorKind(enum.Enum):
    """Why a provider did not answer; decides what the user is told to do."""

    RATE_LIMITED = "rate limited"
    AUTH = "API key rejected"
    SERVER = "server error"
    TIMEOUT = "timed out"
    UNREACHABLE = "unreachable"
    BAD_RESPONSE = "bad response"


class ProviderError(Exception):
    """A provider failed in a classified way; the strategies skip it and record why."""

    def __init__(self, provider: str, kind: ErrorKind, detail: str) -> None:
        super().__init__(f"{provider}: {kind.value} ({detail})")
        self.provider = provider
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True)
class Attempt:
    """What one provider did for one query: answered with `count` results, or failed with `error`."""

    provider: str
    count: int = 0
    error: ProviderError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def describe(self) -> str:
        """One line for the user: `serper: rate limited (HTTP 429)` or `tavily: 5 results`."""
        if self.error is not None:
            return str(self.error)
        return f"{self.provider}: {self.count} result{'s' if self.count != 1 else ''}"


class Provider(Protocol):
    """A search backend: one HTTP API (or page) turned into ranked `SearchResult`s."""

    name: str
    key_env: str | None  # the API key variable, None for keyless providers

    def available(self, environ: Mapping[str, str]) -> bool:
        """Whether this provider can be used (its API key is set)."""
        ...

    def search(self, query: str, k: int, timeout: float) -> list[SearchResult]:
        """At most `k` results for `query`; raises `ProviderError` on any failure."""
        ...


def clean_text(text: object, limit: int = SNIPPET_CHARS) -> str:
    """Whitespace collapsed and cut at `limit` characters (on a word boundary, with an ellipsis)."""
    flat = " ".join(str(text or "").split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0] + "…"
