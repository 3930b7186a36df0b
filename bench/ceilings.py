"""Benchmark: agent calls and searches a run needs at each effort level, to choose the default ceilings.

For each effort (quick, standard, deep) with no explicit limits, two scripted runs (fake agent CLI,
pages on 127.0.0.1, every executor batch running 3 searches against a local provider):

- typical: the planner's 4 tasks find new pages in batches 1-2 and then only restate; round 1 scores 6
  with two gaps, round 2 scores 7.5 and research stops;
- endless: every batch of every executor finds something new and every round asks for more: only a
  ceiling stops it.

Prints agent calls, executor calls, searches, rounds and why each run stopped, beside the effort's
ceilings. Run: python bench/ceilings.py [--effort quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from deepresearch.core.effort import CEILINGS  # noqa: E402
from deepresearch.core.workspace import Workspace  # noqa: E402
from deepresearch.state.store import StateStore  # noqa: E402
from tests.helpers import PageServer, write_scenario, write_workspace_config  # noqa: E402
from tests.search.search_mock_server import MockProviders  # noqa: E402

TASKS = {
    "dimensions": [{"id": "D1", "name": "Indexes", "description": "Index values"}],
    "outline": [{"section": "Indexes", "dimensions": ["D1"], "questions": "What values?"}],
    "tasks": [
        {"id": f"E{n}", "task": f"Index {n}", "dimensions": ["D1"], "priority": "high", "depends": []}
        for n in range(1, 5)
    ],
}


def scenario(kind: str, page_base: str) -> dict[str, Any]:
    """The scripted research of one kind (see the module doc)."""
    base: dict[str, Any] = {"page_base": page_base, "planner": TASKS}
    if kind == "typical":
        gaps = {"score": 6, "knowledge_gaps": ["index five", "index six"], "recommendation": "continue"}
        base["executor"] = {"default": {"finds": 2, "restates": True, "queries": 3}}
        base["reflector"] = {"rounds": {1: gaps, 2: {"score": 7.5, "knowledge_gaps": []}}}
    else:
        rounds = {r: {"score": 2 + r, "knowledge_gaps": [f"more {r}"]} for r in range(1, 20)}
        base["executor"] = {"default": {"keeps_finding": True, "queries": 3}}
        base["reflector"] = {"rounds": rounds}
    return base


def run(effort: str, kind: str, root: Path, page_base: str, providers: MockProviders) -> dict[str, Any]:
    """One run; its calls, executor calls, searches, rounds and termination reason."""
    work = root / f"{effort}-{kind}"
    work.mkdir()
    write_workspace_config(work, max_batches=None, min_tier1_sources=1, concurrency=2)
    path = write_scenario(root / f"{effort}-{kind}.yaml", scenario(kind, page_base))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "FAKE_AGENT"))}
    env.update(providers.env(("serper",)))
    env.update(FAKE_AGENT_SCENARIO=str(path), PYTHONPATH=str(REPO), XDG_CONFIG_HOME=str(work / "xdg"))
    proc = subprocess.run(
        [sys.executable, "-m", "deepresearch", "-p", "How do the indexes compare?", "-o", str(work),
         "--effort", effort, "--quiet"],
        env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=1800,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"{effort}/{kind} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    events = [json.loads(line) for line in (work / "logs" / "events.jsonl").read_text().splitlines()]
    started = [e for e in events if e["event"] == "agent_started"]
    doc = StateStore(Workspace(work)).load()
    searches = json.loads((work / ".deepresearch" / "searches.json").read_text())["used"]
    return {
        "calls": len(started),
        "executor": sum(1 for e in started if e["role"] == "executor"),
        "searches": searches,
        "rounds": doc.front.round,
        "reason": doc.front.termination_reason,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--effort", choices=sorted(CEILINGS), action="append")
    efforts = parser.parse_args().effort or ["quick", "standard", "deep"]
    with tempfile.TemporaryDirectory() as tmp, PageServer() as pages:
        providers = MockProviders().start()
        try:
            for effort in efforts:
                ceiling = CEILINGS[effort]
                print(
                    f"{effort}: ceilings {ceiling.agent_calls} calls, {ceiling.minutes} min, {ceiling.searches} searches"
                )
                for kind in ("typical", "endless"):
                    fig = run(effort, kind, Path(tmp), pages.base_url, providers)
                    print(f"  {kind:8} {fig['calls']:>3} agent calls ({fig['executor']} executor), "
                          f"{fig['searches']:>3} searches, {fig['rounds']} rounds; stopped: {fig['reason']}")  # fmt: skip
        finally:
            providers.stop()


if __name__ == "__main__":
    main()
