"""Benchmark: agent calls for the same evidence, old rule (one executor call per Top-K batch) against
the new one (the batches inside one call, checked by code, another call only when something is missing).

The same scripted research runs under both rules (fake agent CLI, pages on 127.0.0.1, effort standard:
2-10 batches, saturated after 2 batches with nothing new, 3 tier-1 sources):

- E1 finds new pages in batches 1-3, then only restates what it knows;
- E2 finds two new pages in each of batches 1-2, then only restates;
- E3 is answered completely in batch 1 (three official pages);
- E4 serves two dimensions; its sources for the second turn up only in batch 4, so an executor that
  stops at its own saturation after batch 3 needs a second call, which the orchestrator asks for.

Prints agent calls, executor calls and batches per task, verified facts and dimensions covered for
each rule. Run: python bench/economy.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from deepresearch.core.workspace import Workspace  # noqa: E402
from deepresearch.pipeline.novelty import covered_dimensions  # noqa: E402
from deepresearch.state.model import Verified  # noqa: E402
from deepresearch.state.store import StateStore  # noqa: E402
from tests.helpers import PageServer, write_scenario, write_workspace_config  # noqa: E402

PLAN = {
    "complexity": "comparison",
    "dimensions": [
        {"id": "D1", "name": "Level", "description": "Index values"},
        {"id": "D2", "name": "Drivers", "description": "What moved them"},
    ],
    "outline": [{"section": "Indexes", "dimensions": ["D1", "D2"], "questions": "What and why?"}],
    "tasks": [
        {"id": "E1", "task": "Index one", "dimensions": ["D1"], "priority": "high", "depends": []},
        {"id": "E2", "task": "Index two", "dimensions": ["D1"], "priority": "high", "depends": []},
        {"id": "E3", "task": "Index three", "dimensions": ["D1"], "priority": "high", "depends": []},
        {
            "id": "E4",
            "task": "Index four and why",
            "dimensions": ["D1", "D2"],
            "priority": "high",
            "depends": [],
        },
    ],
}
EXECUTORS = {
    "E1": {"finds": 3, "restates": True},
    "E2": {"finds": 2, "pages": 2, "restates": True},
    "E3": {"finds": 1, "pages": 3, "restates": True},
    "E4": {
        "finds": [1, 4],
        "pages": 3,
        "restates": True,
        "dimensions": ["D1"],
        "batch_dimensions": {4: ["D2"]},
    },
}
PLAN_TASKS = ["E1", "E2", "E3", "E4"]
RULES = {"old rule (one call per batch)": "per_batch", "new rule (batches inside a call)": "in_call"}


@dataclass
class Figures:
    """What one run of the scripted research cost and found."""

    agent_calls: int = 0
    executor_calls: dict[str, int] = field(default_factory=dict)
    batches: dict[str, int] = field(default_factory=dict)
    verified_facts: int = 0
    facts: list[str] = field(default_factory=list)
    dimensions: list[str] = field(default_factory=list)

    @property
    def executor_total(self) -> int:
        return sum(self.executor_calls.values())


def measure(batch_calls: str, workdir: Path, page_base: str) -> Figures:
    """Run the scripted research under one rule in `workdir`; its figures."""
    workdir.mkdir(parents=True)
    settings = {"batch_calls": batch_calls, "max_batches": None, "max_rounds": 1, "analysis": "never"}
    write_workspace_config(workdir, concurrency=2, max_figures=0, **settings)
    scenario = write_scenario(workdir.parent / f"{batch_calls}.yaml", {
        "planner": PLAN, "executor": EXECUTORS, "page_base": page_base,
    })  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "FAKE_AGENT"))}
    env.update(FAKE_AGENT_SCENARIO=str(scenario), PYTHONPATH=str(REPO), XDG_CONFIG_HOME=str(workdir / "xdg"))
    proc = subprocess.run(
        [sys.executable, "-m", "deepresearch", "-p", "How do the four indexes compare, and why?",
         "-o", str(workdir), "--quiet"],
        env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=900,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"run failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return _figures(workdir)


def _figures(workdir: Path) -> Figures:
    figures = Figures()
    for line in (workdir / "logs" / "events.jsonl").read_text(encoding="utf-8").splitlines():
        event: dict[str, Any] = json.loads(line)
        if event["event"] == "agent_started":
            figures.agent_calls += 1
            if event["role"] == "executor":
                figures.executor_calls[event["task_id"]] = figures.executor_calls.get(event["task_id"], 0) + 1
        elif event["event"] == "batch_measured":
            figures.batches[event["task_id"]] = max(figures.batches.get(event["task_id"], 0), event["batch"])
    doc = StateStore(Workspace(workdir)).load()
    verified = [f for f in doc.facts if f.verified is Verified.YES]
    figures.verified_facts = len(verified)
    figures.facts = sorted(f.statement for f in verified)
    figures.dimensions = sorted(covered_dimensions(doc))
    return figures


def compare(root: Path) -> dict[str, Figures]:
    """Both rules on the same scripted research, in folders under `root`."""
    with PageServer() as pages:
        return {name: measure(rule, root / rule, pages.base_url) for name, rule in RULES.items()}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        results = compare(Path(tmp))
    tasks = sorted(PLAN_TASKS)
    print(f"{'':34} {'agent calls':>11} {'executor calls':>14}  {'per task (calls/batches)':<34} "
          f"{'verified facts':>14}  dimensions")  # fmt: skip
    for name, fig in results.items():
        per_task = " ".join(f"{t} {fig.executor_calls.get(t, 0)}/{fig.batches.get(t, 0)}" for t in tasks)
        print(f"{name:34} {fig.agent_calls:>11} {fig.executor_total:>14}  {per_task:<34} "
              f"{fig.verified_facts:>14}  {', '.join(fig.dimensions)}")  # fmt: skip
    old, new = results.values()
    print(f"new/old executor calls: {new.executor_total}/{old.executor_total} = "
          f"{new.executor_total / old.executor_total:.0%}; same verified facts: {old.facts == new.facts}; "
          f"same dimensions covered: {old.dimensions == new.dimensions}")  # fmt: skip


if __name__ == "__main__":
    main()
