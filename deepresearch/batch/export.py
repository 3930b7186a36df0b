"""Exports of a batch: DeepResearch Bench submissions, and our own measures as JSONL or CSV.

`bench` writes one `{"id", "prompt", "article"}` line per job with a report, the layout the
benchmark's RACE and FACT scripts read. The article is the report body with each cited source ID
(`[S07]`) replaced by a number in order of first citation (`[1]`), and a numbered reference list
whose entries hold the sources' URLs from task.md (the archived ones), as FACT's extractor expects.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepresearch.batch.measures import KNOWLEDGE_KEYS, measure
from deepresearch.batch.state import BatchState, JobRecord
from deepresearch.core.errors import StateError
from deepresearch.core.workspace import Workspace
from deepresearch.report.blocks import strip_generated_sections
from deepresearch.report.citations import BRACKET_RE, bracket_ids, cited_in_order
from deepresearch.state.model import TaskDoc
from deepresearch.state.store import StateStore

FORMATS = ("bench", "jsonl", "csv")
MEASURE_COLUMNS = (
    "id", "prompt", "status", "termination_reason", "rounds", "score", *KNOWLEDGE_KEYS,
    "agent_calls", "input_tokens", "output_tokens", "cost_usd", "minutes", "verification", "report",
    "output_repairs", "outputs_lenient",
)  # fmt: skip
_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)


@dataclass
class Export:
    """The exported text and the jobs left out (with why)."""

    text: str
    rows: int
    skipped: list[str]


def export_batch(folder: Path, state: BatchState, fmt: str) -> Export:
    """The batch in one of FORMATS."""
    if fmt == "bench":
        return _bench(folder, state)
    rows = [measure_row(folder, record) for record in state.jobs.values()]
    if fmt == "jsonl":
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        return Export(text, len(rows), [])
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(MEASURE_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if row[k] is None else row[k] for k in MEASURE_COLUMNS})
    return Export(buffer.getvalue(), len(rows), [])


def measure_row(folder: Path, record: JobRecord) -> dict[str, Any]:
    """One job's measures, keyed by MEASURE_COLUMNS (None where nothing records a value)."""
    found = measure(Workspace(folder / record.id)).to_dict()
    row: dict[str, Any] = {"id": record.input_id if record.input_id is not None else record.id}
    row["prompt"] = record.prompt
    row["status"] = found["status"] or record.status.value
    for key in MEASURE_COLUMNS[3:]:
        row[key] = found.get(key)
    row["report"] = f"{record.id}/report.md" if found["report"] else None
    row["scores"] = found["scores"]  # per round (JSONL and the batch report; not a CSV column)
    return row


def _bench(folder: Path, state: BatchState) -> Export:
    lines, skipped = [], []
    for record in state.jobs.values():
        workspace = Workspace(folder / record.id)
        if not workspace.report_md.is_file():
            skipped.append(f"{record.id}: no report.md ({record.status.value})")
            continue
        try:
            doc = StateStore(workspace).load()
        except StateError as exc:
            skipped.append(f"{record.id}: task.md cannot be read ({exc.message})")
            continue
        article = bench_article(workspace.report_md.read_text(encoding="utf-8"), doc)
        item = {"id": record.input_id if record.input_id is not None else record.id}
        item.update(prompt=record.prompt, article=article)
        lines.append(json.dumps(item, ensure_ascii=False) + "\n")
    return Export("".join(lines), len(lines), skipped)


def bench_article(report_text: str, doc: TaskDoc) -> str:
    """The report with `[n]` citations and a numbered reference list of the cited sources' URLs."""
    body = strip_generated_sections(report_text).rstrip()
    order = [i for i in cited_in_order(body) if doc.source(i) is not None]
    numbers = {source_id: n for n, source_id in enumerate(order, 1)}
    text = "".join(_renumber(part, numbers) if n % 2 == 0 else part for n, part in _parts(body))
    references = []
    for source_id, n in numbers.items():
        source = doc.source(source_id)
        assert source is not None
        title = " ".join(source.title.split()) or source.url
        references.append(f"[{n}] {title}. {source.url.strip()}")
    return text + "\n\n## References\n\n" + "\n".join(references) + "\n"


def _parts(text: str) -> Iterator[tuple[int, str]]:
    """The text split around code (kept verbatim): even parts are prose, odd parts are code."""
    return enumerate(_CODE.split(text))


def _renumber(text: str, numbers: dict[str, int]) -> str:
    def replace(match: re.Match[str]) -> str:
        cited = [numbers[i] for i in bracket_ids(match.group(1)) if i in numbers]
        return "".join(f"[{n}]" for n in cited)

    return BRACKET_RE.sub(replace, text)
