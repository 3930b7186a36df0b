"""What the agents' self-check prints: `deepresearch-check`, run inside an agent of a run.

The run's tool service runs the orchestrator's own checks of the caller's own output file
(pipeline/selfcheck.py); this prints the problems with their lines on stdout, then what code would
decide (for an executor: each batch new or not, the task saturated or not), and exits 8 while
problems remain. There is nothing to check outside a run: without the service it fails (exit 12).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from deepresearch.cli.tool_run import Printed
from deepresearch.core.errors import CheckFailedError, ToolServiceError
from deepresearch.service.client import ServiceUnreachable, ToolClient, service_address
from deepresearch.service.protocol import Caller


def run_check_command(root: Path, environ: Mapping[str, str]) -> Printed:
    """The self-check of the caller's own output file, through the run's tool service."""
    address = service_address(environ)
    if address is None:
        raise ToolServiceError(
            "the self-check runs only inside an agent of a run (through the run's tool service)",
            hint="to check a finished report by hand, run `deepresearch check DIR`",
        )
    try:
        found = ToolClient(address, Caller.from_environ(environ)).check(root)
    except ServiceUnreachable as exc:
        raise ToolServiceError(
            f"the run's tool service is not answering ({exc}); the self-check runs there",
            hint="finish your output as the prompt says; the orchestrator checks it when your call ends",
        ) from exc
    problems, notes = list(found["problems"]), list(found["notes"])
    lines = [*problems, *(f"note: {n}" for n in notes if n.startswith("not archived"))]
    lines += [n for n in notes if not n.startswith("not archived")]
    name = found["file"] or "your output file"
    if not problems:
        return Printed("\n".join([*lines, f"no problems in {name}"]))
    count = len(problems)
    error = CheckFailedError(
        f"{count} problem{'s' * (count != 1)} in {name}",
        hint="fix each listed line, write the file again and run this check again before you finish",
    )
    return Printed("\n".join(lines), [], error)
