"""The render worker: `python -m deepresearch.figures.worker < jobs.json`, one child process per run.

The request is JSON only: `{"jobs": [{"spec": FigureSpec.to_json(), "png": path, "svg": path}, ...],
"timeout": seconds, "max_failures": n}`; no agent code is ever executed. matplotlib is imported once
(half a second of the worker's start), then each figure is drawn in a child forked from the worker,
killed at its own time limit. One JSON line per job on stdout, in order: `{"ok": true, "warnings":
[...]}` (a missing CJK font, glyphs matplotlib could not find) or `{"ok": false, "error": "..."}` /
`{"ok": false, "timed_out": true}`; after `max_failures` failures in a row the rest are not drawn.

Test hook: `DEEPRESEARCH_FIGURE_WORKER_SLEEP=<seconds>` in the environment makes the worker sleep
that long before drawing, so tests can check that a hanging renderer is killed at the time limit.
Agents cannot set it: the orchestrator starts the worker with its own environment.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import sys
import time
import warnings
from typing import Any, BinaryIO

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


def _error(exc: BaseException) -> str:
    return (f"{type(exc).__name__}: {exc}".strip().splitlines() or [type(exc).__name__])[-1]


def _draw_here(job: dict[str, Any], out: int) -> None:
    """In the forked child: draw one job, write its result to `out`, exit without cleanup."""
    try:
        delay = os.environ.get(SLEEP_ENV)
        if delay:
            time.sleep(float(delay))
        result: dict[str, Any] = {"ok": True, "warnings": render(job)}
    except BaseException as exc:  # every failure is the parent's result, never raised here
        result = {"ok": False, "error": _error(exc)}
    with os.fdopen(out, "wb") as pipe:
        pipe.write(json.dumps(result).encode("utf-8"))
    os._exit(0)


def _collect(pid: int, pipe: BinaryIO, timeout: float) -> dict[str, Any]:
    """The forked child's result; past `timeout` it is killed and the result says `timed_out`."""
    deadline, data = time.monotonic() + timeout, b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([pipe], [], [], left)[0]:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return {"ok": False, "timed_out": True}
        chunk = pipe.read(65536)
        if not chunk:
            break
        data += chunk
    _, status = os.waitpid(pid, 0)
    if not data:
        return {"ok": False, "error": f"the renderer died (exit status {os.waitstatus_to_exitcode(status)})"}
    result: dict[str, Any] = json.loads(data)
    return result


def draw_in_child(job: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Draw one job in a forked child of this process (matplotlib already imported), so a figure
    that hangs or crashes is stopped alone at its own time limit."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        _draw_here(job, write)
    os.close(write)
    with os.fdopen(read, "rb", buffering=0) as pipe:
        return _collect(pid, pipe, timeout)


def main() -> int:
    """Read the jobs from stdin; print one JSON result line per job, in order, as each is drawn;
    stop after `max_failures` failures in a row."""
    request = json.loads(sys.stdin.buffer.read())  # bytes: UTF-8 whatever the locale says
    _preload()
    in_a_row = 0
    for job in request["jobs"]:
        result = draw_in_child(job, float(request["timeout"]))
        print(json.dumps(result), flush=True)
        in_a_row = 0 if result["ok"] else in_a_row + 1
        if in_a_row >= int(request["max_failures"]):
            break
    return 0


def _preload() -> None:
    """Import matplotlib and the drawing code once, before the children fork from this process."""
    import matplotlib

    matplotlib.use("Agg")
    importlib.import_module("deepresearch.figures.draw")  # and the fonts module it uses


if __name__ == "__main__":
    sys.exit(main())
