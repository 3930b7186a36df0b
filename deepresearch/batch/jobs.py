"""The batch file: JSONL, CSV or plain text, read into jobs; a bad line is a problem, not a failure.

Every line is checked on its own, so one bad line is reported with its number and the other jobs
still run. A job's settings are checked against `Config` (the same rules as a config file), so a
wrong value is caught before any job starts, with the line it came from.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.core.config import Config, apply_layer
from deepresearch.core.errors import ConfigError, UsageError

# Columns that are not settings: the question and what identifies it.
PROMPT_KEYS = ("prompt", "question")
INFO_KEYS = ("id", "topic")  # `topic` appears in DeepResearch Bench's query.jsonl: kept, not a setting
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_SLUG_DROP = re.compile(r"[^a-z0-9]+")
# Settings a job may not override: they belong to the batch (where its workspaces and agents are).
_BATCH_ONLY = {"custom_command", "backend_args", "roles", "search_base_urls"}


@dataclass(frozen=True)
class JobSpec:
    """One question of the batch: its folder name, the ID as the file wrote it, and its settings."""

    id: str  # the folder name under DIR
    prompt: str
    line: int
    input_id: Any = None  # the ID exactly as the file gave it (an int in DeepResearch Bench)
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LineProblem:
    """A line of the batch file that could not become a job."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class BatchInput:
    """The jobs read from a batch file, and the lines that were rejected."""

    path: Path
    jobs: list[JobSpec] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)


def read_batch_file(path: Path) -> BatchInput:
    """Read FILE by its extension: .jsonl/.ndjson, .csv, anything else one question per line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise UsageError(f"no such batch file: {path}", hint="deepresearch batch FILE -o DIR") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the batch file {path}: {exc}") from exc
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        rows = _jsonl_rows(text)
    elif suffix == ".csv":
        rows = _csv_rows(text)
    else:
        rows = _text_rows(text)
    result = BatchInput(path)
    seen: dict[str, int] = {}
    for line, row in rows:
        if isinstance(row, LineProblem):
            result.problems.append(row)
            continue
        try:
            job = _job(row, line)
        except ValueError as exc:
            result.problems.append(LineProblem(line, str(exc)))
            continue
        if job.id in seen:
            result.problems.append(
                LineProblem(line, f"id {job.id!r} was already used on line {seen[job.id]}")
            )
            continue
        seen[job.id] = line
        result.jobs.append(job)
    if not result.jobs and not result.problems:
        raise UsageError(
            f"the batch file {path} holds no question", hint="one question per line, or JSONL/CSV"
        )
    return result


Row = dict[str, Any] | LineProblem


def _jsonl_rows(text: str) -> list[tuple[int, Row]]:
    rows: list[tuple[int, Row]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            rows.append((number, LineProblem(number, f"not valid JSON ({exc.msg} at column {exc.colno})")))
            continue
        if not isinstance(value, dict):
            rows.append((number, LineProblem(number, "expected a JSON object with id and prompt")))
            continue
        rows.append((number, value))
    return rows


def _csv_rows(text: str) -> list[tuple[int, Row]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows: list[tuple[int, Row]] = []
    if not reader.fieldnames:
        return rows
    for record in reader:
        number = reader.line_num  # the physical line where this record ends
        if None in record:  # more cells than header columns
            rows.append((number, LineProblem(number, f"{len(record[None])} cells more than the header has")))
            continue
        rows.append((number, {k.strip(): v for k, v in record.items() if k and v not in (None, "")}))
    return rows


def _text_rows(text: str) -> list[tuple[int, Row]]:
    rows: list[tuple[int, Row]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        question = raw.strip()
        if question and not question.startswith("#"):
            rows.append((number, {"prompt": question}))
    return rows


def _job(row: dict[str, Any], line: int) -> JobSpec:
    """One row as a job; ValueError with the reason when it cannot be one."""
    prompts = [row[k] for k in PROMPT_KEYS if k in row]
    if not prompts or not isinstance(prompts[0], str) or not prompts[0].strip():
        raise ValueError("no question: give a non-empty `prompt` (or `question`)")
    if len(prompts) > 1:
        raise ValueError("give `prompt` or `question`, not both")
    prompt = prompts[0].strip()
    input_id = row.get("id")
    job_id = generated_id(prompt) if input_id in (None, "") else str(input_id).strip()
    if not _SAFE_ID.match(job_id):
        raise ValueError(
            f"id {job_id!r} cannot be a folder name: use letters, digits, '.', '_' or '-' (at most 100)"
        )
    settings = {k: v for k, v in row.items() if k not in PROMPT_KEYS and k not in INFO_KEYS}
    return JobSpec(
        job_id, prompt, line, input_id if input_id not in (None, "") else job_id, _checked(settings)
    )


def _checked(settings: dict[str, Any]) -> dict[str, Any]:
    """The job's settings, each checked as a config value would be."""
    for key in settings:
        if key in _BATCH_ONLY:
            raise ValueError(f"{key} applies to the whole batch: set it in DIR/deepresearch.yaml")
    try:
        config = apply_layer(Config(), settings, "batch file")
    except ConfigError as exc:
        raise ValueError(f"{exc.key}: {exc.message.split(': ', 2)[-1]}") from exc
    return {key: getattr(config, key) for key in settings}


def generated_id(prompt: str) -> str:
    """A stable, readable folder name for a question without an id: its first words and a hash."""
    words = _SLUG_DROP.sub("-", prompt.lower()).strip("-").split("-")
    slug = "-".join(w for w in words if w)[:40].strip("-") or "q"
    digest = hashlib.sha1(prompt.encode("utf-8")).hexdigest()[:6]
    return f"{slug}-{digest}"
