"""Shared fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import LOCAL_HOSTS, LOCAL_HOSTS_ENV, REPO, PageServer


def pytest_configure(config: pytest.Config) -> None:
    """An xdist worker is given COLUMNS=80 and LINES=24; the commands the tests start would take
    them for the terminal's size (rich does), so a worker's tests would see other output than a
    plain `pytest` run's. Drop them: every test starts from the same environment either way."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        for name in ("COLUMNS", "LINES"):
            os.environ.pop(name, None)


# The real-CLI integration tests (tests/integration) mostly wait: on a CLI's start-up, its own
# retries, a timeout. Run in among the others they take every worker for minutes in turn while the
# CPUs idle; so they run in lanes, each a worker of its own that takes one lane's tests one after
# another (an xdist group), beside the workers for the rest. Lanes are balanced by measured time
# (qwen's own retries alone are ~3 minutes) and keep the CPU-heavy CLIs (opencode, qwen) apart.
INTEGRATION_LANES = {
    "qwen": "cli-lane-1",
    "opencode": "cli-lane-2",
    "codex": "cli-lane-2",
    "copilot": "cli-lane-3",
    "gemini": "cli-lane-3",
    "claude": "cli-lane-3",
}
SHARED_LANE = "cli-lane-3"  # tests that run every CLI in turn (doctor's ping)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: without it, nothing to answer
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: half again as many workers as CPUs (at least 2), plus one per integration lane
    unless `-m` leaves the integration tests out. A test spends about a third of its time waiting for
    the processes and sockets it drives (agents, the tool service, Chromium), so two CPUs keep three
    workers busy; a lane's worker mostly waits on a real agent CLI."""
    general = max(2, (3 * (len(os.sched_getaffinity(0)) or 1) + 1) // 2)
    lanes = 0 if "not integration" in (config.option.markexpr or "") else len(set(INTEGRATION_LANES.values()))
    return general + lanes


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups into node IDs
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`-n auto --dist loadgroup`, the README's test command) every test marked
    `serial` runs on one worker, one after another; each integration test runs in its CLI's lane
    (`INTEGRATION_LANES`), and the lanes go first; the rest spread over all workers."""
    for item in items:
        if item.get_closest_marker("serial") is not None:
            item.add_marker(pytest.mark.xdist_group("serial"))
        elif item.get_closest_marker("integration") is not None:
            item.add_marker(pytest.mark.xdist_group(integration_lane(item)))
    items.sort(key=lambda item: item.get_closest_marker("integration") is None)  # stable: lanes first


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, on the controller
def pytest_xdist_node_collection_finished(node: object, ids: list[str]) -> None:
    """Under `--dist loadgroup` a test of a group carries the group in its node ID, which is how
    pytest-xdist sends a group to one worker; with a pytest that ignores it (9.2) the `serial` tests
    would run side by side and the integration lanes on every worker, silently. Stop instead."""
    config = getattr(node, "config", None)
    if config is None or config.getvalue("dist") != "loadgroup":
        return
    lost = [i for i in ids if i.startswith("tests/integration/") and "@" not in i]
    if lost:
        raise pytest.UsageError(
            f"pytest-xdist could not group the tests ({lost[0]} has no group): pytest "
            f"{pytest.__version__} ignores the group in a node ID; install the versions pyproject.toml names"
        )


def integration_lane(item: pytest.Item) -> str:
    """The lane of an integration test: its CLI's, or the shared one for a test of every CLI."""
    callspec = getattr(item, "callspec", None)
    cli = callspec.params.get("cli") if callspec is not None else None
    return INTEGRATION_LANES.get(str(cli), SHARED_LANE)


@pytest.fixture
def clean_env(tmp_path: Path) -> dict[str, str]:
    """An environment with no user config and no DEEPRESEARCH_* settings leaking in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "FAKE_AGENT"))}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env[LOCAL_HOSTS_ENV] = " ".join(LOCAL_HOSTS)  # the tests' pages are served on 127.0.0.1
    return env


@pytest.fixture
def pages() -> Iterator[PageServer]:
    """Research pages on 127.0.0.1 for the fake agent's executors to archive and quote."""
    with PageServer() as server:
        yield server
