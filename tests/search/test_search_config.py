"""The search settings in Config: defaults, files, environment, and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.core.config import Config, apply_layer, env_layer, load_config
from deepresearch.core.errors import ConfigError
from deepresearch.search.providers import available_providers, missing_keys


def test_defaults() -> None:
    config = Config()
    assert (config.search_strategy, config.search_providers, config.search_base_urls) == ("chain", None, {})
    assert config.search_timeout > 0


def test_base_urls_merge_per_provider_across_layers() -> None:
    config = apply_layer(Config(), {"search_base_urls": {"serper": "http://a", "exa": "http://b"}}, "file")
    config = apply_layer(config, {"search_base_urls": {"exa": "http://c"}}, "environment")
    assert config.search_base_urls == {"serper": "http://a", "exa": "http://c"}


def test_base_urls_come_from_per_provider_env_vars() -> None:
    layer = env_layer({"DEEPRESEARCH_BRAVE_BASE_URL": "http://x", "DEEPRESEARCH_SEARCH_STRATEGY": "race"})
    assert layer == {"search_base_urls": {"brave": "http://x"}, "search_strategy": "race"}


def test_workdir_env_var_is_not_an_unknown_setting() -> None:
    assert env_layer({"DEEPRESEARCH_WORKDIR": "/tmp"}) == {}


@pytest.mark.parametrize(
    ("layer", "key"),
    [
        ({"search_strategy": "fastest"}, "search_strategy"),
        ({"search_providers": ["serper", "bing"]}, "search_providers"),
        ({"search_base_urls": {"bing": "http://x"}}, "search_base_urls.bing"),
        ({"search_base_urls": "http://x"}, "search_base_urls"),
        ({"search_timeout": 0}, "search_timeout"),
    ],
)
def test_bad_values_name_the_key(layer: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        apply_layer(Config(), layer, "deepresearch.yaml")
    assert caught.value.key == key


def test_workspace_file_selects_and_orders_providers(tmp_path: Path) -> None:
    (tmp_path / "deepresearch.yaml").write_text(
        "search_providers: [brave, duckduckgo, serper]\nsearch_base_urls:\n  brave: http://127.0.0.1:1/b\n"
    )
    environ = {"BRAVE_API_KEY": "k", "HOME": str(tmp_path)}
    config = load_config(tmp_path, environ=environ)
    chosen = available_providers(config, environ)
    assert [p.name for p in chosen] == ["brave", "duckduckgo"]
    assert missing_keys(config, environ) == ["SERPER_API_KEY"]
