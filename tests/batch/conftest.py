"""A finished batch shared by the tests that only read it (export, report, scheduling)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.batch.helpers import batch_folder, jsonl_file, run_batch, scenario_env
from tests.helpers import REPO, PageServer

QUESTIONS = [
    f"What is the value of index {name}?" for name in ("alpha", "beta", "gamma", "delta", "eps", "zeta")
]
BAD_LINE = 4  # the batch file's fourth line is not JSON


def base_env(root: Path) -> dict[str, str]:
    """No user config, no DEEPRESEARCH_* or FAKE_AGENT* leaking in; this checkout importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "FAKE_AGENT", "RAY_"))}
    env["XDG_CONFIG_HOME"] = str(root / "xdg")
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@dataclass
class FinishedBatch:
    folder: Path
    file: Path
    calls_log: Path
    result: subprocess.CompletedProcess[str]


@pytest.fixture(scope="session")
def module_pages() -> Iterator[PageServer]:
    """Research pages on 127.0.0.1, for the whole session."""
    with PageServer() as server:
        yield server


@pytest.fixture(scope="session")
def six_jobs(tmp_path_factory: pytest.TempPathFactory, module_pages: PageServer) -> FinishedBatch:
    """Six questions (and one bad line) run with --jobs 3 by the real command and the fake agent."""
    root = tmp_path_factory.mktemp("six")
    folder = batch_folder(root)
    log = root / "calls.jsonl"
    env = scenario_env(
        base_env(root),
        root / "scenario.yaml",
        {"page_base": module_pages.base_url, "calls_log": str(log), "sleep": 0.3},
    )
    rows: list[dict[str, object] | str] = [{"id": f"q{n}", "prompt": q} for n, q in enumerate(QUESTIONS, 1)]
    rows.insert(BAD_LINE - 1, '{"id": "broken", "prompt": ')
    file = jsonl_file(root / "questions.jsonl", rows)
    result = run_batch(file, folder, env, "--jobs", "3")
    return FinishedBatch(folder, file, log, result)
