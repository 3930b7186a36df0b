"""`--on local|ray|ray://ADDRESS`: which executor runs the jobs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from deepresearch.batch.local import Executor, LocalExecutor
from deepresearch.core.errors import UsageError

RAY_SCHEME = "ray://"


def parse_target(on: str) -> tuple[str, str | None]:
    """("local", None), ("ray", None) for Ray's own default, or ("ray", ADDRESS)."""
    value = on.strip()
    if value == "local":
        return "local", None
    if value == "ray":
        return "ray", None
    if value.startswith(RAY_SCHEME) and value[len(RAY_SCHEME) :]:
        return "ray", value[len(RAY_SCHEME) :]
    raise UsageError(
        f"--on {on!r}: expected local, ray or ray://ADDRESS",
        hint="ray://auto joins the cluster this machine belongs to; ray://HOST:PORT a head's address",
    )


def make_executor(on: str, folder: Path, jobs: int, retries: int, environ: Mapping[str, str]) -> Executor:
    """The executor for `--on`; Ray is imported only when asked for (an optional extra)."""
    kind, address = parse_target(on)
    if kind == "local":
        return LocalExecutor(environ)
    from deepresearch.batch.ray_exec import RayExecutor

    return RayExecutor(address, folder, jobs, retries)
