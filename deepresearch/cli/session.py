"""From command-line options to a running orchestrator: request, config, workspace, display, hooks."""

from __future__ import annotations

import shutil
import sys
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from deepresearch.agents.registry import detect_default, install_hints
from deepresearch.agents.runner import AgentRunner
from deepresearch.cli.interactive import Interaction
from deepresearch.cli.request import Request, read_request, run_config
from deepresearch.core.config import Config
from deepresearch.core.errors import NoAgentError, UsageError
from deepresearch.core.eventlog import EventLog
from deepresearch.core.events import FanOut
from deepresearch.core.sandbox import check_workspace
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.orchestrator import Orchestrator, RunSummary, new_document, role_agents
from deepresearch.report.html import render_pdf
from deepresearch.state.model import RunStatus, TaskDoc
from deepresearch.state.store import StateStore
from deepresearch.ui.live import LiveDisplay
from deepresearch.ui.plain import PlainDisplay


@dataclass
class RunOptions:
    prompt: str | None
    file: Path | None
    workdir: Path
    flags: dict[str, Any] = field(default_factory=dict)
    resume: bool = False
    new: bool = False
    yes: bool = False
    quiet: bool = False
    interactive: bool = False  # --interactive: clarifying questions and plan review even with -p/-f
    interactive_terminal: bool = False  # stdin and stdout are a terminal: we may ask
    stdout_terminal: bool = False  # stdout is a terminal: draw the live view
    pdf: bool = False  # --pdf: also print report.pdf from report.html


def choose_agent(config: Config) -> Config:
    """Fill in the default agent (first installed) or fail with install instructions."""
    if config.agent is not None:
        return config
    found = detect_default(shutil.which)
    if found is None:
        raise NoAgentError(
            "no supported agent CLI is installed", hint="install one of them:\n" + install_hints()
        )
    config.agent = found
    return config


def _move_aside(workspace: Workspace, doc_id: str) -> Path:
    """Move the previous run's files to previous-runs/<id>/ (nothing is deleted)."""
    target = workspace.root / "previous-runs" / doc_id
    n = 1
    while target.exists():
        n += 1
        target = workspace.root / "previous-runs" / f"{doc_id}-{n}"
    target.mkdir(parents=True)
    names = ("task.md", "report.md", "report.html", "report.pdf", "knowledge.json", "logs", "assets")
    for name in (*names, ".deepresearch"):
        src = workspace.root / name
        if src.exists():
            shutil.move(str(src), str(target / name))
    return target


def open_document(
    workspace: Workspace, request: Request | None, options: RunOptions, config: Config
) -> tuple[TaskDoc, bool]:
    """The document to run: the unfinished one here (resume) or a new one for the request."""
    store = StateStore(workspace)
    if store.exists() and options.new:
        previous = store.load()
        moved = _move_aside(workspace, previous.front.id)
        typer.echo(f"previous run moved to {moved}", err=True)
    elif store.exists():
        doc = store.load()
        finished = doc.front.status in (RunStatus.COMPLETED, RunStatus.FAILED)
        if request is not None and request.text.strip() != doc.request.strip() and not options.resume:
            raise UsageError(
                f"{workspace.task_md} holds another {'finished' if finished else 'unfinished'} run "
                f"({doc.front.question!r})",
                hint="use --new to move it aside and start this one, --resume to continue it, or -o another folder",
            )
        if finished and not options.resume:
            raise UsageError(
                f"the run in {workspace.root} is already {doc.front.status.value}; report: {workspace.report_md}",
                hint="use --new to start over (the old run is moved aside), or -o another folder",
            )
        return doc, True
    if request is None:
        raise UsageError(
            "no question given and no unfinished run here", hint='deepresearch -p "your question"'
        )
    return new_document(request.text, config, role_agents(config)), False


def _asks_questions(options: RunOptions) -> bool:
    """Interactive mode (no -p/-f on a terminal) or --interactive."""
    given = options.prompt is not None or options.file is not None
    return options.interactive_terminal and (options.interactive or not given)


def _reviews_plan(options: RunOptions, doc: TaskDoc) -> bool:
    """Ask for approval in interactive mode, and whenever a plan in task.md still awaits it."""
    if options.yes or not options.interactive_terminal:
        return False
    awaiting = doc.front.status is RunStatus.PLANNING and bool(doc.tasks)
    return _asks_questions(options) or awaiting


def _display(workspace: Workspace, options: RunOptions, console: Console) -> LiveDisplay | PlainDisplay:
    """Live on a terminal, timestamped lines otherwise (logs, CI)."""
    if options.stdout_terminal:
        return LiveDisplay(workspace, console, quiet=options.quiet)
    return PlainDisplay(sys.stdout, quiet=options.quiet)


def start_run(options: RunOptions, environ: dict[str, str]) -> RunSummary | None:
    """Everything `deepresearch [-p|-f]` does: returns the run's summary."""
    if options.interactive and not options.interactive_terminal:
        raise UsageError(
            "--interactive needs a terminal to ask on", hint="run it in a terminal, or drop --interactive"
        )
    workdir = options.workdir.expanduser().resolve()
    # Before anything is written there: a run in the home folder would show all of it to agents.
    check_workspace(workdir, Path(environ.get("HOME") or Path.home()))
    workdir.mkdir(parents=True, exist_ok=True)
    workspace = Workspace(workdir)
    console = Console(highlight=False)
    request = read_request(options.prompt, options.file)
    if request is None and not StateStore(workspace).exists():
        if not options.interactive_terminal:
            raise UsageError(
                "no question given and no terminal to ask one on",
                hint='use -p "question" or -f input.md (or run in a terminal for interactive mode)',
            )
        request = Request(_interaction(console, environ, None).ask_question(), {}, "terminal")
    config = choose_agent(run_config(workdir, environ, request, options.flags))
    doc, resumed = open_document(workspace, request, options, config)
    display = _display(workspace, options, console)
    interaction = _interaction(console, environ, display)
    sink = FanOut(EventLog(workspace), display)
    runner = AgentRunner(workspace, config, sink, environ)
    orchestrator = Orchestrator(workspace, config, sink, runner)
    with display if isinstance(display, LiveDisplay) else nullcontext():
        summary = orchestrator.run(
            doc,
            resumed,
            on_plan=interaction.review if _reviews_plan(options, doc) else None,
            on_clarify=interaction.clarify if _asks_questions(options) else None,
        )
    if options.pdf and workspace.report_html.is_file():
        render_pdf(workspace.report_html, workspace.root / "report.pdf", config.chromium_path)
        console.print(f"report.pdf: {workspace.root / 'report.pdf'}")
    return summary


def _interaction(
    console: Console, environ: dict[str, str], display: LiveDisplay | PlainDisplay | None
) -> Interaction:
    def pause() -> AbstractContextManager[None]:
        return display.paused() if isinstance(display, LiveDisplay) else nullcontext()

    return Interaction(console, environ, pause)
