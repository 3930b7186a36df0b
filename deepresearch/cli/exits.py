"""How a failure ends the process: its message on stderr and its exit code (no typer here, so the
tool scripts' lean entry can use it too; cli/entry.py adds typer's own exceptions)."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence

from deepresearch.core.errors import DeepResearchError, ExitCode

INTERRUPTED = "deepresearch: interrupted; run the same command again to resume."


def debug_requested(argv: Sequence[str]) -> bool:
    """--debug on the command line, or DEEPRESEARCH_DEBUG set."""
    return "--debug" in argv or os.environ.get("DEEPRESEARCH_DEBUG", "") not in ("", "0", "false")


def exit_code_for(exc: BaseException, debug: bool) -> int:
    """Print what went wrong for `exc` (a typed error, Ctrl-C, or a bug) and return its exit code."""
    if isinstance(exc, DeepResearchError):
        if debug:
            traceback.print_exception(exc)
        print(f"deepresearch: error: {exc}", file=sys.stderr)
        return int(exc.exit_code)
    if isinstance(exc, KeyboardInterrupt):
        print(INTERRUPTED, file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    if debug:
        traceback.print_exception(exc)
    else:
        print(
            f"deepresearch: internal error ({type(exc).__name__}: {exc}). "
            "Run again with --debug for the traceback and report it.",
            file=sys.stderr,
        )
    return int(ExitCode.FAILURE)
