"""Shared fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import LOCAL_HOSTS, LOCAL_HOSTS_ENV, REPO, PageServer


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
