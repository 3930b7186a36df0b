"""Benchmark: a full pipeline run with N independent tasks and a fake agent of fixed latency.

Prints, for a run whose executors archive through the run's tool service and for the baseline where
each executor's `deepresearch archive` does its own work (its own CLI start-up, its own Chromium):

- the per-call overhead beyond the agent's own latency (mean executor call minus the latency:
  process start of the agent, one archive of one page, writing its file);
- the execute phase's makespan against the ideal (total executor work / concurrency);
- with `--sandbox bwrap`, every agent call inside bubblewrap (its own folder, the private folder
  hidden, the archive checked by the host policy and its proxy), and the time to make one call's
  private copy of a CLI's configuration (a ~/.claude of a person who uses it every day).

Run: python bench/pipeline.py [--tasks 8] [--latency 1.0] [--concurrency 3] [--no-browser] [--service-only]
     [--sandbox off|bwrap]
(--concurrency defaults to the configuration's default, 3 executors at once.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from deepresearch.core.config import Config  # noqa: E402
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


@dataclass
class Measured:
    spans: list[tuple[float, float]]
    wall: float
    archive_seconds: list[float]  # the service's own time per archive request (empty without it)


def run(args: argparse.Namespace, with_service: bool) -> Measured:
    with tempfile.TemporaryDirectory() as tmp, PageServer() as pages:
        work = Path(tmp) / "ws"
        work.mkdir()
        write_workspace_config(
            work, browser=args.browser, concurrency=args.concurrency, max_tasks=args.tasks, analysis="never",
            max_figures=0, sandbox=args.sandbox,
        )  # fmt: skip
        scenario = {
            "planner": plan(args.tasks),
            "executor": {"default": {"sleep": args.latency}},
            "page_base": pages.base_url,
            "without_service": not with_service,
        }
        # In the workspace: the sandbox hides the rest of /tmp.
        env = {**os.environ, "FAKE_AGENT_SCENARIO": str(write_scenario(work / "scenario.yaml", scenario))}
        env["PYTHONPATH"] = str(REPO)
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "deepresearch", "-p", "Benchmark question", "-o", str(work), "--quiet"],
            env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        wall = time.monotonic() - started
        if proc.returncode != 0:
            sys.exit(f"run failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        log = work / "logs" / "tools.jsonl"
        entries = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        seconds = [
            e["seconds"] for e in entries if e.get("op") == "archive" and e.get("call") != "orchestrator"
        ]
        return Measured(executor_spans(work), wall, seconds)


def report(name: str, measured: Measured, args: argparse.Namespace) -> float:
    spans = measured.spans
    durations = [end - start for start, end in spans]
    makespan = max(end for _, end in spans) - min(start for start, _ in spans)
    ideal = sum(durations) / args.concurrency
    overhead = statistics.mean(durations) - args.latency
    print(f"{name}")
    print(f"  executor calls                 {len(spans)}")
    print(f"  mean executor call             {statistics.mean(durations):.2f}s")
    print(
        f"  overhead per call beyond agent {overhead:.2f}s (median {statistics.median(durations) - args.latency:.2f}s)"
    )
    if measured.archive_seconds:
        print(
            f"  archive in the service         mean {statistics.mean(measured.archive_seconds):.2f}s, "
            f"first {measured.archive_seconds[0]:.2f}s, "
            f"later {statistics.mean(measured.archive_seconds[1:] or [0]):.2f}s"
        )
    print(f"  execute makespan / ideal       {makespan:.2f}s / {ideal:.2f}s = {makespan / ideal:.2f}")
    print(f"  whole run, wall clock          {measured.wall:.2f}s")
    return overhead


def config_copy_seconds(rounds: int = 20) -> tuple[float, int]:
    """(mean seconds to make one call's private copy of a CLI's configuration, bytes copied) for a
    ~/.claude with settings, plugins and 50 MB of session history (which is not copied)."""
    from deepresearch.agents.claude import ClaudeBackend
    from deepresearch.agents.confine import private_config

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        claude = home / ".claude"
        for n in range(200):  # plugins, commands, agents: many small files
            path = claude / "plugins" / f"p{n % 10}" / f"file{n}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x" * 4000)
        (claude / "settings.json").write_text('{"theme": "dark"}')
        (claude / ".credentials.json").write_text('{"claudeAiOauth": {}}')
        (home / ".claude.json").write_text("{" + '"k": 1,' * 20000 + '"end": 0}')
        for n in range(50):  # session history: left behind
            (claude / "projects" / "p").mkdir(parents=True, exist_ok=True)
            (claude / "projects" / "p" / f"s{n}.jsonl").write_bytes(b"x" * 1_000_000)
        times = []
        copied = 0
        for _ in range(rounds):
            started = time.perf_counter()
            config = private_config(ClaudeBackend(), {"HOME": str(home)})
            times.append(time.perf_counter() - started)
            assert config.scratch is not None
            copied = sum(p.stat().st_size for p in config.scratch.rglob("*") if p.is_file())
            config.close()
    return statistics.mean(times), copied


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds each executor call sleeps")
    parser.add_argument("--concurrency", type=int, default=Config().concurrency)
    parser.add_argument("--service-only", action="store_true", help="skip the run without the tool service")
    parser.add_argument(
        "--no-browser", dest="browser", action="store_false", help="archive with plain HTTP (no Chromium)"
    )
    parser.add_argument("--sandbox", choices=("off", "bwrap"), default="off", help="agents in bubblewrap")
    args = parser.parse_args()
    print(
        f"tasks {args.tasks}, executor latency {args.latency:.2f}s, concurrency {args.concurrency}, "
        f"{'Chromium' if args.browser else 'plain HTTP'}, sandbox {args.sandbox}, {os.cpu_count()} CPUs\n"
    )
    if args.sandbox == "bwrap":
        seconds, copied = config_copy_seconds()
        print(f"private copy of a CLI's config per call: {seconds * 1000:.1f} ms ({copied / 1e6:.1f} MB)\n")
    if args.service_only:
        report("with the tool service (one browser for the run)", run(args, True), args)
        return
    without = report(
        "without the tool service (each archive its own CLI and browser)", run(args, False), args
    )
    with_service = report("with the tool service (one browser for the run)", run(args, True), args)
    print(f"\noverhead per executor call: {without:.2f}s → {with_service:.2f}s")


if __name__ == "__main__":
    main()
