"""Time numeric grounding and copy detection at ½×, 1× and 2× size.

1× is a report of 2,000 sentences (in paragraphs of four, each sentence citing one or two sources and
stating numbers: most found in a cited fact, some derived, some invented) over 2,000 facts, and 1,000
archived sources of ~250 words each, one in twenty a syndicated copy of the one before. Timed:

- report: `number_violations` over the whole report (every number against the facts its sentence cites);
- facts: `missing_numbers` of every fact's statement against its quote;
- copies: sketching every source's text, indexing it, and looking up its near-duplicates.

Run: `python bench/check.py`. Prints a plain table (CPU seconds, best of three) and the growth ratio
of each step from ½× to 2× (4.00 means linear).
"""

from __future__ import annotations

import gc
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deepresearch.evidence.judge import missing_numbers
from deepresearch.report.blocks import body_blocks
from deepresearch.report.number_check import number_violations
from deepresearch.sources.copies import CopyIndex, sketch
from deepresearch.state import model as m

SENTENCES, SOURCES = 2_000, 1_000
WORDS = [
    "grid",
    "wind",
    "solar",
    "port",
    "cable",
    "steel",
    "turbine",
    "coast",
    "auction",
    "price",
    "demand",
    "supply",
    "line",
    "park",
    "operator",
    "region",
    "capacity",
    "output",
    "market",
    "policy",
    "report",
    "agency",
    "survey",
    "forecast",
    "growth",
    "storage",
    "network",
]


def source_text(rng: random.Random, i: int) -> str:
    """About 250 words of prose with numbers, distinct per source."""
    sentences = []
    for n in range(25):
        words = " ".join(rng.choice(WORDS) for _ in range(8))
        sentences.append(f"The {words} reached {rng.randint(2, 900)}.{n} GW in region {i}.")
    return " ".join(sentences)


def build(scale: float) -> tuple[m.TaskDoc, str, list[str]]:
    """The task.md model, the report text and the source texts at `scale`."""
    rng = random.Random(7)
    n_sources, n_sentences = int(SOURCES * scale), int(SENTENCES * scale)
    texts = [source_text(rng, i) for i in range(n_sources)]
    for i in range(19, n_sources, 20):  # one in twenty: a syndicated copy of the one before
        texts[i] = texts[i - 1] + " This story first appeared elsewhere and is republished with permission."
    sources = [
        m.Source(m.format_source_id(i + 1), f"Source {i + 1}", f"https://s{i}.example/")
        for i in range(n_sources)
    ]
    facts, lines = [], ["# Bench report", ""]
    for n in range(n_sentences):
        sid = m.format_source_id(n % n_sources + 1)
        old, new = rng.randint(100, 400), rng.randint(401, 800)
        facts.append(
            m.Fact(
                m.format_fact_id(n + 1), f"Output rose from {old} MW in 2023 to {new} MW in 2024.", [sid],
                quote=f"output rose from {old} megawatts to {new} megawatts", verified=m.Verified.YES,
            )
        )  # fmt: skip
        kind = n % 10
        if kind < 7:  # found in the cited fact, in another unit
            claim = f"Output reached {new / 1000:g} GW in 2024 [{sid}]."
        elif kind < 9:  # derived: a growth rate, with its inputs (as the synthesizer is told to write it)
            claim = (
                f"Output grew {100 * (new - old) / old:.0f}% in one year, from {old} MW to {new} MW [{sid}]."
            )
        else:  # invented
            claim = f"Output will reach {new * 3} MW by 2030 [{sid}]."
        lines.append(claim)
        if n % 4 == 3:
            lines.append("")
    doc = m.TaskDoc(front=m.FrontMatter(id="bench", question="Bench"), facts=facts, sources=sources)
    return doc, "\n".join(lines) + "\n", texts


def timed(step: Callable[[], object], runs: int = 3) -> tuple[float, object]:
    """(CPU seconds, result) of the fastest of `runs` runs of `step`: CPU time of this process, not
    wall time, and the best of three, so that other work on a shared machine blurs the figures less."""
    best, result = float("inf"), None
    for _ in range(runs):
        gc.collect()
        gc.freeze()  # the inputs built before are not the step's cost: keep the collector off them
        start = time.process_time()
        result = step()
        best = min(best, time.process_time() - start)
        gc.unfreeze()
    return best, result


def copies(texts: list[str]) -> int:
    """Sketch, index and look up every text; the number of copies found."""
    index, found = CopyIndex(), 0
    for i, text in enumerate(texts):
        item = sketch(text)
        found += bool(index.similar(item, 0.85))
        index.add(f"S{i}", item)
    return found


def main() -> None:
    rows = []
    for scale in (0.5, 1, 2):
        doc, report, texts = build(scale)
        report_s, violations = timed(lambda: number_violations(body_blocks(report), doc))  # noqa: B023
        facts_s, missing = timed(lambda: [missing_numbers(f.statement, [f.quote]) for f in doc.facts])  # noqa: B023
        copies_s, found = timed(lambda: copies(texts))  # noqa: B023
        assert isinstance(violations, list) and isinstance(missing, list) and isinstance(found, int)
        sentences = report.count("].")
        rows.append((scale, sentences, len(texts), report_s, facts_s, copies_s, len(violations), found))
    print("scale sentences sources  report s  facts s  copies s  ungrounded  copies found")
    for scale, sentences, sources, report_s, facts_s, copies_s, ungrounded, found in rows:
        print(
            f"{scale:>4}× {sentences:>9} {sources:>7} {report_s:>9.2f} {facts_s:>8.2f} {copies_s:>9.2f}"
            f" {ungrounded:>11} {found:>13}"
        )
    first, last = rows[0], rows[-1]
    growth = "  ".join(
        f"{name} {last[i] / first[i]:.2f}" for name, i in (("report", 3), ("facts", 4), ("copies", 5))
    )
    print(f"growth ½×→2× (4.00 is linear): {growth}")


if __name__ == "__main__":
    main()
