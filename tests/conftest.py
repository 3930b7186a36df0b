"""Shared fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import REPO


@pytest.fixture
def clean_env(tmp_path: Path) -> dict[str, str]:
    """An environment with no user config and no DEEPRESEARCH_* settings leaking in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "FAKE_AGENT"))}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env
