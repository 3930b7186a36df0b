"""From command-line options to a running orchestrator: request, config, workspace, display."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import frontmatter
import typer
import yaml

from deepresearch.agents.registry import detect_default, install_hints
from deepresearch.agents.runner import AgentRunner
from deepresearch.config import Config, load_config
from deepresearch.errors import ConfigError, NoAgentError, UsageError
from deepresearch.eventlog import EventLog
from deepresearch.events import FanOut
from deepresearch.pipeline.orchestrator import Orchestrator, RunSummary, new_document, role_agents
from deepresearch.state.model import RunStatus, TaskDoc
from deepresearch.state.store import StateStore
from deepresearch.ui.plain import PlainDisplay
from deepresearch.workspace import Workspace


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
    interactive_terminal: bool = False


@dataclass
class Request:
    text: str
    front_matter: dict[str, Any]
    source: str


def read_request(options: RunOptions) -> Request | None:
    """The request from -p or -f (None when neither was given)."""
    if options.prompt is not None and options.file is not None:
        raise UsageError("give either -p QUESTION or -f FILE, not both")
    if options.prompt is not None:
        if not options.prompt.strip():
            raise UsageError("the question given with -p is empty", hint='deepresearch -p "your question"')
        return Request(options.prompt.strip(), {}, "-p")
    if options.file is None:
        return None
    path = options.file
    if not path.is_file():
        raise UsageError(f"request file not found: {path}", hint="check the path, or use -p QUESTION")
    try:
        post = frontmatter.loads(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ConfigError("(front matter)", where, f"not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text") from exc
    if not post.content.strip():
        raise UsageError(f"{path} has no request text after its front matter")
    return Request(post.content.strip(), dict(post.metadata), str(path))


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
    for name in (
        "task.md",
        "report.md",
        "report.html",
        "report.pdf",
        "knowledge.json",
        "logs",
        "assets",
        ".deepresearch",
    ):
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


def ask_question(options: RunOptions) -> Request | None:
    """Interactive mode: ask for the question on the terminal."""
    if not options.interactive_terminal:
        return None
    text = typer.prompt("What should be researched?").strip()
    if not text:
        raise UsageError("the question is empty")
    return Request(text, {}, "terminal")


def start_run(options: RunOptions, environ: dict[str, str]) -> RunSummary | None:
    """Everything `deepresearch [-p|-f]` does: returns the run's summary."""
    workdir = options.workdir.expanduser().resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    workspace = Workspace(workdir)
    request = read_request(options)
    if request is None and not StateStore(workspace).exists():
        request = ask_question(options)
        if request is None:
            raise UsageError(
                "no question given and no terminal to ask one on",
                hint='use -p "question" or -f input.md (or run in a terminal for interactive mode)',
            )
    config = load_config(
        workdir,
        environ,
        front_matter=request.front_matter if request else None,
        front_matter_source=request.source if request else "input.md",
        flags=options.flags,
    )
    config = choose_agent(config)
    doc, resumed = open_document(workspace, request, options, config)
    display: Any = PlainDisplay(sys.stdout, quiet=options.quiet)
    sink = FanOut(EventLog(workspace), display)
    runner = AgentRunner(workspace, config, sink, environ)
    return Orchestrator(workspace, config, sink, runner).run(doc, resumed)
