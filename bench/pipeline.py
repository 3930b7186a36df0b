"""Benchmark: a full pipeline run with N independent tasks and a fake agent of fixed latency.

Prints the execute phase's makespan against the ideal (total executor work / concurrency): the ratio
is the figure to keep near 1. Run: python bench/pipeline.py [--tasks 8] [--latency 1.0] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.helpers import PageServer, write_scenario, write_workspace_config  # noqa: E402


def plan(tasks: int) -> dict[str, object]:
    return {
        "complexity": "comparison",
        "dimensions": [{"id": "D1", "name": "Indexes", "description": "Index values"}],
        "outline": [{"section": "Indexes", "dimensions": ["D1"], "questions": "What values?"}],
        "tasks": [
            {"id": f"E{n}", "task": f"Index {n}", "dimensions": ["D1"], "priority": "high", "depends": []}
            for n in range(1, tasks + 1)
        ],
    }


def executor_spans(workdir: Path) -> list[tuple[float, float]]:
    starts: dict[str, float] = {}
    spans = []
    for line in (workdir / "logs" / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event.get("role") != "executor":
            continue
        if event["event"] == "agent_started":
            starts[event["label"]] = event["ts"]
        elif event["event"] == "agent_finished":
            spans.append((starts.pop(event["label"]), event["ts"]))
    return spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds each executor call sleeps")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, PageServer() as pages:
        work = Path(tmp) / "ws"
        work.mkdir()
        write_workspace_config(
            work, concurrency=args.concurrency, max_tasks=args.tasks, analysis="never", max_figures=0
        )
        scenario = {
            "planner": plan(args.tasks),
            "executor": {"default": {"sleep": args.latency}},
            "page_base": pages.base_url,
        }
        env = {**os.environ, "FAKE_AGENT_SCENARIO": str(write_scenario(Path(tmp) / "s.yaml", scenario))}
        env["PYTHONPATH"] = str(REPO)
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "deepresearch", "-p", "Benchmark question", "-o", str(work), "--quiet"],
            env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        wall = time.monotonic() - started
        if proc.returncode != 0:
            sys.exit(f"run failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        spans = executor_spans(work)
    makespan = max(end for _, end in spans) - min(start for start, _ in spans)
    work_total = sum(end - start for start, end in spans)
    ideal = work_total / args.concurrency
    print(f"tasks {args.tasks}, executor latency {args.latency:.2f}s, concurrency {args.concurrency}")
    print(f"executor calls        {len(spans)}")
    print(f"mean executor call    {work_total / len(spans):.2f}s (latency + process start + archiving)")
    print(f"execute makespan      {makespan:.2f}s")
    print(f"ideal (work/conc.)    {ideal:.2f}s")
    print(f"makespan / ideal      {makespan / ideal:.2f}")
    print(f"whole run, wall clock {wall:.2f}s")


if __name__ == "__main__":
    main()
