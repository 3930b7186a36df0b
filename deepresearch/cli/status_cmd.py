"""`deepresearch status [WORKDIR]`: the progress and summary of a running or finished run.

Read-only: it takes no lock and writes nothing, so it is safe beside a run in progress.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from deepresearch.core.errors import UsageError
from deepresearch.core.workspace import Workspace

PIPE_WIDTH = 200


def register(app: typer.Typer) -> None:
    """Add the `status` subcommand to the app."""
    app.command(
        "status",
        help="Show the progress of a running or finished run (from task.md and logs/events.jsonl), the "
        "questions asked in the workspace and the latest report's measures.",
    )(status)


def status(
    workdir: Annotated[
        Path | None, typer.Argument(help="The run folder (default: the current folder).", show_default=False)
    ] = None,
) -> None:
    """Print phase, round, scores, the DAG, agents at work, counts, usage and the summary."""
    from rich.console import Console  # imported when the command runs: `--help` stays fast

    from deepresearch.pipeline.status import load_view, task_md_error
    from deepresearch.ui.render import render_view

    workspace = Workspace((workdir or Path.cwd()).expanduser().resolve())
    if not workspace.root.is_dir():
        raise UsageError(f"no such folder: {workspace.root}")
    view = load_view(workspace)
    problem = task_md_error(workspace) if view.doc is None else None
    if problem is not None:  # nothing to show instead: say what is wrong and where, like a run does
        raise problem
    if view.doc is None and view.owner_pid is None:  # a live run shows its progress while it plans
        raise UsageError(*workspace.no_run())  # as `deepresearch check` says
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=PIPE_WIDTH)  # logs and pipes: do not wrap at 80
    console.print(render_view(view, with_summary=True, batches=True, questions=True))
