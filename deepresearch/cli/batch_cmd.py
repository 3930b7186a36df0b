"""`deepresearch batch FILE -o DIR`: many questions, one ordinary workspace each, here or on Ray."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from deepresearch.core.errors import (
    BatchIncompleteError,
    BudgetExhaustedError,
    CheckFailedError,
    Interrupted,
    UsageError,
)

if TYPE_CHECKING:
    from deepresearch.batch.state import BatchState

EPILOG = """\
Examples:

  deepresearch batch questions.txt -o runs/watch --jobs 3

  deepresearch batch query.jsonl -o runs/bench --jobs 4 --effort quick --max-cost-total 50

  deepresearch batch query.jsonl -o /shared/bench --on ray://auto      (each job a Ray task)

FILE: JSONL (id, prompt or question, optional settings such as language, effort, agent, model),
CSV with the same columns, or one question per line. Settings for every job: DIR/deepresearch.yaml.
Run the same command again to continue a batch; finished jobs are not run again.
"""


def register(app: typer.Typer) -> None:
    """Add the `batch` subcommand to the app."""
    app.command(
        "batch", help="Research many questions: one workspace per job under DIR, state in DIR/batch.json.",
        epilog=EPILOG,
    )(batch)  # fmt: skip


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # like Ctrl-C: every job is stopped and left resumable


def batch(
    file: Annotated[Path, typer.Argument(help="Questions: .jsonl, .csv, or one per line.")],
    workdir: Annotated[Path, typer.Option("-o", "--workdir", help="The batch folder (created if missing).")],
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Jobs running at once.")] = 2,
    retries: Annotated[
        int, typer.Option("--retries", help="Extra attempts of a failed job (each resumes it).")
    ] = 2,
    on: Annotated[str, typer.Option("--on", help="local (default), ray, or ray://ADDRESS.")] = "local",
    agent: Annotated[str | None, typer.Option("--agent", help="Agent CLI for every job.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model for every job.")] = None,
    effort: Annotated[str | None, typer.Option("--effort", help="quick | standard | deep.")] = None,
    language: Annotated[str | None, typer.Option("--language", help="Report language.")] = None,
    max_rounds: Annotated[int | None, typer.Option("--max-rounds", help="Most rounds per job.")] = None,
    max_agent_calls: Annotated[
        int | None, typer.Option("--max-agent-calls", help="Agent calls per job.")
    ] = None,
    max_cost: Annotated[float | None, typer.Option("--max-cost", help="USD per job.")] = None,
    max_agent_calls_total: Annotated[
        int | None, typer.Option("--max-agent-calls-total", help="Agent calls for the whole batch.")
    ] = None,
    max_cost_total: Annotated[
        float | None, typer.Option("--max-cost-total", help="USD for the whole batch.")
    ] = None,
    job_timeout: Annotated[
        float | None,
        typer.Option("--job-timeout", help="Minutes before an attempt is stopped (then retried)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only problems and the summary.")] = False,
) -> None:
    """Run every question of FILE as its own research run; continue the batch when run again."""
    # Imported when a batch runs: `--help` does not load the scheduler, Ray or the displays.
    from rich.console import Console

    from deepresearch.batch.executors import make_executor
    from deepresearch.batch.jobs import read_batch_file
    from deepresearch.batch.scheduler import BatchOptions, BatchScheduler
    from deepresearch.batch.state import batch_path
    from deepresearch.ui.batch_live import BatchLiveDisplay
    from deepresearch.ui.batch_plain import BatchPlainDisplay

    settings = _settings(
        agent=agent, model=model, effort=effort, language=language, max_rounds=max_rounds,
        max_agent_calls=max_agent_calls, max_cost_usd=max_cost,
    )  # fmt: skip
    _check_counts(jobs, retries, max_agent_calls_total, max_cost_total, job_timeout)
    options = BatchOptions(
        jobs=jobs, retries=retries, settings=settings, max_agent_calls_total=max_agent_calls_total,
        max_cost_total=max_cost_total, job_timeout=job_timeout * 60 if job_timeout else None,
    )  # fmt: skip
    folder = workdir.expanduser().resolve()
    batch_input = read_batch_file(file.expanduser().resolve())
    executor = make_executor(on, folder, jobs, retries, dict(os.environ))
    console = Console(highlight=False)
    terminal = sys.stdout.isatty()
    display: Any = BatchLiveDisplay(console, quiet) if terminal else BatchPlainDisplay(sys.stdout, quiet)
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        if terminal:
            with display:
                state = BatchScheduler(folder, batch_input, options, executor, display).run()
        else:
            state = BatchScheduler(folder, batch_input, options, executor, display).run()
    except KeyboardInterrupt:  # typed here: typer would turn it into a bare exit status
        raise Interrupted(
            "interrupted: every running job was stopped and saved; batch.json is up to date",
            hint="run the same command again to continue the batch (finished jobs are not run again)",
        ) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    typer.echo(f"batch state: {batch_path(folder)}")
    _raise_for(state, [spec.id for spec in batch_input.jobs])


def _settings(**flags: Any) -> dict[str, Any]:
    from deepresearch.core.config import Config, apply_layer

    given = {k: v for k, v in flags.items() if v is not None}
    config: Config = apply_layer(Config(), given, "command line")
    return {k: getattr(config, k) for k in given}


def _check_counts(
    jobs: int, retries: int, calls: int | None, cost: float | None, timeout: float | None
) -> None:
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    if retries < 0:
        raise UsageError(f"--retries must not be negative, got {retries}")
    for name, value in (
        ("--max-agent-calls-total", calls),
        ("--max-cost-total", cost),
        ("--job-timeout", timeout),
    ):
        if value is not None and value <= 0:
            raise UsageError(f"{name} must be greater than 0, got {value}")


def _raise_for(state: BatchState, job_ids: list[str]) -> None:
    """The batch's exit status: failures first, then a spent budget, then failed verifications."""
    from deepresearch.batch.state import JobStatus

    records = [state.jobs[i] for i in job_ids]
    failed = [r.id for r in records if r.status is JobStatus.FAILED]
    if failed or state.problems:
        said = [f"{len(failed)} job(s) failed: {', '.join(failed)}"] if failed else []
        said += [f"{len(state.problems)} line(s) of the batch file rejected (the other jobs ran)"] * bool(
            state.problems
        )
        lines = [f"line {p['line']}: {p['message']}" for p in state.problems]
        raise BatchIncompleteError(
            "; ".join(said) + "".join(f"\n  {x}" for x in lines),
            hint="batch.json has each job's message; fix the file or the cause and run the same command "
            "again (finished jobs are not run again)",
        )
    stopped = [r.id for r in records if r.status is JobStatus.BUDGET]
    if state.stopped or stopped:
        left = [r.id for r in records if r.status is not JobStatus.DONE]
        reason = state.stopped or f"{len(stopped)} job(s) spent their own budget"
        raise BudgetExhaustedError(
            f"{reason}; {len(left)} job(s) not finished: {', '.join(left)}",
            hint="raise the budget and run the same command again to continue",
        )
    unverified = [r.id for r in records if r.verification.startswith("failed")]
    if unverified:
        raise CheckFailedError(
            f"{len(unverified)} report(s) did not pass verification: {', '.join(unverified)}",
            hint="each lists its problems in its Verification section; `deepresearch check DIR/<id>` re-runs them",
        )
