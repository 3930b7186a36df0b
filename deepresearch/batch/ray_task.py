"""What a Ray worker runs for one job attempt (imported on the worker; no Ray import needed here).

When the worker sees the batch folder (shared storage, or the same machine), the job runs in place,
so a retried task resumes the very workspace. Otherwise the driver sends the workspace packed, the
job runs in a temporary folder on the node, and the finished workspace goes back packed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from deepresearch.batch.launch import JOB_GRACE, JobLaunch, run_attempt
from deepresearch.batch.packing import pack, unpack
from deepresearch.core.process import ProcessRunner


def sees_batch_folder(probe: str, token: str) -> bool:
    """Whether this node reads the driver's probe file: the batch folder is shared with it."""
    try:
        return Path(probe).read_text(encoding="utf-8").strip() == token
    except OSError:
        return False


def run_job_task(launch_data: dict[str, Any], probe: str, token: str, packed: bytes | None) -> dict[str, Any]:
    """Run one attempt; returns {"outcome": ...} (+ "packed" and "log" when it ran off-site), or
    {"need_workspace": True} when the folder is not shared and nothing was sent."""
    launch = JobLaunch(**launch_data)
    processes = ProcessRunner(grace=JOB_GRACE)
    if sees_batch_folder(probe, token):
        return {"outcome": asdict(run_attempt(processes, launch, os.environ))}
    if packed is None:
        return {"need_workspace": True}
    scratch = Path(tempfile.mkdtemp(prefix="deepresearch-job-"))
    try:
        workdir = scratch / launch.job_id
        unpack(packed, workdir)
        local = JobLaunch(**{**launch_data, "log_path": str(scratch / "attempt.log")})
        outcome = run_attempt(processes, local, os.environ, str(workdir))
        log = (scratch / "attempt.log").read_text(encoding="utf-8", errors="replace")
        return {"outcome": asdict(outcome), "packed": pack(workdir), "log": log}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
