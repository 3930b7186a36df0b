"""How fast the command starts: `--help`, `--version`, `status DIR` and `check DIR` as whole processes.

    python bench/cli_start.py [--runs 9] [--workspace DIR]

Each command runs `--runs` times as a new process (the `deepresearch` console script of this
Python, as a person runs it); the bench prints the best and the median wall time, and the best and
median CPU time (user + system of the process, from its rusage), which a busy machine disturbs far
less than wall time. `status` and `check` need a finished run: without `--workspace`, one is made
first with the scripted fake agent (tests/fake_agent, 4 tasks, plain-HTTP archiving of local pages)
and copied for every `check` (check rewrites report.md's References). Nothing asserts.
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

from tests.helpers import PageServer, write_scenario, write_workspace_config  # noqa: E402


def command() -> list[str]:
    """The console script next to this Python (what `pip install` made), else `python -m`."""
    script = Path(sys.executable).with_name("deepresearch")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "deepresearch"]


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, exit code) of one run of `argv`."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def finished_run(folder: Path) -> Path:
    """A finished run made with the fake agent: task.md, report.md, assets/, logs/."""
    work = folder / "run"
    work.mkdir()
    write_workspace_config(work, analysis="never", max_figures=0)
    with PageServer() as pages:
        scenario = write_scenario(folder / "scenario.yaml", {"page_base": pages.base_url})
        env = {**os.environ, "FAKE_AGENT_SCENARIO": str(scenario), "PYTHONPATH": str(REPO)}
        proc = subprocess.run(
            [*command(), "-p", "What do the bulletins report for 2025?", "-o", str(work), "--quiet"],
            env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    if proc.returncode != 0:
        sys.exit(f"the run that status and check read failed ({proc.returncode}):\n{proc.stderr}")
    return work


def measure(label: str, argv: list[str], runs: int, env: dict[str, str], fresh: Path | None) -> None:
    """Run `argv` `runs` times (on a fresh copy of `fresh` each time, if given) and print the figures."""
    walls, cpus, codes = [], [], set()
    for _ in range(runs):
        target: list[str] = []
        if fresh is not None:
            copy = fresh.with_name(f"{fresh.name}-copy")
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(fresh, copy)
            target = [str(copy)]
        wall, cpu, code = timed([*argv, *target], env)
        walls.append(wall)
        cpus.append(cpu)
        codes.add(code)
    print(
        f"{label:16} wall best {min(walls):5.2f} s  median {statistics.median(walls):5.2f} s   "
        f"CPU best {min(cpus):5.2f} s  median {statistics.median(cpus):5.2f} s   exit {sorted(codes)}"
    )


def main() -> None:
    """Time the four commands and print the table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument(
        "--workspace", type=Path, help="a finished run to read (default: made with the fake agent)"
    )
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPRESEARCH_")}
    base = command()
    with tempfile.TemporaryDirectory() as tmp:
        run = args.workspace.resolve() if args.workspace else finished_run(Path(tmp))
        print(
            f"{' '.join(Path(a).name for a in base)}: {args.runs} runs each, {os.cpu_count()} CPUs, run {run}\n"
        )
        measure("--help", [*base, "--help"], args.runs, env, None)
        measure("--version", [*base, "--version"], args.runs, env, None)
        measure("status DIR", [*base, "status", str(run)], args.runs, env, None)
        local = Path(tmp) / "check" / "run"
        local.parent.mkdir()
        shutil.copytree(run, local)
        measure("check DIR", [*base, "check"], args.runs, env, local)


if __name__ == "__main__":
    main()
