"""Benchmark: what a run's agent calls are spent on — research, repair, or proof of saturation —
before and after the self-check tool and the rules that stop sending research back for nothing.

One scripted research (fake agent CLI, pages on 127.0.0.1, two rounds), with the mistakes the
real-model runs of issue 24 made:

- E1's first output states a number its quote lacks ("up from 9.9 points"): a repair call;
- E2 judges its second batch as bringing nothing new and stops there, but code counts it as new:
  another call only to prove saturation;
- E3 lists in its batch log a source E1 archived (S01), without archiving it itself;
- round 1's reflector finds E1 and E2 in conflict; the C-task settling it answers in its first batch
  and stops there;
- the synthesizer's first draft cites a source that does not exist: a repair call.

Three runs of the same script:

- before: the code of REF (default `main`, exported with `git archive`), agents as they were;
- rules only: this code, agents that do not run the self-check;
- after: this code, agents that run the self-check as their prompts say.

Purposes, from logs/events.jsonl: a repair is a call that follows an `output_repair` event; a proof
of saturation is an executor call after a task's first whose batches all brought nothing new by
code's rules; every other call is research. Prints calls by purpose per run and the share of repair
and proof calls (the goal: at most 10%). Run: python bench/call_purposes.py [--before REF]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from deepresearch.core.workspace import Workspace  # noqa: E402
from tests.helpers import PageServer, page_value, write_scenario, write_workspace_config  # noqa: E402

QUESTION = "How do the three indexes compare, and why?"
PLAN = {
    "complexity": "comparison",
    "dimensions": [{"id": "D1", "name": "Level", "description": "Index values"}],
    "outline": [{"section": "Indexes", "dimensions": ["D1"], "questions": "What values, and why?"}],
    "tasks": [
        {"id": "E1", "task": "Index one", "dimensions": ["D1"], "priority": "high", "depends": []},
        {"id": "E2", "task": "Index two", "dimensions": ["D1"], "priority": "high", "depends": []},
        {"id": "E3", "task": "Index three", "dimensions": ["D1"], "priority": "medium", "depends": ["E1"]},
    ],
}
WRONG = {
    "statement": f"The E1 index reached {page_value('E1')} points in 2025, up from 9.9 points in 2024.",
    "sources": ["A"],
    "quote": f"In 2025 the E1 index reached {page_value('E1')} points",
    "confidence": "high",
}
CONFLICT = {"facts": ["Fact-001", "Fact-002"], "topic": "index level", "severity": "high"}
SETTINGS = {
    "min_batches": 1, "saturation_threshold": 1, "min_tier1_sources": 1, "max_batches": 6,
    "max_calls_per_task": 2, "concurrency": 1, "breadth": 1, "max_rounds": 2,
}  # fmt: skip
RUNS = {"before": False, "rules only": False, "after": True}  # run name → agents run the self-check


def scenario(page_base: str, self_check: bool) -> dict[str, Any]:
    """The scripted research, with agents that run the self-check or not."""
    executors: dict[str, Any] = {
        "E1": {"facts_first": [WRONG]},
        "E2": {"finds": [1, 2], "judges_old": [2], "restates": True},
        "E3": {"lists_archived": ["S01"]},
        "C1": {"stop_after": 1},
    }
    if self_check:
        executors["default"] = {"self_check": True}
    synthesizer = {"append_first": "Sales will triple by 2030 [S99].", "self_check": self_check}
    rounds = {1: {"score": 5, "knowledge_gaps": ["which level is right"], "conflicts": [CONFLICT]}}
    return {
        "page_base": page_base, "planner": PLAN, "executor": executors, "synthesizer": synthesizer,
        "reflector": {"rounds": rounds},
    }  # fmt: skip


@dataclass
class Purposes:
    """One run's agent calls by purpose."""

    calls: int
    repair: int
    proof: int
    exit_code: int

    @property
    def research(self) -> int:
        return self.calls - self.repair - self.proof

    @property
    def wasted(self) -> float:
        """Repair and proof calls as a share of all calls."""
        return (self.repair + self.proof) / self.calls if self.calls else 0.0


def purposes(events: list[dict[str, Any]]) -> Purposes:
    """Calls by purpose, from a run's events (see the module docstring)."""
    calls = sum(1 for e in events if e["event"] == "agent_started")
    repair = sum(1 for e in events if e["event"] == "output_repair")
    batches: dict[tuple[str, int], list[bool]] = {}
    for event in events:
        if event["event"] == "batch_measured":
            batches.setdefault((event["task_id"], int(event["call"])), []).append(bool(event["new"]))
    proof = sum(1 for (_task, call), new in batches.items() if call > 1 and not any(new))
    return Purposes(calls, repair, proof, 0)


def measure(workdir: Path, page_base: str, self_check: bool, code: Path) -> Purposes:
    """Run the scripted research in `workdir` with the deepresearch at `code`; its calls by purpose."""
    workdir.mkdir(parents=True)
    write_workspace_config(workdir, **SETTINGS)
    path = write_scenario(workdir.parent / f"{workdir.name}.yaml", scenario(page_base, self_check))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "FAKE_AGENT"))}
    env.update(FAKE_AGENT_SCENARIO=str(path), PYTHONPATH=str(code), XDG_CONFIG_HOME=str(workdir / "xdg"))
    proc = subprocess.run(
        [sys.executable, "-m", "deepresearch", "-p", QUESTION, "-o", str(workdir), "--quiet"],
        env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=900, cwd=workdir,
    )  # fmt: skip
    log = Workspace(workdir).events_jsonl
    if not log.is_file():
        raise RuntimeError(f"run failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    found = purposes([json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()])
    found.exit_code = proc.returncode
    return found


def export(ref: str, target: Path) -> Path | None:
    """The code of `ref` exported into `target` (None when git cannot give it)."""
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref], capture_output=True, timeout=120)
    if archive.returncode != 0:
        print(f"before: cannot export {ref}: {archive.stderr.decode(errors='replace').strip()}")
        return None
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True, timeout=120)
    return target


def compare(root: Path, before: str | None) -> dict[str, Purposes]:
    """The three runs (the first only when `before` can be exported), in folders under `root`."""
    old = export(before, root / "before-code") if before else None
    results: dict[str, Purposes] = {}
    with PageServer() as pages:
        for name, self_check in RUNS.items():
            code = old if name == "before" else REPO
            if code is None:
                continue
            results[name] = measure(root / name.replace(" ", "-"), pages.base_url, self_check, code)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="The git ref of the code before (default: main).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = compare(Path(tmp), args.before)
    print(
        f"{'':12} {'agent calls':>11} {'research':>9} {'repair':>7} {'proof':>6} {'repair+proof':>13}  exit"
    )
    for name, p in results.items():
        print(
            f"{name:12} {p.calls:>11} {p.research:>9} {p.repair:>7} {p.proof:>6} {p.wasted:>12.0%}  {p.exit_code}"
        )
    after = results["after"]
    verdict = "within" if after.wasted <= 0.10 else "ABOVE"
    print(f"after: repair and proof calls are {after.repair + after.proof} of {after.calls} "
          f"({after.wasted:.0%}), {verdict} the 10% goal")  # fmt: skip
    counts = Counter(p.exit_code for p in results.values())
    if set(counts) - {0}:
        print(f"exit codes: {dict(counts)} (0: a report that passed)")


if __name__ == "__main__":
    main()
