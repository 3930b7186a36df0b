"""The one place typed errors become messages and exit codes, for every typer app of the CLI
(the full `deepresearch` app and the tool scripts' `deepresearch.cli.tools`)."""

from __future__ import annotations

import sys

import typer
from typer.exceptions import TyperException

from deepresearch.cli.exits import INTERRUPTED, debug_requested, exit_code_for
from deepresearch.core.errors import ExitCode


def run_app(app: typer.Typer, argv: list[str] | None = None) -> None:
    """Run `app` on `argv` (default: the command line), turning typed errors into messages and
    exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        # Not standalone: typer returns the exit code of an Exit (its Ctrl-C is Exit(130)) instead of
        # exiting, so every outcome is decided here.
        code = app(args=args, prog_name="deepresearch", standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        print(INTERRUPTED, file=sys.stderr)
        sys.exit(int(ExitCode.INTERRUPTED))
    except TyperException as exc:  # usage errors from typer's bundled click: bad option, bad value
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            print(f"deepresearch: error: {exc}", file=sys.stderr)
        sys.exit(int(ExitCode.USAGE))
    except (Exception, KeyboardInterrupt) as exc:
        sys.exit(exit_code_for(exc, debug_requested(args)))
    if code == ExitCode.INTERRUPTED:
        print(INTERRUPTED, file=sys.stderr)
    sys.exit(code if isinstance(code, int) else 0)
