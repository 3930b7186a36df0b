"""The search providers, in default chain order, and how config and environment select them."""

from __future__ import annotations

from collections.abc import Mapping

from deepresearch.core.config import SEARCH_PROVIDERS, Config
from deepresearch.search.model import Provider
from deepresearch.search.providers.base import ApiProvider
from deepresearch.search.providers.brave import Brave
from deepresearch.search.providers.duckduckgo import DuckDuckGo
from deepresearch.search.providers.exa import Exa
from deepresearch.search.providers.serper import Serper
from deepresearch.search.providers.tavily import Tavily

PROVIDER_CLASSES: dict[str, type[ApiProvider]] = {
    cls.name: cls for cls in (Serper, Tavily, Exa, Brave, DuckDuckGo)
}
assert tuple(PROVIDER_CLASSES) == SEARCH_PROVIDERS  # config validates names against the same list


def configured_providers(config: Config, environ: Mapping[str, str]) -> list[Provider]:
    """Every provider the config selects, in order, built with its key and base URL."""
    names = config.search_providers if config.search_providers is not None else list(SEARCH_PROVIDERS)
    providers: list[Provider] = []
    for name in dict.fromkeys(names):  # a name listed twice is tried once
        cls = PROVIDER_CLASSES[name]
        key = environ.get(cls.key_env, "") if cls.key_env else ""
        providers.append(cls(base_url=config.search_base_urls.get(name), api_key=key.strip()))
    return providers


def available_providers(config: Config, environ: Mapping[str, str]) -> list[Provider]:
    """The configured providers that can be used now (their API keys are set)."""
    return [p for p in configured_providers(config, environ) if p.available(environ)]


def missing_keys(config: Config, environ: Mapping[str, str]) -> list[str]:
    """API key variables of configured providers that are not set (for the 'set a key' hint)."""
    return [
        p.key_env for p in configured_providers(config, environ) if p.key_env and not p.available(environ)
    ]
