"""The render worker: `python -m deepresearch.figures.worker < job.json`, run in a child process.

The job is JSON only: `{"spec": FigureSpec.to_json(), "png": path, "svg": path}`; no agent code is
ever executed. On success it writes both files and prints `{"warnings": [...]}` on stdout (a missing
CJK font, glyphs matplotlib could not find); on failure it exits non-zero with the error on stderr.

Test hook: `DEEPRESEARCH_FIGURE_WORKER_SLEEP=<seconds>` in the environment makes the worker sleep
that long before drawing, so tests can check that a hanging renderer is killed at the time limit.
Agents cannot set it: the orchestrator starts the worker with its own environment.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from typing import Any

SLEEP_ENV = "DEEPRESEARCH_FIGURE_WORKER_SLEEP"


def _strings(spec: dict[str, Any]) -> str:
    """Every text the figure shows (titles, labels, series names), to decide on CJK fonts."""
    parts = [spec["title"], spec["x_label"], spec["y_label"], spec["unit"]]
    for series in spec["series"]:
        parts.append(series["name"])
        parts.extend(p["label"] for p in series["points"])
    return " ".join(parts)


def render(job: dict[str, Any]) -> list[str]:
    """Draw the job's spec into its PNG and SVG files; return warnings."""
    import matplotlib

    matplotlib.use("Agg")
    from deepresearch.figures.draw import STYLE, draw
    from deepresearch.figures.fonts import font_chain, has_cjk

    spec = job["spec"]
    families, warning = font_chain(has_cjk(_strings(spec)))
    found = [warning] if warning else []
    matplotlib.rcParams.update(
        {"font.family": families, "font.size": STYLE["font_size"], "svg.fonttype": "path"}
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure = draw(spec)
        figure.savefig(job["png"], format="png", facecolor="white")
        figure.savefig(job["svg"], format="svg", facecolor="white")
    missing = sorted({str(w.message) for w in caught if "missing from font" in str(w.message)})
    if missing and not warning:
        found.append(f"{len(missing)} glyph(s) missing from the fonts, e.g. {missing[0]}")
    return found


def main() -> int:
    """Read the job from stdin, render it, print the warnings as JSON."""
    job = json.loads(sys.stdin.buffer.read())  # bytes: UTF-8 whatever the locale says
    delay = os.environ.get(SLEEP_ENV)
    if delay:
        time.sleep(float(delay))
    print(json.dumps({"warnings": render(job)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
