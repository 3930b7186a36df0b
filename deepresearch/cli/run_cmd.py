"""The main command: `deepresearch -p QUESTION`, `-f input.md`, interactive, or resume."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from deepresearch import __version__
from deepresearch.core.errors import AgentError, BudgetExhaustedError, CheckFailedError

if TYPE_CHECKING:
    from deepresearch.pipeline.summary import RunSummary

EPILOG = """\
Examples:

  deepresearch demo                          (a complete run with a scripted agent: no CLI, no network)

  deepresearch -p "How did EU heat-pump sales change in 2023-2024, and why?"

  deepresearch -f input.md -o runs/heat-pumps

  deepresearch -p "..." --documents ./papers --documents "notes/*.md"   (your own files, archived first)

  deepresearch -p "..." --agent claude --model sonnet --max-rounds 3 --concurrency 4

  deepresearch                               (interactive: asks the question, clarifies, shows the plan)

  deepresearch -o runs/heat-pumps            (resume an unfinished run)

  deepresearch -p "And in Spain?" -o runs/heat-pumps --follow-up   (reuse its sources, research what is new)

  deepresearch status runs/heat-pumps        (progress of a running or finished run)

  deepresearch batch questions.txt -o runs/watch --jobs 3   (many questions; then export / report)

  deepresearch archive URL / search QUERY / check [DIR] / doctor   (see `deepresearch COMMAND --help`)

Exit codes: 0 done, 1 internal error, 2 usage, 3 configuration, 4 task.md invalid, 5 agent failed,
6 no usable agent CLI, 7 workspace locked, 8 report failed verification, 9 budget spent,
10 archive failed, 11 batch incomplete, 12 tool service not answering, 13 network (no connection, or
no search provider answered), 130 interrupted (resumable).
"""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"deepresearch {__version__}")
        raise typer.Exit()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    # Treated like Ctrl-C: agents are stopped and the workspace is left resumable.
    raise KeyboardInterrupt


def main_command(
    ctx: typer.Context,
    prompt: Annotated[str | None, typer.Option("-p", "--prompt", help="The research question.")] = None,
    file: Annotated[
        Path | None,
        typer.Option("-f", "--file", help="A request file (input.md: optional YAML front matter + text)."),
    ] = None,
    workdir: Annotated[
        Path,
        typer.Option(
            "-o", "--workdir", help="Workspace folder (default: the current one; created if missing)."
        ),
    ] = Path("."),
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            help="copilot | claude | gemini | codex | opencode | qwen | custom (default: first installed).",
        ),
    ] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Model for every role (unless set per role).")
    ] = None,
    max_rounds: Annotated[int | None, typer.Option("--max-rounds", help="Most research rounds.")] = None,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", help="Executors running at once.")
    ] = None,
    agent_timeout: Annotated[
        float | None, typer.Option("--agent-timeout", help="Seconds before an agent call is killed.")
    ] = None,
    mode: Annotated[str | None, typer.Option("--mode", help="adaptive (default) | fixed.")] = None,
    effort: Annotated[str | None, typer.Option("--effort", help="quick | standard (default) | deep.")] = None,
    language: Annotated[
        str | None, typer.Option("--language", help="Report language (default: the question's).")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Resume the unfinished run in the workspace.")
    ] = False,
    new: Annotated[
        bool, typer.Option("--new", help="Start over: move the previous run aside (nothing is deleted).")
    ] = False,
    follow_up: Annotated[
        bool,
        typer.Option(
            "--follow-up",
            help="Ask the question as a follow-up in the workspace's finished run: its sources and facts "
            "are reused, only what is new or stale is researched, the earlier report is kept in reports/.",
        ),
    ] = False,
    freshness_days: Annotated[
        float | None,
        typer.Option(
            "--freshness-days",
            help="Follow-ups: a source archived more than this many days ago is stale and may be archived "
            "again (default 30; 0: every earlier source).",
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Approve the plan without asking.")] = False,
    interactive: Annotated[
        bool,
        typer.Option(
            "--interactive", "-i", help="With -p/-f: still ask clarifying questions and review the plan."
        ),
    ] = False,
    documents: Annotated[
        list[str] | None,
        typer.Option(
            "--documents",
            help="Your own file, folder or quoted glob to archive before planning (repeat for more); "
            "replaces `documents:` from input.md.",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only errors and the final summary.")] = False,
    pdf: Annotated[bool, typer.Option("--pdf", help="Also print report.pdf (headless Chromium).")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = None,
) -> None:
    """Research a question with a team of agents run through your agent CLI; write report.md."""
    if ctx.invoked_subcommand is not None:
        return
    # The pipeline is imported only when a run starts: `--help`, `--version` and the subcommands
    # do not pay for it.
    from deepresearch.cli.session import RunOptions, start_run

    flags: dict[str, Any] = {
        "agent": agent,
        "model": model,
        "max_rounds": max_rounds,
        "concurrency": concurrency,
        "agent_timeout": agent_timeout,
        "mode": mode,
        "effort": effort,
        "language": language,
        "freshness_days": freshness_days,
        # Relative to where the command runs, as a person typing the path means it.
        "documents": [str(Path.cwd() / Path(d).expanduser()) for d in documents] if documents else None,
    }
    options = RunOptions(
        prompt=prompt,
        file=file,
        workdir=workdir,
        flags=flags,
        resume=resume,
        new=new,
        follow_up=follow_up,
        yes=yes,
        quiet=quiet,
        pdf=pdf,
        interactive=interactive,
        interactive_terminal=sys.stdin.isatty() and sys.stdout.isatty(),
        stdout_terminal=sys.stdout.isatty(),
    )
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        summary = start_run(options, dict(os.environ))
    finally:
        signal.signal(signal.SIGTERM, previous)
    if summary is not None:
        exit_for_report(summary)


def exit_for_report(summary: RunSummary) -> None:
    """Raise the error whose exit code says why the report is not one that passed: 9 when the
    ceiling refused a call it needed, 5 when the synthesizer failed, 8 when problems remain."""
    problems = f"{summary.violations} problems remain; " if summary.violations else ""
    if summary.cause == "budget":
        raise BudgetExhaustedError(
            f"{summary.report} was written, with a notice at its top: {problems}{summary.cause_reason}",
            hint="raise max_agent_calls and run the same command again for a report that passes",
        )
    if summary.cause == "agent":
        raise AgentError(
            f"{summary.report} was written, with a notice at its top: {problems}{summary.cause_reason}",
            hint="run the same command again to retry the synthesis (`deepresearch doctor` checks the agent CLI)",
        )
    if summary.violations:
        raise CheckFailedError(
            f"the report did not pass verification: {summary.violations} problems remain",
            hint=f"they are listed in the Verification section of {summary.report}; "
            "`deepresearch check` re-runs the checks",
        )


def register(app: typer.Typer) -> None:
    """Install the main command as the app's callback (so subcommands can sit beside it)."""
    app.callback(invoke_without_command=True, epilog=EPILOG)(main_command)
