"""The one place typed errors become messages and exit codes, for every typer app of the CLI
(the full `deepresearch` app and the tool scripts' `deepresearch.cli.tools`)."""

from __future__ import annotations

import os
import sys
import traceback

import typer
from typer.exceptions import TyperException

from deepresearch.core.errors import DeepResearchError, ExitCode


def _debug_requested(argv: list[str]) -> bool:
    return "--debug" in argv or os.environ.get("DEEPRESEARCH_DEBUG", "") not in ("", "0", "false")


def run_app(app: typer.Typer, argv: list[str] | None = None) -> None:
    """Run `app` on `argv` (default: the command line), turning typed errors into messages and
    exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = _debug_requested(args)
    try:
        app(args=args, prog_name="deepresearch", standalone_mode=False)
    except DeepResearchError as exc:
        if debug:
            traceback.print_exc()
        print(f"deepresearch: error: {exc}", file=sys.stderr)
        sys.exit(int(exc.exit_code))
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        print("deepresearch: interrupted; run the same command again to resume.", file=sys.stderr)
        sys.exit(int(ExitCode.INTERRUPTED))
    except TyperException as exc:  # usage errors from typer's bundled click: bad option, bad value
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            print(f"deepresearch: error: {exc}", file=sys.stderr)
        sys.exit(int(ExitCode.USAGE))
    except KeyboardInterrupt:
        print("deepresearch: interrupted; run the same command again to resume.", file=sys.stderr)
        sys.exit(int(ExitCode.INTERRUPTED))
    except Exception:
        if debug:
            traceback.print_exc()
        else:
            exc_type, exc_value, _ = sys.exc_info()
            name = exc_type.__name__ if exc_type else "error"
            print(
                f"deepresearch: internal error ({name}: {exc_value}). "
                "Run again with --debug for the traceback and report it.",
                file=sys.stderr,
            )
        sys.exit(int(ExitCode.FAILURE))
    sys.exit(0)
