"""run_search: the cache, the search log, the budget and the 'nothing answered' error."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from deepresearch.core.budget import Budget
from deepresearch.core.config import Config, load_config
from deepresearch.core.errors import BudgetExhaustedError, ExitCode, StateError
from deepresearch.core.events import Event, Notice
from deepresearch.core.workspace import Workspace
from deepresearch.search import SearchUnavailableError, run_search
from tests.search.search_mock_server import MockProviders

FIXED = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)


def setup(
    server: MockProviders, tmp_path: Path, **settings: object
) -> tuple[Workspace, Config, dict[str, str]]:
    environ = {**server.env(), **{f"DEEPRESEARCH_{k.upper()}": str(v) for k, v in settings.items()}}
    return Workspace(tmp_path), load_config(tmp_path, environ=environ), environ


def log_lines(workspace: Workspace) -> list[dict[str, object]]:
    return [json.loads(line) for line in workspace.search_log.read_text().splitlines()]


def test_a_search_is_logged_counted_and_cached(server: MockProviders, tmp_path: Path) -> None:
    workspace, config, environ = setup(server, tmp_path)
    outcome = run_search(workspace, config, "heat pumps", k=2, environ=environ, now=lambda: FIXED)
    assert [r.provider for r in outcome.results] == ["serper", "serper"]
    assert (outcome.cached, outcome.searches_used) == (False, 1)
    assert Budget(workspace, Config()).searches_used() == 1
    assert log_lines(workspace)[0] == {
        "query": "heat pumps",
        "provider": "serper",
        "rank": 1,
        "title": "serper result 1",
        "url": "https://example.org/serper/1",
        "snippet": "about 1",
        "time": "2026-11-21T09:30:00+00:00",
        "cached": False,
        "language": "",  # two words that are no language's own
    }


def test_a_cache_hit_costs_nothing(server: MockProviders, tmp_path: Path) -> None:
    workspace, config, environ = setup(server, tmp_path)
    first = run_search(workspace, config, "Heat  Pumps", k=3, environ=environ)
    second = run_search(workspace, config, "heat pumps", k=3, environ=environ)  # case and spaces differ
    assert second.cached
    assert second.results == first.results
    assert server.total_hits() == 1  # the server was not asked again
    assert Budget(workspace, Config()).searches_used() == 1  # the budget was not charged
    assert [line["cached"] for line in log_lines(workspace)] == [False] * 3 + [True] * 3


def test_a_different_k_or_strategy_is_a_different_search(server: MockProviders, tmp_path: Path) -> None:
    workspace, config, environ = setup(server, tmp_path)
    run_search(workspace, config, "q", k=3, environ=environ)
    run_search(workspace, config, "q", k=4, environ=environ)
    _, race_config, _ = setup(server, tmp_path, search_strategy="race")
    assert not run_search(workspace, race_config, "q", k=3, environ=environ).cached
    assert Budget(workspace, Config()).searches_used() == 3


def test_the_budget_stops_searches_but_not_cache_hits(server: MockProviders, tmp_path: Path) -> None:
    workspace, config, environ = setup(server, tmp_path, max_searches=2)
    run_search(workspace, config, "one", environ=environ)
    run_search(workspace, config, "two", environ=environ)
    with pytest.raises(BudgetExhaustedError) as caught:
        run_search(workspace, config, "three", environ=environ)
    assert caught.value.exit_code is ExitCode.BUDGET
    assert "2 of 2" in str(caught.value) and "stop searching" in str(caught.value)
    assert server.total_hits() == 2
    assert run_search(workspace, config, "one", environ=environ).cached  # still answers, for free
    assert Budget(workspace, Config()).searches_used() == 2


def test_nothing_answering_lists_each_failure_and_refunds(server: MockProviders, tmp_path: Path) -> None:
    for provider in ("serper", "tavily", "duckduckgo"):
        server.script(provider, {"serper": "429", "tavily": "hang", "duckduckgo": "500"}[provider])
    environ = {k: v for k, v in server.env().items() if k not in ("EXA_API_KEY", "BRAVE_API_KEY")}
    workspace, config = Workspace(tmp_path), load_config(tmp_path, environ=environ)
    with pytest.raises(SearchUnavailableError) as caught:
        run_search(workspace, config, "q", environ=environ)
    message = str(caught.value)
    assert "serper: rate limited (HTTP 429)" in message
    assert "tavily: timed out" in message
    assert "duckduckgo: server error" in message
    assert "EXA_API_KEY, BRAVE_API_KEY" in message  # the keys that could be set
    assert Budget(workspace, Config()).searches_used() == 0
    assert not workspace.search_log.exists()


def test_no_available_provider_is_a_clear_error(server: MockProviders, tmp_path: Path) -> None:
    workspace, config, _ = setup(server, tmp_path, search_providers="serper exa")
    with pytest.raises(SearchUnavailableError) as caught:
        run_search(workspace, config, "q", environ={})
    assert "SERPER_API_KEY, EXA_API_KEY" in str(caught.value)
    assert server.total_hits() == 0


def test_zero_results_are_counted_but_not_cached(server: MockProviders, tmp_path: Path) -> None:
    for provider in ("serper", "tavily", "exa", "brave", "duckduckgo"):
        server.script(provider, "empty")
    workspace, config, environ = setup(server, tmp_path)
    assert run_search(workspace, config, "q", environ=environ).results == []
    assert not run_search(workspace, config, "q", environ=environ).cached
    assert Budget(workspace, Config()).searches_used() == 2


def test_a_damaged_cache_entry_is_a_miss(server: MockProviders, tmp_path: Path) -> None:
    workspace, config, environ = setup(server, tmp_path)
    run_search(workspace, config, "q", environ=environ)
    for entry in (workspace.private / "search_cache").iterdir():
        entry.write_text("{not json")
    events: list[Event] = []
    assert not run_search(workspace, config, "q", environ=environ, sink=events.append).cached
    assert server.total_hits() == 2
    [notice] = events  # a warning event for the caller to show, not a bare log line on stderr
    assert isinstance(notice, Notice) and notice.level == "warning"
    assert notice.message.startswith("ignoring damaged search cache entry .deepresearch/search_cache/")


def test_a_damaged_counter_names_its_file(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    Budget(workspace, Config()).search_counter.parent.mkdir(parents=True)
    Budget(workspace, Config()).search_counter.write_text("three")
    with pytest.raises(StateError) as caught:
        Budget(workspace, Config()).searches_used()
    assert caught.value.path == str(Budget(workspace, Config()).search_counter)
