"""Time parse, validate and render of a large task.md at 1×, 2× and 4× size.

1× is 5,000 facts, 1,000 sources and 200 tasks. Run: `python bench/state.py`. Prints a plain table
and the growth ratio of each step from 1× to 4× (4.0 means linear).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deepresearch.state import model as m
from deepresearch.state.parser import parse_with_lines
from deepresearch.state.validate import validate_doc
from deepresearch.state.writer import render_task_md

FACTS, SOURCES, TASKS = 5_000, 1_000, 200


def build(scale: int) -> m.TaskDoc:
    """A valid document with `scale` times the base counts; tasks form chains of ten."""
    n_tasks, n_sources, n_facts = TASKS * scale, SOURCES * scale, FACTS * scale
    dims = [m.Dimension(f"D{i}", f"Dimension {i}", "what | it covers", "partial") for i in range(1, 6)]
    tasks = [
        m.Task(
            f"E{i}",
            f"Task {i}: find evidence on x",
            [f"D{i % 5 + 1}"],
            depends=[f"E{i - 1}"] if (i - 1) % 10 else [],
        )
        for i in range(1, n_tasks + 1)
    ]
    sources = [
        m.Source(
            m.format_source_id(i), f"Source {i} title", f"https://site{i % 97}.example/page/{i}?q=1",
            "news", "2025-01-02", "2026-11-02T10:00:00Z", 0.7, f"assets/web/S{i:02d}-site.md", f"{i:064x}",
        )
        for i in range(1, n_sources + 1)
    ]  # fmt: skip
    facts = [
        m.Fact(
            m.format_fact_id(i), f"Statement {i} with a | pipe and\na line break, 中文 😀",
            [m.format_source_id(i % n_sources + 1), m.format_source_id((i * 7) % n_sources + 1)],
            m.Confidence.HIGH, (f"a verbatim quote of source text number {i} " * 3).strip(), m.Verified.YES, f"E{i % n_tasks + 1}",
        )
        for i in range(1, n_facts + 1)
    ]  # fmt: skip
    return m.TaskDoc(
        front=m.FrontMatter(id="bench", question="How fast is the state engine?"),
        request="Benchmark.",
        dimensions=dims,
        tasks=tasks,
        facts=facts,
        sources=sources,
        scratchpad="notes",
    )


def best_of(runs: int, step: Callable[[], object]) -> float:
    """The fastest of `runs` timings of `step`, in seconds."""
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        timings.append(time.perf_counter() - start)
    return min(timings)


def main() -> None:
    rows = []
    for scale in (1, 2, 4):
        doc = build(scale)
        text = render_task_md(doc)
        parsed = parse_with_lines(text)
        assert parsed.doc == doc and not validate_doc(parsed.doc, parsed.lines)
        parse = best_of(5, partial(parse_with_lines, text))
        validate = best_of(5, partial(validate_doc, parsed.doc, parsed.lines))
        render = best_of(5, partial(render_task_md, doc))
        rows.append(
            (scale, len(doc.facts), len(doc.sources), len(doc.tasks), len(text), parse, validate, render)
        )
    print("scale   facts sources tasks     MB  parse s validate s render s")
    for scale, facts, sources, tasks, size, parse, validate, render in rows:
        numbers = f"{parse:>8.3f} {validate:>10.3f} {render:>8.3f}"
        print(f"{scale:>4}× {facts:>7} {sources:>7} {tasks:>5} {size / 1e6:>6.2f} {numbers}")
    first, last = rows[0], rows[-1]
    growth = "  ".join(
        f"{name} {last[i] / first[i]:.2f}" for name, i in (("parse", 5), ("validate", 6), ("render", 7))
    )
    print(f"growth 1×→4× (4.00 is linear): {growth}")


if __name__ == "__main__":
    main()
