"""The typer application, the subcommand registry, and the one place errors become exit codes."""

from __future__ import annotations

import importlib
import os
import sys
import traceback

import typer
from typer.exceptions import TyperException

from deepresearch.core.errors import DeepResearchError, ExitCode

app = typer.Typer(
    name="deepresearch",
    add_completion=False,
    no_args_is_help=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# Each module defines `register(app)` that adds its subcommand; add a module here to add a command.
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "deepresearch.cli.run_cmd",
    "deepresearch.cli.search_cmd",
    "deepresearch.cli.archive_cmd",
    "deepresearch.cli.browser_cmd",
    "deepresearch.cli.check_cmd",
    "deepresearch.cli.status_cmd",
    "deepresearch.cli.doctor_cmd",
    "deepresearch.cli.batch_cmd",
    "deepresearch.cli.export_cmd",
    "deepresearch.cli.report_cmd",
)


def _register_subcommands() -> None:
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(app)


_register_subcommands()


def _debug_requested(argv: list[str]) -> bool:
    return "--debug" in argv or os.environ.get("DEEPRESEARCH_DEBUG", "") not in ("", "0", "false")


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the app, turn typed errors into messages and exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = _debug_requested(args)
    try:
        # Not standalone: typer returns the exit code of an Exit (its Ctrl-C is Exit(130)) instead of
        # exiting, so every outcome is decided here.
        code = app(args=args, prog_name="deepresearch", standalone_mode=False)
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
    if code == ExitCode.INTERRUPTED:
        print("deepresearch: interrupted; run the same command again to resume.", file=sys.stderr)
    sys.exit(code if isinstance(code, int) else 0)
