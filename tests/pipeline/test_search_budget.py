"""The search budget across executors: `deepresearch search` refuses past it, research ends cleanly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import PageServer
from tests.pipeline.test_adaptive import FOUR_TASKS, run
from tests.search.search_mock_server import MockProviders


@pytest.fixture
def providers() -> Iterator[MockProviders]:
    mock = MockProviders().start()
    yield mock
    mock.stop()


def test_search_budget_ends_the_round_cleanly(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer, providers: MockProviders
) -> None:
    env = {**clean_env, **providers.env(("serper",))}
    scenario = {"page_base": pages.base_url, "planner": FOUR_TASKS, "executor": {"E1": {"searches": 3}}}
    code, out, doc, events = run(tmp_path, env, scenario, concurrency=1, max_searches=2)
    assert code == 0, out
    log = (tmp_path / "ws" / "logs" / "E1.log").read_text()
    assert "search 1: exit 0" in log and "search 2: exit 0" in log
    assert "search 3: exit 9" in log and "search budget spent" in log
    assert doc.front.termination_reason == "search budget spent (2 of 2)"
    assert [t.status.value for t in doc.tasks] == ["done", "pending", "pending", "pending"]
    assert doc.front.status.value == "completed" and (tmp_path / "ws" / "report.md").is_file()
    assert sum(1 for e in events if e["event"] == "agent_started" and e["role"] == "reflector") == 0
    assert providers.total_hits() == 2
