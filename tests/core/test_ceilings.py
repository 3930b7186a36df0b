"""Default ceilings per effort: explicit settings win, 0 means no limit, old configs keep working."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.core.budget import Budget
from deepresearch.core.config import Config, load_config
from deepresearch.core.effort import CEILINGS, limits
from deepresearch.core.errors import BudgetExhaustedError, ConfigError
from deepresearch.core.workspace import Workspace


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), **extra}


@pytest.mark.parametrize("effort", ["quick", "standard", "deep"])
def test_each_effort_has_default_ceilings(effort: str) -> None:
    got = limits(Config(effort=effort))
    preset = CEILINGS[effort]
    assert (got.agent_calls, got.minutes, got.searches, got.cost_usd) == (
        preset.agent_calls, preset.minutes, preset.searches, None,
    )  # fmt: skip
    assert got.defaults == {"agent_calls", "minutes", "searches"}


def test_the_ceilings_grow_with_the_effort() -> None:
    quick, standard, deep = (CEILINGS[e] for e in ("quick", "standard", "deep"))
    assert quick.agent_calls < standard.agent_calls < deep.agent_calls
    assert quick.minutes < standard.minutes < deep.minutes
    assert quick.searches < standard.searches < deep.searches


def test_explicit_settings_win_and_zero_means_no_limit() -> None:
    got = limits(Config(effort="quick", max_agent_calls=50, max_minutes=0, max_cost_usd=2.5))
    assert (got.agent_calls, got.minutes, got.searches, got.cost_usd) == (
        50,
        None,
        CEILINGS["quick"].searches,
        2.5,
    )
    assert got.defaults == {"searches"}


def test_an_explicit_null_in_an_old_config_still_means_no_limit(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "deepresearch.yaml").write_text("max_agent_calls: null\nmax_searches: 0\n")
    config = load_config(work, env_for(tmp_path, DEEPRESEARCH_MAX_MINUTES=""))
    assert (config.max_agent_calls, config.max_searches, config.max_minutes) == (0, 0, 0)
    got = limits(config)
    assert (got.agent_calls, got.searches, got.minutes) == (None, None, None) and not got.defaults


def test_a_negative_ceiling_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"max_agent_calls.*must not be negative"):
        load_config(tmp_path, env_for(tmp_path, DEEPRESEARCH_MAX_AGENT_CALLS="-1"))


def test_a_default_ceiling_names_itself_when_it_stops_the_run(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    now = [0.0]
    budget = Budget(workspace, Config(effort="quick"), clock=lambda: now[0])
    explicit = Budget(workspace, Config(effort="quick", max_minutes=20), clock=lambda: now[0])
    unlimited = Budget(workspace, Config(effort="quick", max_minutes=0), clock=lambda: now[0])
    assert budget.exhausted() is None
    now[0] = 31 * 60.0
    assert budget.exhausted() == (
        "time budget spent (31.0 of 30 minutes; the quick effort's default ceiling: set max_minutes to change "
        "it, 0 for no limit)"
    )
    assert explicit.exhausted() == "time budget spent (31.0 of 20 minutes)"
    assert unlimited.exhausted() is None


def test_the_hard_cap_names_the_default_ceiling(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    workspace.private.mkdir()
    workspace.usage_ledger.write_text('{"cost_usd": 0}\n' * 20)
    with pytest.raises(BudgetExhaustedError, match=r"agent call budget spent \(20 of 20; the quick effort's"):
        Budget(workspace, Config(effort="quick")).reserve_call()
    Budget(workspace, Config(effort="quick", max_agent_calls=0)).reserve_call()  # no limit: no error
