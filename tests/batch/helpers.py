"""Batch test helpers: a batch folder configured for the fake agent, and the real command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.helpers import write_scenario, write_workspace_config

# Short runs: no analysis, no figures, one batch per task; the fake agent's latency makes overlap visible.
FAST = {"analysis": "never", "max_figures": 0}


def batch_folder(root: Path, **settings: object) -> Path:
    """DIR with a deepresearch.yaml (copied into every job) that selects the fake agent."""
    folder = root / "batch"
    folder.mkdir(parents=True, exist_ok=True)
    write_workspace_config(folder, **{**FAST, **settings})
    return folder


def scenario_env(env: dict[str, str], path: Path, scenario: dict[str, Any]) -> dict[str, str]:
    """The environment with FAKE_AGENT_SCENARIO pointing at `scenario`, written to `path`."""
    return {**env, "FAKE_AGENT_SCENARIO": str(write_scenario(path, scenario))}


def batch_argv(file: Path, folder: Path, *extra: str) -> list[str]:
    """`python -m deepresearch batch FILE -o DIR ...`."""
    return [sys.executable, "-m", "deepresearch", "batch", str(file), "-o", str(folder), *extra]


def run_batch(
    file: Path, folder: Path, env: dict[str, str], *extra: str, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    """The batch command as a real subprocess, to the end."""
    return subprocess.run(
        batch_argv(file, folder, *extra), cwd=folder.parent, env=env, capture_output=True, text=True,
        timeout=timeout, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def start_batch(file: Path, folder: Path, env: dict[str, str], *extra: str) -> subprocess.Popen[str]:
    """The batch command started in the background."""
    return subprocess.Popen(
        batch_argv(file, folder, *extra), cwd=folder.parent, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip


def jsonl_file(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    """A batch file: dicts become JSON lines, strings are written as they are (bad lines)."""
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def batch_json(folder: Path) -> dict[str, Any]:
    """DIR/batch.json, jobs keyed by id."""
    data = json.loads((folder / "batch.json").read_text(encoding="utf-8"))
    data["jobs"] = {job["id"]: job for job in data["jobs"]}
    return data


def events(workdir: Path) -> list[dict[str, Any]]:
    """A job's logs/events.jsonl."""
    path = workdir / "logs" / "events.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def run_spans(workdir: Path) -> list[tuple[float, float]]:
    """(start, end) of each session of a job: run_started to the last event before the next one."""
    spans: list[tuple[float, float]] = []
    for event in events(workdir):
        if event["event"] == "run_started":
            spans.append((event["ts"], event["ts"]))
        elif spans:
            spans[-1] = (spans[-1][0], event["ts"])
    return spans


def max_overlap(spans: list[tuple[float, float]]) -> int:
    """The most spans open at one moment."""
    edges = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans], key=lambda x: (x[0], x[1]))
    most = now = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


def calls_by_task(log: Path, workspace: str) -> dict[str, int]:
    """Finished fake-agent calls in one job workspace (from the scenario's calls_log), by task or role."""
    counts: dict[str, int] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["workdir"] != workspace:
            continue
        key = entry["task"] or entry["role"]
        counts[key] = counts.get(key, 0) + 1
    return counts
