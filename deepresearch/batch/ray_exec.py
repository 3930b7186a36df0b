"""Jobs as Ray tasks: `--on ray`, `--on ray://auto` or `--on ray://HOST:PORT` (what `ray.init` is given).

`--on ray` connects to RAY_ADDRESS when set (any address Ray accepts, Ray Client's `ray://` included),
else to the cluster this machine belongs to, else starts a local instance with room for `--jobs` runs.
`--on ray://ADDRESS` passes ADDRESS to `ray.init`: `auto`, or a head's `HOST:PORT` (this machine a node).

Each attempt is one task asking for `num_cpus=1` and one unit of the custom resource `agent_cli`, so
jobs land only on nodes started with it (`ray start ... --resources '{"agent_cli": N}'`). Ray itself
retries a task whose worker or node died (`max_retries`); the task runs the same command in the same
workspace, so the retry resumes it. Ray is an optional extra, imported only here. Runs on a node take
their environment (PATH, API keys, DEEPRESEARCH_* settings) from that node: nothing secret travels.
"""

from __future__ import annotations

import os
import secrets
import threading
from pathlib import Path
from typing import Any

from deepresearch.batch.launch import JobLaunch, JobOutcome
from deepresearch.batch.packing import pack, unpack
from deepresearch.batch.ray_task import run_job_task
from deepresearch.core.errors import UsageError

RESOURCE = "agent_cli"
INSTALL_HINT = "pip install 'deepresearch[ray]'"
PROBE = ".batch/probe"  # under DIR: a node that reads it shares the batch folder


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise UsageError(
            "--on ray needs Ray, which is not installed", hint=f"install the extra: {INSTALL_HINT}"
        ) from exc
    return ray


class RayExecutor:
    """Submits each attempt as a Ray task and waits for it in the calling thread."""

    def __init__(self, address: str | None, folder: Path, jobs: int = 1, retries: int = 2) -> None:
        self.ray = _import_ray()
        self.address = address
        self.name = f"ray ({address or 'default'})"
        self._connect(address, jobs)
        self._task = self.ray.remote(run_job_task).options(
            num_cpus=1, resources={RESOURCE: 1}, max_retries=retries, retry_exceptions=False
        )
        self.folder = folder
        self._probe, self._token = folder / PROBE, secrets.token_hex(8)
        self._probe.parent.mkdir(parents=True, exist_ok=True)
        self._probe.write_text(self._token, encoding="utf-8")
        self._refs: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._stopping = False

    def _connect(self, address: str | None, jobs: int) -> None:
        ray = self.ray
        common: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
        target = address or os.environ.get("RAY_ADDRESS") or None
        try:
            if target is not None:
                ray.init(address=target, **common)
                return self._check_resource()
            try:
                ray.init(address="auto", **common)
            except ConnectionError:  # no cluster here: a local one with room for `jobs` agent CLIs
                ray.init(resources={RESOURCE: float(jobs)}, include_dashboard=False, **common)
        except Exception as exc:  # Ray raises bare Exception too (a node that did not start in time)
            raise UsageError(
                f"cannot connect to Ray at {target or 'a new local instance'}: {exc}",
                hint="--on ray://HOST:PORT needs this machine to be a node of that cluster (ray start "
                "--address=HOST:PORT); from outside, set RAY_ADDRESS=ray://HOST:10001 (Ray Client, pip "
                "install 'ray[client]') and use --on ray",
            ) from exc
        return self._check_resource()

    def _check_resource(self) -> None:
        ray = self.ray
        offered = ray.cluster_resources().get(RESOURCE, 0)
        if not offered:
            ray.shutdown()
            raise UsageError(
                f"the Ray cluster offers no {RESOURCE!r} resource, so no job could be placed",
                hint=f"start the nodes that have an agent CLI with: ray start ... --resources '{{\"{RESOURCE}\": N}}'",
            )

    def run(self, launch: JobLaunch) -> JobOutcome:
        """Run the attempt as a task; the workspace is packed only when the node cannot see DIR."""
        result = self._call(launch, None)
        if result.get("need_workspace"):
            workdir = Path(launch.workdir)
            result = self._call(launch, pack(workdir) if workdir.exists() else None)
        if "outcome" not in result:
            return JobOutcome(None, message=str(result.get("error", "the Ray task returned nothing")))
        if result.get("packed"):
            unpack(result["packed"], Path(launch.workdir))
            log = Path(launch.log_path)
            log.parent.mkdir(parents=True, exist_ok=True)
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(result.get("log", ""))
        return JobOutcome(**result["outcome"])

    def _call(self, launch: JobLaunch, packed: bytes | None) -> dict[str, Any]:
        with self._lock:
            if self._stopping:
                return {"outcome": {"exit_code": None, "interrupted": True, "message": "stopped"}}
            ref = self._task.remote(launch.to_dict(), str(self._probe), self._token, packed)
            self._refs[launch.job_id] = ref
        try:
            return dict(self.ray.get(ref))
        except self.ray.exceptions.TaskCancelledError:
            return {"outcome": {"exit_code": None, "interrupted": True, "message": "cancelled"}}
        except self.ray.exceptions.RayError as exc:  # worker or node lost after Ray's own retries
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            return {"error": f"Ray: {type(exc).__name__}: {first}"}
        finally:
            with self._lock:
                self._refs.pop(launch.job_id, None)

    def stop_all(self) -> None:
        """Cancel every task; its worker is killed, and the run it started gets SIGTERM and saves."""
        with self._lock:
            self._stopping = True
            refs = list(self._refs.values())
        for ref in refs:
            self.ray.cancel(ref, force=True)

    def close(self) -> None:
        """Disconnect from Ray (a local instance started here stops with it)."""
        self._probe.unlink(missing_ok=True)
        if self.ray.is_initialized():
            self.ray.shutdown()
