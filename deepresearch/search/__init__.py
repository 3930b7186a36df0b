"""`deepresearch search`: a provider chain (Serper, Tavily, Exa, Brave, DuckDuckGo) with cache and budget.

The public API: `run_search` (one search, as the CLI runs it). Searches are counted by `core.budget`.
"""

from deepresearch.search.engine import SearchOutcome, SearchUnavailableError, run_search
from deepresearch.search.model import Attempt, ErrorKind, ProviderError, SearchResult

__all__ = [
    "Attempt",
    "ErrorKind",
    "ProviderError",
    "SearchOutcome",
    "SearchResult",
    "SearchUnavailableError",
    "run_search",
]
