"""The doctor's checks beside the agent CLIs: Chromium for archiving, search providers, the workspace.

Heavy imports (Playwright, the report checker) happen inside the checks, so that loading the CLI
stays quick for every other command.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from deepresearch.core.config import Config
from deepresearch.core.errors import DeepResearchError
from deepresearch.core.workspace import Workspace
from deepresearch.sources.chromiums import SYSTEM_CHROMIUMS, playwright_chromium
from deepresearch.state.lock import owner_alive, read_owner
from deepresearch.state.model import RunStatus, TaskDoc
from deepresearch.state.store import StateStore

CHROMIUM_FIX = (
    "sudo apt-get install chromium (Debian/Ubuntu), or `playwright install chromium`, "
    "or set chromium_path in deepresearch.yaml"
)


@dataclass(frozen=True)
class BrowserCheck:
    """Whether archiving can use a headless Chromium (else it falls back to plain HTTP)."""

    playwright: str | None  # the Python package's version; None: not installed
    own_chromium: str | None  # Playwright's own downloaded Chromium, when there is one
    chromium: str | None  # the configured Chromium, else the first system one found
    launched: bool
    detail: str  # which Chromium started, or what every attempt said

    def problems(self) -> list[tuple[str, str]]:
        """(problem, fix) pairs."""
        if self.playwright is None:
            return [
                (
                    "Playwright is not installed: sources are archived without a browser",
                    "pip install playwright",
                )
            ]
        if not self.launched:
            return [
                (
                    f"no Chromium could be launched ({self.detail}); archiving falls back to plain HTTP",
                    CHROMIUM_FIX,
                )
            ]
        return []


def check_browser(chromium_path: str | None, environ: Mapping[str, str]) -> BrowserCheck:
    """Find Playwright and Chromium, then launch it headless for real (as `deepresearch archive` does)."""
    try:
        version: str | None = importlib.metadata.version("playwright")
    except (importlib.metadata.PackageNotFoundError, ImportError):
        return BrowserCheck(None, None, chromium_path, False, "the playwright package is missing")
    own = playwright_chromium(environ)
    found = chromium_path or next((p for p in SYSTEM_CHROMIUMS if Path(p).exists()), None)
    error = asyncio.run(_launch(chromium_path))
    if error is not None:
        return BrowserCheck(version, own, found, False, error)
    used = "Playwright's own Chromium" if own else (found or "Chromium")
    return BrowserCheck(version, own, found, True, f"{used} launched headless")


async def _launch(chromium_path: str | None) -> str | None:
    """None when a browser started and closed again; else what every attempt said."""
    from deepresearch.sources.browser import Browser, BrowserOptions, BrowserUnavailable

    browser = Browser(BrowserOptions(chromium_path=chromium_path, timeout=15))
    try:
        await browser.start()
    except BrowserUnavailable as exc:
        return str(exc)
    await browser.close()
    return None


NETWORK_FIX = "check this machine's internet connection (and HTTPS_PROXY if you use a proxy)"
PROBE_QUERY = "deepresearch"  # what the keyless provider is asked, to see that it answers
PROBE_TIMEOUT = 10.0


@dataclass(frozen=True)
class SearchCheck:
    """The configured search providers, in order, and which can be used now: a keyed one when its key
    is set, a keyless one when it answered a real search just now (`tried` says what it did)."""

    providers: list[tuple[str, str | None, bool]]  # name, its API key variable (None: keyless), usable
    tried: dict[str, str] = field(default_factory=dict)  # keyless provider → what the test search did

    @property
    def usable(self) -> list[str]:
        return [name for name, _, ok in self.providers if ok]

    def problems(self) -> list[tuple[str, str]]:
        """(problem, fix) pairs."""
        found = [
            (f"{name} did not answer a test search: {self.tried[name]}", NETWORK_FIX)
            for name, key, ok in self.providers
            if key is None and not ok and name in self.tried
        ]
        if self.usable:
            return found
        keys = [key for _, key, _ in self.providers if key]
        fix = f"set {' or '.join(keys)}" if keys else "add duckduckgo to search_providers"
        return [*found, ("no search provider can be used: agents can only use their own web search", fix)]


def check_search(config: Config, environ: Mapping[str, str]) -> SearchCheck:
    """Each configured provider with its key variable and whether it can be used; the keyless ones
    (DuckDuckGo) are tried with one real search, since no key says whether they work."""
    from deepresearch.search.model import ProviderError
    from deepresearch.search.providers import configured_providers

    rows, tried = [], {}
    for provider in configured_providers(config, environ):
        usable = provider.available(environ)
        if provider.key_env is None:
            start = time.monotonic()
            try:
                results = provider.search(PROBE_QUERY, 3, min(config.search_timeout, PROBE_TIMEOUT))
            except ProviderError as exc:
                usable, tried[provider.name] = False, str(exc).removeprefix(f"{provider.name}: ")
            else:
                seconds = time.monotonic() - start
                tried[provider.name] = f"answered a test search ({len(results)} results, {seconds:.1f} s)"
        rows.append((provider.name, provider.key_env, usable))
    return SearchCheck(rows, tried)


@dataclass
class WorkspaceCheck:
    """The run in a folder: its state, its lock, and whether its report passes verification."""

    root: Path
    has_run: bool = False
    question: str = ""
    status: str = ""
    round: int = 0
    tasks: str = ""
    lock: str = "free"
    report: str = ""
    problems: list[tuple[str, str]] = field(default_factory=list)
    no_run: str = ""  # why the folder holds no run, as `check` and `status` say it


def check_workspace(workspace: Workspace) -> WorkspaceCheck:
    """Read task.md, the lock and report.md of `workspace` (read-only)."""
    check = WorkspaceCheck(workspace.root)
    if not workspace.has_run():
        check.no_run = workspace.no_run()[0]
        return check
    check.has_run = True
    root = workspace.root
    try:
        doc = StateStore(workspace).load()
    except DeepResearchError as exc:
        fix = f"fix that line of task.md, or move the run aside: deepresearch -o {root} --new -p QUESTION"
        check.problems.append((f"task.md does not load: {exc.message}", fix))
        return check
    front = doc.front
    check.question, check.status, check.round = front.question, front.status.value, front.round
    counts = {s.value: sum(t.status is s for t in doc.tasks) for s in {t.status for t in doc.tasks}}
    check.tasks = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    owner = read_owner(workspace.lock_file)
    running = owner is not None and owner_alive(owner)
    if owner is not None:
        check.lock = (
            f"held by pid {owner.pid} (running)"
            if running
            else f"stale, from pid {owner.pid} (the next run takes it over)"
        )
    if not running and front.status not in (RunStatus.COMPLETED, RunStatus.FAILED):
        check.problems.append(
            (
                f"the run stopped while {front.status.value} (round {front.round})",
                f"deepresearch -o {root}  (resumes it)",
            )
        )
    if workspace.report_md.is_file():
        check.report = _report_state(workspace, doc, check)
    return check


def _report_state(workspace: Workspace, doc: TaskDoc, check: WorkspaceCheck) -> str:
    from deepresearch.report.finalize import verify_report

    try:
        text = workspace.report_md.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        check.problems.append((f"report.md cannot be read: {exc}", "save it as UTF-8 text"))
        return "unreadable"
    problems = len(verify_report(text, doc, workspace.root).violations)
    if problems == 0:
        return "verified: every check passed"
    check.problems.append(
        (f"report.md fails verification ({problems} problems)", f"deepresearch check {workspace.root}")
    )
    return f"{problems} verification problems"
