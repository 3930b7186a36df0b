"""Research runs for the stage tests: the real `deepresearch` command driving the fake agent CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepresearch.core.workspace import Workspace
from deepresearch.state.model import TaskDoc
from deepresearch.state.store import StateStore
from tests.helpers import REPO, write_scenario, write_workspace_config
from tests.inprocess import run_in_process


def two_task_plan(complexity: str) -> dict[str, Any]:
    """Two dimensions, an outline section for each, and one task per dimension."""
    return {
        "complexity": complexity,
        "dimensions": [
            {"id": "D1", "name": "Alpha", "description": "The alpha index"},
            {"id": "D2", "name": "Beta", "description": "The beta index"},
        ],
        "outline": [
            {"section": "The alpha index", "dimensions": ["D1"], "questions": "What did alpha reach?"},
            {"section": "The beta index", "dimensions": ["D2"], "questions": "What did beta reach?"},
        ],
        "tasks": [
            {"id": "E1", "task": "Research the alpha index", "dimensions": ["D1"], "priority": "high", "depends": []},
            {"id": "E2", "task": "Research the beta index", "dimensions": ["D2"], "priority": "high", "depends": []},
        ],
    }  # fmt: skip


def stage_env(home: Path) -> dict[str, str]:
    """No user config, no DEEPRESEARCH_* leaking in, and archiving over plain HTTP (no browser: quick)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "FAKE_AGENT"))}
    env["XDG_CONFIG_HOME"] = str(home / "xdg")
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PLAYWRIGHT_BROWSERS_PATH"] = str(home / "no-browsers")
    env["DEEPRESEARCH_CHROMIUM_PATH"] = str(home / "no-chromium")
    return env


@dataclass
class Run:
    work: Path
    proc: subprocess.CompletedProcess[str]

    @property
    def doc(self) -> TaskDoc:
        return StateStore(Workspace(self.work)).load()

    def log(self, name: str) -> str:
        """A file under logs/ (e.g. "prompts/E1.md"; "analyst_result.md" is the analyst call's output
        in its own folder), as text."""
        if name.endswith("_result.md"):
            name = f"calls/{name.removesuffix('_result.md')}/{name}"
        return (self.work / "logs" / name).read_text(encoding="utf-8")

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        """Every event of logs/events.jsonl (of one kind, e.g. "notice"), oldest first."""
        lines = self.log("events.jsonl").splitlines()
        return [e for e in map(json.loads, lines) if kind is None or e["event"] == kind]

    def phases(self) -> list[str]:
        """The phases started, in order."""
        return [e["phase"] for e in self.events("phase_started")]

    def notices(self) -> list[str]:
        return [e["message"] for e in self.events("notice")]


def cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -m deepresearch ARGS` as a real subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "deepresearch", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def research(home: Path, question: str, scenario: dict[str, Any], **settings: object) -> Run:
    """Run `deepresearch -p QUESTION` in home/ws with the fake agent playing `scenario`."""
    work = home / "ws"
    work.mkdir(parents=True)
    # One executor at a time: sources get their IDs in task order, so citations read the same every run.
    write_workspace_config(work, **{"concurrency": 1, **settings})
    env = {**stage_env(home), "FAKE_AGENT_SCENARIO": str(write_scenario(home / "scenario.yaml", scenario))}
    # In this process (tests/inprocess.py): the stage tests read what the run wrote, not its process.
    return Run(work, run_in_process(["-p", question, "-o", str(work)], env, home))
