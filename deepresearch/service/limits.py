"""What the tool service accepts, and for how long it waits: the checks that keep one client (an agent
talked into misbehaving) from stalling the others.

Every request, whatever its operation, is bounded in size and must arrive within `read_timeout`; its
answer must be taken within `send_timeout`; at most `max_connections` are served at once (the next
one is told the service is busy). Each operation's arguments are checked here too (`check`), not
only by the client, which an agent need not use.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from deepresearch.core.errors import UsageError
from deepresearch.service.protocol import MAX_K, ToolRequest

MAX_URLS = 50  # per archive request: a Top-K batch's pages, with room to spare


@dataclass(frozen=True)
class ServiceLimits:
    """The service's bounds (defaults for a run; tests tighten them)."""

    max_k: int = MAX_K
    max_urls: int = MAX_URLS
    max_request_bytes: int = 1024 * 1024
    max_connections: int = 32
    read_timeout: float = 10.0  # a tool script sends its request as soon as it connects
    send_timeout: float = 30.0  # and reads the answer as soon as it is sent


def check(request: ToolRequest, limits: ServiceLimits) -> None:
    """UsageError for arguments out of bounds (the same words as the commands' own checks)."""
    if request.op in ("search", "local") and not 1 <= request.k <= limits.max_k:
        raise UsageError(f"k must be between 1 and {limits.max_k}, got {request.k}")
    if request.op in ("search", "local") and not request.query.strip():
        raise UsageError("the search query is empty")
    if request.op == "archive" and not 1 <= len(request.urls) <= limits.max_urls:
        raise UsageError(
            f"archive takes at most {limits.max_urls} URLs per call, got {len(request.urls)} URLs",
            hint="archive the most promising pages first, in several calls",
        )


class Gate:
    """Counts the connections being served; `enter` refuses one past the cap."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.active = 0
        self._lock = threading.Lock()

    def enter(self) -> bool:
        """Take a place (True), or False when `cap` connections are being served."""
        with self._lock:
            if self.active >= self.cap:
                return False
            self.active += 1
            return True

    def leave(self) -> None:
        """Give the place back."""
        with self._lock:
            self.active -= 1
