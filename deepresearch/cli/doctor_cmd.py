"""`deepresearch doctor [--ping] [-o DIR]`: agent CLIs and their permission profiles, the OS sandbox,
Chromium, search and the workspace, each problem with the command that fixes it. Exit 0 when at least one agent CLI is usable, else 6."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from deepresearch.core.errors import NoAgentError

if TYPE_CHECKING:
    from deepresearch.agents.base import PermissionProfile
    from deepresearch.doctor import AgentCheck, DoctorReport
    from deepresearch.doctor.checks import BrowserCheck, SearchCheck, WorkspaceCheck
    from deepresearch.doctor.security import SandboxCheck

OK, BAD, UNKNOWN, UNSET = "✓", "✗", "?", "·"


def register(app: typer.Typer) -> None:
    """Add the `doctor` subcommand to the app."""
    app.command("doctor", help="Check the agent CLIs, Chromium, search providers and the workspace.")(doctor)


def doctor(
    ping: Annotated[
        bool,
        typer.Option("--ping", help="Also send each installed agent CLI a one-line prompt (uses the API)."),
    ] = False,
    workdir: Annotated[
        Path, typer.Option("-o", "--workdir", help="Workspace folder to check (default: the current folder).")
    ] = Path("."),
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Also show the permission profiles of CLIs that are not installed."
        ),
    ] = False,
) -> None:
    """Print what works and what does not, with the fix for each problem."""
    from deepresearch.doctor import run_doctor  # when it runs: `--help` stays fast

    report = run_doctor(workdir.expanduser().resolve(), dict(os.environ), ping=ping)
    typer.echo(f"deepresearch doctor — {report.workdir}\n")
    _agents(report.agents, report.pinged, report.node)
    _permissions(report.agents, report.permissions, verbose)
    _environments(report)
    _sandbox(report.sandbox)
    _browser(report.browser)
    _search(report.search)
    _workspace(report.workspace)
    _problems(report)
    if not report.usable_agents:
        raise NoAgentError(
            "no usable agent CLI: every supported CLI is missing or not logged in",
            hint="install one and log in to it (the commands are listed above); to see a complete run "
            "first, with a scripted agent and no CLI: deepresearch demo",
        )


def _agents(agents: list[AgentCheck], pinged: bool, node: str | None) -> None:
    from deepresearch.doctor.agents import NODE_MAJOR, node_ok

    typer.echo("Agent CLIs" + (" (pinged)" if pinged else ""))
    if node is not None:
        mark = OK if node_ok(node) else BAD
        typer.echo(
            f"  {mark} Node.js  {node or 'not found'}  (npm installs the CLIs; they need Node.js {NODE_MAJOR}+)"
        )
    for agent in agents:
        if not agent.installed:
            typer.echo(f"  {BAD} {agent.name:<8} not installed")
            continue
        mark = OK if agent.logged_in else BAD if agent.logged_in is False else UNKNOWN
        state = "logged in" if agent.logged_in else "not logged in" if agent.logged_in is False else "login"
        typer.echo(f"  {mark} {agent.name:<8} {agent.version or '?':<9} {state}: {agent.login}")
        typer.echo(f"    {'':<8} {agent.path}")
        if agent.provider is not None:
            reach = UNKNOWN if agent.provider.reachable is None else OK if not agent.provider.problem else BAD
            typer.echo(f"    {'':<8} {reach} provider: {agent.provider.detail}")
    typer.echo("")


def _permissions(agents: list[AgentCheck], permissions: dict[str, PermissionProfile], verbose: bool) -> None:
    """Each installed CLI's permission profile (every CLI's with --verbose)."""
    installed = {agent.name for agent in agents if agent.installed}
    shown = {name: p for name, p in permissions.items() if verbose or name in installed}
    left_out = (
        "" if verbose or len(shown) == len(permissions) else "; --verbose shows those of the others too"
    )
    typer.echo(f"Permission profiles (each installed CLI's own rules, as a run sets them{left_out})")
    if not shown:
        typer.echo("  none: no agent CLI is installed")
    for name, profile in shown.items():
        typer.echo(f"  {name:<8} researchers: {profile.researcher}")
        typer.echo(f"  {'':<8} writers:     {profile.writer}")
        for gap in profile.gaps:
            typer.echo(f"  {'':<8} {UNKNOWN} cannot express: {gap}")
    typer.echo("")


def _environments(report: DoctorReport) -> None:
    typer.echo("Agent environments (what passes from this environment to each CLI; names only)")
    _wrapped("every CLI", ", ".join(report.every_cli_env))
    for env in report.environments:
        _wrapped(env.name, "+ " + (", ".join(env.declared) or "nothing of its own: name it in agent_env"))
        _wrapped("", f"set here and passed: {', '.join(env.passed) or 'none'}")
        _wrapped("", f"set here and withheld: {len(env.withheld)} ({_some(env.withheld)})")
    typer.echo("")


def _wrapped(label: str, text: str) -> None:
    lines = textwrap.wrap(text, width=96, break_on_hyphens=False) or [""]
    typer.echo(f"  {label:<10} {lines[0]}")
    for line in lines[1:]:
        typer.echo(f"  {'':<10}   {line}")


def _some(names: tuple[str, ...], shown: int = 6) -> str:
    more = f", and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more if names else "none"


def _sandbox(check: SandboxCheck) -> None:
    typer.echo("OS sandbox (bubblewrap around every agent process)")
    typer.echo(f"  {OK if check.used else UNSET if check.mode == 'off' else BAD} {check.summary}")
    if check.status.executable:
        typer.echo(f"    {check.status.executable}")
    typer.echo("")


def _browser(browser: BrowserCheck) -> None:
    typer.echo("Chromium (for archiving sources)")
    if browser.playwright is None:
        typer.echo(f"  {BAD} Playwright is not installed")
    else:
        typer.echo(f"  {OK if browser.launched else BAD} {browser.detail}")
        own = browser.own_chromium or "not downloaded"
        typer.echo(
            f"    Playwright {browser.playwright}; its own Chromium: {own}; system: {browser.chromium or 'none'}"
        )
    typer.echo("")


def _search(search: SearchCheck) -> None:
    typer.echo("Search providers (in the order tried)")
    for name, key, usable in search.providers:
        if key is None:
            note = f"keyless: {search.tried.get(name, 'not tried')}"
            mark = OK if usable else BAD
        else:
            note, mark = f"{key} {'set' if usable else 'not set'}", OK if usable else UNSET
        typer.echo(f"  {mark} {name:<10} {note}")
    typer.echo("")


def _workspace(check: WorkspaceCheck) -> None:
    typer.echo(f"Workspace {check.root}")
    if not check.has_run:
        typer.echo(f"  {check.no_run}")
    elif check.question:
        typer.echo(f"  question: {check.question}")
        typer.echo(f"  status:   {check.status}, round {check.round}; tasks: {check.tasks or 'none yet'}")
        typer.echo(f"  lock:     {check.lock}")
        typer.echo(f"  report:   {check.report or 'not written yet'}")
    typer.echo("")


def _problems(report: DoctorReport) -> None:
    problems = report.problems()
    if not problems:
        typer.echo("No problems found.")
    else:
        typer.echo("Problems and fixes")
        for what, fix in problems:
            typer.echo(f"  {BAD} {what}\n      → {fix}")
    usable = report.usable_agents
    typer.echo(f"\nUsable agent CLIs: {', '.join(usable) if usable else 'none'}")
