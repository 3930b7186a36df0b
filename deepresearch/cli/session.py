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

from deepresearch.agents.registry import check_installed, detect_default, install_hints
from deepresearch.agents.runner import AgentRunner
from deepresearch.cli.interactive import Interaction
from deepresearch.cli.request import Request, read_request, run_config
from deepresearch.core import sandbox
from deepresearch.core.config import Config, apply_layer
from deepresearch.core.errors import NoAgentError, StateError, UsageError
from deepresearch.core.eventlog import EventLog
from deepresearch.core.events import FanOut
from deepresearch.core.roles import Role
from deepresearch.core.sandbox import check_workspace
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.documents import expand_documents
from deepresearch.pipeline.orchestrator import Orchestrator, new_document, role_agents
from deepresearch.pipeline.plan import question_tasks
from deepresearch.pipeline.summary import RunSummary
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
    # The whole configuration, over the built-in defaults, instead of the config files, input.md,
    # the environment and flags (`deepresearch demo`: nothing of the person's may change it).
    settings: dict[str, Any] | None = None
    follow_up: bool = False  # --follow-up: ask the question in the workspace's knowledge base


def choose_agent(config: Config) -> Config:
    """Fill in the default agent (first installed) or fail with install instructions."""
    if config.agent is not None:
        return config
    found = detect_default(shutil.which)
    if found is None:
        raise NoAgentError(
            "no supported agent CLI is installed",
            hint=install_hints() + "\n  To see a complete run first, with a scripted agent and no CLI: "
            "deepresearch demo",
        )
    config.agent = found
    return config


def preflight(config: Config, workdir: Path) -> None:
    """What would stop the run early, checked before anything is created: every role's agent CLI,
    a required OS sandbox, the documents named."""
    check_installed(config, [role.value for role in Role])
    if config.sandbox == sandbox.SandboxMode.BWRAP:
        sandbox.decide(config.sandbox, sandbox.probe())  # ConfigError when bubblewrap cannot run
    if config.documents:
        expand_documents(config.documents, workdir)  # ConfigError for an entry that names nothing


def _move_aside(workspace: Workspace, doc_id: str) -> Path:
    """Move the previous run's files to previous-runs/<id>/ (nothing is deleted)."""
    target = workspace.root / "previous-runs" / doc_id
    n = 1
    while target.exists():
        n += 1
        target = workspace.root / "previous-runs" / f"{doc_id}-{n}"
    target.mkdir(parents=True)
    names = (
        "task.md", "report.md", "report.html", "report.pdf", "knowledge.json", "logs", "assets", "reports",
    )  # fmt: skip
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
                hint=(
                    "use --follow-up to ask it in that run's knowledge base, "
                    if doc.front.status is RunStatus.COMPLETED
                    else "use "
                )
                + "--new to move it aside and start this one, --resume to continue it, or -o another folder",
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


def open_follow_up(
    workspace: Workspace, request: Request | None, options: RunOptions
) -> tuple[TaskDoc, bool, str | None]:
    """(the document, resumed, the follow-up to start): a new follow-up on the finished run here,
    or the unfinished follow-up itself when it is asked again."""
    store = StateStore(workspace)
    if request is None:
        raise UsageError(
            "--follow-up needs the follow-up question",
            hint=f'deepresearch -p "your follow-up question" -o {workspace.root} --follow-up',
        )
    if not store.exists():
        raise UsageError(
            f"nothing to follow up in {workspace.root}: no research has been done there yet",
            hint="drop --follow-up (or follow_up: true) to ask it as the first question there, or -o the "
            "folder of an earlier run",
        )
    doc = store.load()
    if doc.front.status is RunStatus.COMPLETED and not options.resume:
        return doc, False, request.text
    if request.text.strip() == doc.request.strip():
        return doc, True, None  # the follow-up under way: resume it
    raise UsageError(
        f"the run in {workspace.root} is not finished ({doc.front.status.value}: {doc.front.question!r}); "
        "a follow-up starts from a finished run",
        hint="run `deepresearch` in that folder to finish it first, then ask the follow-up",
    )


def _asks_questions(options: RunOptions) -> bool:
    """Interactive mode (no -p/-f on a terminal) or --interactive."""
    given = options.prompt is not None or options.file is not None
    return options.interactive_terminal and (options.interactive or not given)


def _reviews_plan(options: RunOptions, doc: TaskDoc) -> bool:
    """Ask for approval in interactive mode, and whenever a plan in task.md still awaits it."""
    if options.yes or not options.interactive_terminal:
        return False
    awaiting = doc.front.status is RunStatus.PLANNING and bool(question_tasks(doc))
    return _asks_questions(options) or awaiting


