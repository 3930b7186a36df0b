"""`deepresearch browser login URL`: sign in once in a visible Chromium; archiving reuses the profile.

The profile lives in the workspace at .deepresearch/browser-profile (private, 0700). It holds the
cookies of the sites signed in to: treat the folder like a password.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.cli.tool_run import workspace_root
from deepresearch.core.commands import WORKDIR_ENV
from deepresearch.core.errors import ArchiveError, UsageError
from deepresearch.core.workspace import Workspace

browser_app = typer.Typer(help="The browser the archiver uses (sign in to sites once).", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add the `browser` command group to the app."""
    app.add_typer(browser_app, name="browser")


@browser_app.command("login")
def login(
    url: Annotated[str, typer.Argument(help="The site's sign-in page.", show_default=False)],
    workdir: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--workdir",
            envvar=WORKDIR_ENV,
            help="The run folder whose browser profile to use (default: the current folder).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Open a visible Chromium on URL with the workspace's profile; sign in, then close the window."""
    root = workspace_root(workdir, os.environ)
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise UsageError(
            "`browser login` opens a visible browser window, but there is no display (DISPLAY is not set)",
            hint="run it on a desktop session, or over `ssh -X`; archiving itself works without a display",
        )
    from deepresearch.core.config import load_config

    config = load_config(root)
    profile = Workspace(root).browser_profile
    # Imported here: playwright loads only when a browser is really wanted.
    from deepresearch.sources.browser import BrowserUnavailable, login_session

    typer.echo(f"Sign in in the browser window, then close it. Profile: {profile}", err=True)
    typer.echo("The profile holds your sign-in cookies: keep it private, do not share the folder.", err=True)
    try:
        login_session(url, profile, config.chromium_path)
    except BrowserUnavailable as exc:
        raise ArchiveError(
            f"no Chromium could be launched ({exc})",
            hint="install one with `playwright install chromium` or your system's chromium package, "
            "or set chromium_path in deepresearch.yaml",
        ) from exc
    typer.echo(f"Saved. `deepresearch archive` in {root} now uses this profile.", err=True)
