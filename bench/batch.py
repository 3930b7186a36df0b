"""Benchmark: a batch of N jobs with fake agents of fixed latency, locally and on a local Ray cluster.

Prints, for each `--jobs` value, the makespan against two ideals: the jobs' own run time summed and
divided by the jobs at once (how well the scheduler packs them), and the first level's total run time
divided by the jobs at once (perfect scaling: runs slow down when they share CPUs). For Ray, the
per-job overhead: the time the batch waited for a job minus the time the run itself took, against the
same figure locally.
Run: python bench/batch.py [--count 20] [--latency 1.0] [--jobs 1,2,4] [--no-ray]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from deepresearch.batch.events import JobFinished  # noqa: E402
from deepresearch.batch.jobs import read_batch_file  # noqa: E402
from deepresearch.batch.local import Executor, LocalExecutor  # noqa: E402
from deepresearch.batch.scheduler import BatchOptions, BatchScheduler  # noqa: E402
from deepresearch.core.events import RecordingSink  # noqa: E402
from tests.helpers import write_scenario, write_workspace_config  # noqa: E402

RAY = str(Path(sys.executable).with_name("ray"))


def prepare(root: Path, count: int, latency: float) -> tuple[Path, dict[str, str]]:
    """The questions file and the environment the runs see (the fake agent with its latency)."""
    questions = root / "questions.txt"
    questions.write_text("".join(f"What is the value of index {n}?\n" for n in range(1, count + 1)))
    scenario = write_scenario(root / "scenario.yaml", {"sleep": latency})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "FAKE_AGENT", "RAY_"))}
    env.update(
        FAKE_AGENT_SCENARIO=str(scenario),
        XDG_CONFIG_HOME=str(root / "xdg"),
        RAY_USAGE_STATS_ENABLED="0",
        RAY_AUTH_MODE="disabled",
    )
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return questions, env


def run_batch(
    questions: Path, folder: Path, jobs: int, executor: Executor
) -> tuple[float, list[JobFinished]]:
    """Makespan and the finished-job events of one batch."""
    folder.mkdir(parents=True, exist_ok=True)  # the Ray executor already put its probe there
    write_workspace_config(folder, analysis="never", max_figures=0, verify_support="never")
    sink = RecordingSink()
    began = time.monotonic()
    BatchScheduler(
        folder, read_batch_file(questions), BatchOptions(jobs=jobs, retries=0), executor, sink
    ).run()
    finished = [e for e in sink.events if isinstance(e, JobFinished)]
    return time.monotonic() - began, finished


def report(label: str, jobs: int, makespan: float, finished: list[JobFinished], serial: float) -> float:
    """Print one line; return the mean per-job overhead (waited for minus ran)."""
    work = sum(e.run_seconds for e in finished)
    overhead = statistics.mean(e.seconds - e.run_seconds for e in finished)
    bad = [e.job_id for e in finished if e.status != "done"]
    print(
        f"{label:6} --jobs {jobs}: makespan {makespan:6.1f} s · packed ideal {work / jobs:6.1f} s "
        f"(x{makespan / (work / jobs):.2f}) · scaling ideal {serial / jobs:6.1f} s (x{makespan / (serial / jobs):.2f})"
        f" · mean run {work / len(finished):5.2f} s · overhead/job {overhead * 1000:4.0f} ms"
        + (f" · NOT DONE: {bad}" if bad else ""),
        flush=True,
    )
    return overhead


def start_ray(env: dict[str, str], cpus: int) -> tuple[str, str]:
    """A local Ray head with `cpus` CPUs and as many `agent_cli`; returns (address, temp dir)."""
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    subprocess.run(
        [RAY, "start", "--head", "--port=0", f"--num-cpus={cpus}", f'--resources={{"agent_cli": {cpus}}}',
         f"--temp-dir={temp}", "--include-dashboard=false", "--disable-usage-stats"],
        env=env, check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    return (Path(temp) / "ray_current_cluster").read_text().strip(), temp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per fake agent call")
    parser.add_argument("--jobs", default="1,2,4")
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    levels = [int(x) for x in args.jobs.split(",")]
    root = Path(tempfile.mkdtemp(prefix="bench-batch-"))
    questions, env = prepare(root, args.count, args.latency)
    print(f"{args.count} jobs, fake agent {args.latency:g} s per call, {os.cpu_count()} CPUs", flush=True)
    local: dict[int, float] = {}
    serial = 0.0  # total run time at the first level (give --jobs 1 first: one run at a time)
    for jobs in levels:
        makespan, finished = run_batch(questions, root / f"local-{jobs}", jobs, LocalExecutor(env))
        serial = serial or sum(e.run_seconds for e in finished)
        local[jobs] = report("local", jobs, makespan, finished, serial)
    if not args.no_ray:
        bench_ray(questions, root, env, levels, local, serial)
    shutil.rmtree(root, ignore_errors=True)


def bench_ray(
    questions: Path,
    root: Path,
    env: dict[str, str],
    levels: list[int],
    local: dict[int, float],
    serial: float,
) -> None:
    """The same batches as Ray tasks on a local head (started and stopped here)."""
    from deepresearch.batch.ray_exec import RayExecutor

    address, temp = start_ray(env, max(levels))
    os.environ.update(
        RAY_ADDRESS=address, **{k: v for k, v in env.items() if k.startswith(("FAKE_AGENT", "RAY_"))}
    )
    try:
        for jobs in levels:
            folder = root / f"ray-{jobs}"
            executor = RayExecutor(None, folder, jobs=jobs, retries=0)
            makespan, finished = run_batch(questions, folder, jobs, executor)
            overhead = report("ray", jobs, makespan, finished, serial)
            print(f"{'':6} Ray adds {(overhead - local[jobs]) * 1000:.0f} ms per job over local", flush=True)
    finally:
        subprocess.run([RAY, "stop", "--force"], capture_output=True, timeout=120)
        shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    main()
