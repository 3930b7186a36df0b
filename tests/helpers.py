"""Test helpers: the fake agent CLI and workspaces configured to use it."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

TESTS = Path(__file__).resolve().parent
FAKE_AGENT = TESTS / "fake_agent"
REPO = TESTS.parent


def fake_agent_command() -> list[str]:
    """The custom-backend argv template that runs the fake agent CLI."""
    return [sys.executable, str(FAKE_AGENT), "--prompt-file", "{prompt_file}", "--workdir", "{workdir}"]


def write_workspace_config(workdir: Path, **settings: object) -> Path:
    """deepresearch.yaml in `workdir` that selects the fake agent through the custom backend."""
    config = {"agent": "custom", "custom_command": fake_agent_command(), "retries": 1, "backoff_base": 0.01}
    config.update(settings)
    path = workdir / "deepresearch.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def write_scenario(path: Path, scenario: dict) -> Path:
    """A fake-agent scenario file."""
    path.write_text(yaml.safe_dump(scenario, allow_unicode=True), encoding="utf-8")
    return path
