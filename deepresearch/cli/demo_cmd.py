"""`deepresearch demo [-o DIR]`: a complete research run with no agent CLI and no network.

The package's scripted agent (deepresearch/demo/agent.py) plays every role through the custom
backend, and a small bundled site (pages and a search endpoint, deepresearch/demo/site.py) is served
on 127.0.0.1 for the run. Everything else is an ordinary run — plan, rounds, tool service, archives,
verified quotes, the checked report — ending with report.md, report.html, task.md and assets/ in
DIR (default: ./deepresearch-demo). Run again in the same folder, it resumes an interrupted demo.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from deepresearch.core.errors import CheckFailedError, UsageError

DEFAULT_FOLDER = Path("deepresearch-demo")


def register(app: typer.Typer) -> None:
    """Add the `demo` subcommand to the app."""
    app.command(
        "demo",
        help="See a complete run first: a scripted agent researches a sample question on pages bundled "
        "with deepresearch (no agent CLI, no network, no cost; under a minute) and writes report.md, "
        "report.html, task.md and assets/ to the -o folder.",
    )(demo)


def demo(
    workdir: Annotated[
        Path, typer.Option("-o", "--workdir", help="Folder for the demo run (created if missing).")
    ] = DEFAULT_FOLDER,
    new: Annotated[
        bool,
        typer.Option("--new", help="Start the demo over: move the previous one aside (nothing is deleted)."),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only errors and the final summary.")] = False,
) -> None:
    """Run the demonstration and say where its report is."""
    # Imported when it runs: `deepresearch --help` does not pay for the pipeline.
    from deepresearch.cli.session import RunOptions, start_run
    from deepresearch.demo.settings import demo_settings, previous_port, question, write_settings
    from deepresearch.demo.site import DemoSite, pages

    root = workdir.expanduser().resolve()
    _check_folder(root, question(), new)
    with DemoSite(previous_port(root)) as site:
        settings = demo_settings(site.base_url)
        if not quiet:
            _intro(root, site.base_url, len(pages()))
        options = RunOptions(
            prompt=question(),
            file=None,
            workdir=root,
            new=new,
            yes=True,
            quiet=quiet,
            settings=settings,
            stdout_terminal=sys.stdout.isatty(),
        )
        root.mkdir(parents=True, exist_ok=True)
        write_settings(root, settings)
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
        try:
            summary = start_run(options, dict(os.environ))
        finally:
            signal.signal(signal.SIGTERM, previous)
    _outro(root)
    if summary is not None and summary.violations:
        raise CheckFailedError(
            f"the demo's report did not pass verification: {summary.violations} problems remain",
            hint=f"they are listed in the Verification section of {summary.report}; please report this",
        )


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # as in a run: agents are stopped and the demo is left resumable


def _check_folder(root: Path, demo_question: str, new: bool) -> None:
    """The folder must be new, empty, or an earlier demo's (unfinished, or finished with --new): the
    demo never writes over a real run or a configuration of the person's."""
    from deepresearch.core.workspace import Workspace
    from deepresearch.demo.settings import CONFIG_NOTE
    from deepresearch.state.model import RunStatus
    from deepresearch.state.store import StateStore

    if root.exists() and not root.is_dir():
        raise UsageError(f"{root} is a file, not a folder", hint="pass -o a folder for the demo")
    config = root / "deepresearch.yaml"
    if config.is_file() and not config.read_text(encoding="utf-8").startswith(CONFIG_NOTE):
        raise UsageError(
            f"{root} has a deepresearch.yaml of its own: the demo would replace it",
            hint="run the demo in another folder: deepresearch demo -o deepresearch-demo",
        )
    workspace = Workspace(root)
    if not workspace.has_run():
        return
    front = StateStore(workspace).load().front
    if front.question.strip() != demo_question:
        raise UsageError(
            f"{root} holds a research run of its own",
            hint="run the demo in another folder: deepresearch demo -o DIR",
        )
    if front.status is RunStatus.COMPLETED and not new:
        raise UsageError(
            f"the demo in {root} is finished: its report is {workspace.report_html}",
            hint=f"deepresearch demo --new -o {root} runs it again (the old one is moved aside)",
        )


def _intro(root: Path, site: str, page_count: int) -> None:
    typer.echo(
        "deepresearch demo: a real run with a scripted agent in place of a model — no agent CLI, no network,\n"
        f"no cost. Its {page_count} pages are bundled with deepresearch and served on {site} for this run;\n"
        "Norbridge is a fictional city and every figure is invented. The rest is what every run does:\n"
        "a plan, rounds of research, archived sources, verified quotes and a report whose citations code checks.\n"
        f"Folder: {root}\n"
    )


def _outro(root: Path) -> None:
    typer.echo(
        f"\nThis was a demonstration with a scripted agent. Open {root / 'report.html'} (or report.md) to see\n"
        "what a run produces: task.md holds the plan and the evidence, assets/ the archived pages, logs/ every\n"
        "prompt and agent output. To research your own question, install and log in to an agent CLI\n"
        '(`deepresearch doctor` says what you have), then: deepresearch -p "your question" -o research/first'
    )