def _display(workspace: Workspace, options: RunOptions, console: Console) -> LiveDisplay | PlainDisplay:
    """Live on a terminal, timestamped lines otherwise (logs, CI)."""
    if options.stdout_terminal:
        return LiveDisplay(workspace, console, quiet=options.quiet)
    return PlainDisplay(sys.stdout, quiet=options.quiet)


def _configure(
    options: RunOptions, workdir: Path, environ: dict[str, str], request: Request | None
) -> Config:
    """The run's configuration: the fixed `settings` (demo), else every layer and the default agent."""
    if options.settings is not None:
        return apply_layer(Config(), options.settings, "settings")
    return choose_agent(run_config(workdir, environ, request, options.flags))


def start_run(options: RunOptions, environ: dict[str, str]) -> RunSummary | None:
    """Everything `deepresearch [-p|-f]` does: returns the (last) run's summary. Nothing is created
    before the request, the configuration and the agent CLIs are known to be usable. In interactive
    mode a finished run is followed by "ask a follow-up?", as often as the person likes."""
    if options.interactive and not options.interactive_terminal:
        raise UsageError(
            "--interactive needs a terminal to ask on", hint="run it in a terminal, or drop --interactive"
        )
    workdir = options.workdir.expanduser().resolve()
    if workdir.exists() and not workdir.is_dir():
        raise UsageError(f"{workdir} is a file, not a folder", hint="pass -o a folder for the run")
    # Before anything is written there: a run in the home folder would show all of it to agents.
    check_workspace(workdir, Path(environ.get("HOME") or Path.home()))
    workspace = Workspace(workdir)
    console = Console(highlight=False)
    request = read_request(options.prompt, options.file)
    follow_up = options.follow_up or (request is not None and request.follow_up)
    if follow_up and options.new:
        raise UsageError(
            "--new starts over and --follow-up builds on the run here: give one of them",
            hint="--follow-up keeps the sources and facts; --new moves them aside",
        )
    ask = False
    if (
        request is None
        and not options.resume
        and options.interactive_terminal
        and (follow_up or _finished(workspace))
    ):
        request = _ask_follow_up(workspace, console, environ)
        if request is None:
            return None
        follow_up = True
    elif request is None and not StateStore(workspace).exists():
        if not options.interactive_terminal:
            raise UsageError(
                "no question given and no terminal to ask one on",
                hint='use -p "question" or -f input.md (or run in a terminal for interactive mode)',
            )
        ask = True
    config = _configure(options, workdir, environ, request)
    preflight(config, workdir)
    if ask:
        request = Request(_interaction(console, environ, None).ask_question(), {}, "terminal")
    summary = _run_once(workspace, options, environ, console, request, follow_up, config)
    while _asks_questions(options) and summary.status == RunStatus.COMPLETED.value:
        request = _ask_follow_up(workspace, console, environ)
        if request is None:
            break
        summary = _run_once(workspace, options, environ, console, request, True, None)
    return summary


def _finished(workspace: Workspace) -> bool:
    """Whether the workspace holds a completed run (a terminal then offers a follow-up)."""
    store = StateStore(workspace)
    try:
        return store.exists() and store.load().front.status is RunStatus.COMPLETED
    except StateError:
        return False  # the run's own start reports the broken task.md, with its line


def _ask_follow_up(workspace: Workspace, console: Console, environ: dict[str, str]) -> Request | None:
    """A follow-up question typed on the terminal (None: the person asked none)."""
    store = StateStore(workspace)
    if store.exists():
        doc = store.load()
        console.print(f"\n[bold]This workspace has answered:[/] {doc.front.question}")
        console.print(f"report: {workspace.report_md}")
    text = _interaction(console, environ, None).ask("[bold]Ask a follow-up question[/] (Enter to finish): ")
    return Request(text, {}, "terminal", follow_up=True) if text else None


def _run_once(
    workspace: Workspace,
    options: RunOptions,
    environ: dict[str, str],
    console: Console,
    request: Request | None,
    follow_up: bool,
    config: Config | None,
) -> RunSummary:
    """One run: the request (a first question, a follow-up, or none: resume) through the orchestrator;
    `config` when already read (else read now, with the request's front matter)."""
    if config is None:
        config = _configure(options, workspace.root, environ, request)
        preflight(config, workspace.root)
    pending: str | None = None
    if follow_up:
        doc, resumed, pending = open_follow_up(workspace, request, options)
    else:
        doc, resumed = open_document(workspace, request, options, config)
    workspace.root.mkdir(parents=True, exist_ok=True)  # only now: a command that fails leaves nothing
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
            follow_up=pending,
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
