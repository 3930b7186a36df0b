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


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: without it, nothing to answer
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: half again as many workers as CPUs (at least 2). A test spends about a third of its
    time waiting for the processes and sockets it drives (agents, the tool service, Chromium), so two
    CPUs keep three workers busy."""
    return max(2, (3 * (len(os.sched_getaffinity(0)) or 1) + 1) // 2)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`-n auto --dist loadgroup`, the README's test command) every test marked
    `serial` runs on one worker, one after another; the rest spread over all workers."""
    for item in items:
        if item.get_closest_marker("serial") is not None:
            item.add_marker(pytest.mark.xdist_group("serial"))


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
