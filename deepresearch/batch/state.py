"""batch.json: the batch's own state (job → status, attempts, timings, usage, report, verification).

Written atomically after every change by the one process running the batch, so a kill at any moment
leaves the last complete version. The job workspaces stay the truth about research progress: on a
new start the scheduler checks each unfinished job's task.md, so a job that finished after the last
write of batch.json is not run again.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

from deepresearch.batch.jobs import JobSpec, LineProblem
from deepresearch.core.errors import StateError
from deepresearch.core.files import atomic_write

SCHEMA = "deepresearch.batch"
SCHEMA_VERSION = 1
FILE_NAME = "batch.json"


class JobStatus(StrEnum):
    PENDING = "pending"  # not started yet, or stopped by Ctrl-C (resumable)
    RUNNING = "running"
    DONE = "done"  # the run completed (its report may still have failed verification)
    FAILED = "failed"  # failed for good: retries exhausted, or a failure retrying cannot fix
    BUDGET = "budget"  # stopped by a budget (its own, or the batch's before it started)


@dataclass
class JobRecord:
    """One job as batch.json records it."""

    id: str
    prompt: str
    input_id: Any = None
    line: int = 0
    settings: dict[str, Any] = field(default_factory=dict)
    status: JobStatus = JobStatus.PENDING
    attempts: int = 0  # runs started by this batch (a retry resumes the same workspace)
    sessions: int = 0  # run sessions recorded in the workspace (Ray may retry a task by itself)
    started: float | None = None  # first start, epoch seconds
    finished: float | None = None
    seconds: float = 0.0  # wall time of every attempt, summed
    exit_code: int | None = None
    agent_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    rounds: int = 0
    score: float | None = None
    report: str | None = None  # path relative to DIR
    verification: str = ""  # passed | failed: N problems | not verified
    termination_reason: str = ""
    message: str = ""  # why it failed or stopped, for people

    @classmethod
    def from_spec(cls, spec: JobSpec) -> JobRecord:
        """A new pending record for a job of the batch file."""
        return cls(spec.id, spec.prompt, spec.input_id, spec.line, dict(spec.settings))


@dataclass
class BatchState:
    """The whole batch.json."""

    file: str = ""
    created: float = field(default_factory=time.time)
    updated: float = 0.0
    jobs: dict[str, JobRecord] = field(default_factory=dict)
    problems: list[dict[str, Any]] = field(default_factory=list)  # rejected lines of FILE
    stopped: str = ""  # why the batch stopped starting jobs (budget, Ctrl-C), when it did

    def merge_input(self, specs: list[JobSpec], problems: list[LineProblem]) -> None:
        """Add the jobs of FILE that are new; refresh prompt and settings of pending ones."""
        for spec in specs:
            record = self.jobs.get(spec.id)
            if record is None:
                self.jobs[spec.id] = JobRecord.from_spec(spec)
            elif record.status is JobStatus.PENDING:
                record.prompt, record.settings, record.line = spec.prompt, dict(spec.settings), spec.line
                record.input_id = spec.input_id
        self.problems = [{"line": p.line, "message": p.message} for p in problems]

    def to_json(self) -> dict[str, Any]:
        """The JSON document written to batch.json."""
        return {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "file": self.file,
            "created": self.created,
            "updated": self.updated,
            "stopped": self.stopped,
            "problems": self.problems,
            "jobs": [asdict(record) for record in self.jobs.values()],
        }


def batch_path(folder: Path) -> Path:
    """DIR/batch.json."""
    return folder / FILE_NAME


def save_state(folder: Path, state: BatchState) -> None:
    """Write batch.json atomically."""
    state.updated = time.time()
    atomic_write(batch_path(folder), json.dumps(state.to_json(), indent=1, ensure_ascii=False) + "\n")


def load_state(folder: Path) -> BatchState | None:
    """batch.json of DIR, or None when DIR holds no batch; StateError when it cannot be read."""
    path = batch_path(folder)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise StateError(
            f"not valid JSON: {exc}", path=str(path), hint="restore it or move it aside"
        ) from exc
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise StateError(f"not a deepresearch batch file (schema {SCHEMA!r} expected)", path=str(path))
    known = {f.name for f in fields(JobRecord)}
    jobs: dict[str, JobRecord] = {}
    for item in data.get("jobs") or []:
        values = {k: v for k, v in item.items() if k in known}
        try:
            values["status"] = JobStatus(values.get("status", "pending"))
            record = JobRecord(**values)
        except (TypeError, ValueError) as exc:
            raise StateError(f"job {item.get('id')!r}: {exc}", path=str(path)) from exc
        jobs[record.id] = record
    return BatchState(
        file=str(data.get("file", "")),
        created=float(data.get("created") or time.time()),
        updated=float(data.get("updated") or 0.0),
        jobs=jobs,
        problems=list(data.get("problems") or []),
        stopped=str(data.get("stopped", "")),
    )
