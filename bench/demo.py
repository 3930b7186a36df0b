"""Benchmark: how long `deepresearch demo` takes, the figure the README's quick start states.

Runs the demo as a person would (`deepresearch demo -q` in a fresh folder, default settings: the
scripted agent, the bundled site on 127.0.0.1, Chromium when this machine has one), `--runs` times,
and prints each run's wall time, the CPU time of all its processes, its agent calls and searches,
and whether its report passed verification. Run: python bench/demo.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_once(root: Path) -> dict[str, object]:
    """One demo in `root`; its times and counts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPRESEARCH_")}
    env["XDG_CONFIG_HOME"] = str(root / "xdg")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "deepresearch", "demo", "-q"],
        cwd=root, env=env, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    folder = root / "deepresearch-demo"
    usage = [json.loads(line) for line in (folder / ".deepresearch" / "usage.jsonl").read_text().splitlines()]
    searches = [
        line for line in (folder / "logs" / "tools.jsonl").read_text().splitlines() if '"search"' in line
    ]
    return {
        "exit": proc.returncode,
        "wall": wall,
        "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "calls": len(usage),
        "searches": len(searches),
        "verified": "verified: every check passed" in proc.stdout,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    walls = []
    print(f"{'run':>3} {'exit':>4} {'wall':>8} {'cpu':>8} {'calls':>5} {'searches':>8}  verified")
    for n in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="bench-demo-") as tmp:
            found = run_once(Path(tmp))
        walls.append(float(str(found["wall"])))
        print(
            f"{n:>3} {found['exit']:>4} {found['wall']:>7.1f}s {found['cpu']:>7.1f}s {found['calls']:>5} "
            f"{found['searches']:>8}  {found['verified']}"
        )
    print(
        f"median wall time: {statistics.median(walls):.1f} s over {len(walls)} run(s); {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
