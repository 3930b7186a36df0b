"""Benchmark: a follow-up question on a living knowledge base against the same question from nothing.

A first question researches four indexes (alpha, beta, gamma, delta: one task, two searches and one
archived page each). The follow-up needs alpha and beta again plus one new index (epsilon):
- as a follow-up in the same workspace, the planner plans only epsilon; its executor cites alpha's
  and beta's known sources by ID (`search --local`), searches twice and archives one page;
- from nothing, in a new workspace, it must research all three.
Scripted agents (fake agent CLI), pages and search providers on 127.0.0.1, figures off.

Prints agent calls, executor calls, searches, archives and wall time of each, and what the
follow-up reused. Run: python bench/follow_up.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from deepresearch.core.budget import ledger_usage  # noqa: E402
from deepresearch.core.workspace import Workspace  # noqa: E402
from deepresearch.sources.registry import SourceRegistry  # noqa: E402
from tests.helpers import PageServer, write_scenario, write_workspace_config  # noqa: E402
from tests.search.search_mock_server import MockProviders  # noqa: E402

INDEXES = ("alpha", "beta", "gamma", "delta")


def _task(n: int, name: str, dims: list[str]) -> dict[str, Any]:
    return {
        "id": f"E{n}",
        "task": f"Research the {name} index",
        "dimensions": dims,
        "priority": "high",
        "depends": [],
    }


def _dims(names: list[str], start: int = 1) -> list[dict[str, str]]:
    return [
        {"id": f"D{n}", "name": name, "description": f"The {name} index"}
        for n, name in enumerate(names, start)
    ]


FIRST_PLAN = {
    "complexity": "comparison",
    "dimensions": _dims(list(INDEXES)),
    "outline": [
        {
            "section": "Four indexes",
            "dimensions": ["D1", "D2", "D3", "D4"],
            "questions": "How do they compare?",
        }
    ],
    "tasks": [_task(n, name, [f"D{n}"]) for n, name in enumerate(INDEXES, 1)],
}
FOLLOW_UP_PLAN = {
    "complexity": "comparison",
    "dimensions": _dims(["epsilon"], 5),
    "outline": [
        {"section": "Epsilon against alpha and beta", "dimensions": ["D1", "D2", "D5"], "questions": "?"}
    ],
    "tasks": [_task(5, "epsilon", ["D5", "D1", "D2"])],
}
FRESH_PLAN = {  # the same follow-up from nothing: alpha, beta and epsilon are all to be found
    "complexity": "comparison",
    "dimensions": _dims(["alpha", "beta", "epsilon"]),
    "outline": [
        {"section": "Epsilon against alpha and beta", "dimensions": ["D1", "D2", "D3"], "questions": "?"}
    ],
    "tasks": [_task(1, "alpha", ["D1"]), _task(2, "beta", ["D2"]), _task(3, "epsilon", ["D3"])],
}
QUESTION = "How does the epsilon index compare with alpha and beta?"


@dataclass
class Figures:
    agent_calls: int
    executor_calls: int
    searches: int
    archives: int
    seconds: float


def _run(args: list[str], work: Path, scenario: dict[str, Any], env: dict[str, str]) -> float:
    path = write_scenario(work.parent / f"{work.name}-{len(list(work.parent.glob('*.yaml')))}.yaml", scenario)
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "deepresearch", *args, "-o", str(work), "--quiet"],
        env={**env, "FAKE_AGENT_SCENARIO": str(path)}, capture_output=True, text=True,
        stdin=subprocess.DEVNULL, timeout=900,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"run failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return time.perf_counter() - started


def _figures(work: Path, seconds: float, archives: int) -> Figures:
    workspace = Workspace(work)
    events = [json.loads(line) for line in workspace.events_jsonl.read_text().splitlines()]
    since = max((n for n, e in enumerate(events) if e["event"] == "question_started"), default=0)
    executors = sum(1 for e in events[since:] if e["event"] == "agent_started" and e["role"] == "executor")
    searches = json.loads((workspace.private / "searches.json").read_text())["used"]
    return Figures(ledger_usage(workspace.usage_ledger).calls, executors, searches, archives, seconds)


def compare(root: Path) -> dict[str, Figures]:
    """The follow-up in the first question's workspace, and the same question from nothing."""
    providers = MockProviders().start()
    try:
        with PageServer() as pages:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "FAKE_AGENT"))}
            env.update(providers.env(("serper",)), PYTHONPATH=str(REPO), XDG_CONFIG_HOME=str(root / "xdg"))
            base = {"page_base": pages.base_url, "executor": {"default": {"queries": 2}}}
            first, fresh = root / "workspace", root / "fresh"
            for work in (first, fresh):
                work.mkdir()
                write_workspace_config(work, max_figures=0, analysis="never", concurrency=4)
            _run(["-p", "How do the four indexes compare?"], first, {**base, "planner": FIRST_PLAN}, env)
            before = len(SourceRegistry(Workspace(first)).archived())
            executor = {"default": {"queries": 2}, "E5": {"queries": 2, "local": "alpha index"}}
            scenario = {**base, "planner": FOLLOW_UP_PLAN, "executor": executor}
            seconds = _run(["-p", QUESTION, "--follow-up"], first, scenario, env)
            follow_up = _figures(first, seconds, len(SourceRegistry(Workspace(first)).archived()) - before)
            seconds = _run(["-p", QUESTION], fresh, {**base, "planner": FRESH_PLAN}, env)
            scratch = _figures(fresh, seconds, len(SourceRegistry(Workspace(fresh)).archived()))
            shutil.rmtree(root / "xdg", ignore_errors=True)
            return {"follow-up (same workspace)": follow_up, "from nothing (new workspace)": scratch}
    finally:
        providers.stop()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        results = compare(Path(tmp))
    print(
        f"{'':30} {'agent calls':>11} {'executor calls':>14} {'searches':>8} {'archives':>8} {'seconds':>8}"
    )
    for name, fig in results.items():
        print(f"{name:30} {fig.agent_calls:>11} {fig.executor_calls:>14} {fig.searches:>8} {fig.archives:>8} "
              f"{fig.seconds:>8.1f}")  # fmt: skip
    follow, scratch = results.values()
    print(f"follow-up/from nothing: agent calls {follow.agent_calls}/{scratch.agent_calls}, searches "
          f"{follow.searches}/{scratch.searches}, archives {follow.archives}/{scratch.archives}")  # fmt: skip


if __name__ == "__main__":
    main()
