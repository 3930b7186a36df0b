"""`python -m deepresearch.cli.tools search|archive|check ...`: what the tool scripts of a run run.

Only the commands agents may use: search and archive, with the same options and output as
`deepresearch search` and `deepresearch archive`, and check, the self-check of the agent's own
output file (cli/tool_run.py does the work for all three), parsed with argparse:
this entry starts without typer or the rest of the CLI, so an agent's tool call costs a fraction of
the CPU time (bench/pipeline.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from deepresearch.cli.check_tool import run_check_command
from deepresearch.cli.exits import debug_requested, exit_code_for
from deepresearch.cli.tool_run import (
    MAX_K,
    Printed,
    attributed,
    run_archive_command,
    run_search_command,
    workspace_root,
)
from deepresearch.core.errors import ExitCode


def parser() -> argparse.ArgumentParser:
    """The two subcommands with the options of the full CLI's."""
    top = argparse.ArgumentParser(prog="deepresearch", description="search and archive, for research agents")
    commands = top.add_subparsers(dest="command", required=True)
    search = commands.add_parser("search", help="Search the web through the run's providers.")
    search.add_argument("query", help="What to search for.")
    search.add_argument("-k", type=int, default=10, help=f"How many results (1-{MAX_K}).")
    search.add_argument("--json", dest="as_json", action="store_true", help="Print a JSON array of results.")
    search.add_argument(
        "--local", action="store_true", help="Search the run's archived sources (no web search spent)."
    )
    search.add_argument(
        "--workdir", type=Path, help="The run folder (default: DEEPRESEARCH_WORKDIR, else here)."
    )
    archive = commands.add_parser("archive", help="Archive web pages and PDFs as sources of the run.")
    archive.add_argument("urls", nargs="+", help="The URLs to archive.")
    archive.add_argument(
        "-o", "--workdir", type=Path, help="The run folder (default: DEEPRESEARCH_WORKDIR, else here)."
    )
    archive.add_argument("--json", dest="as_json", action="store_true", help="Print a JSON array of records.")
    archive.add_argument("--screenshot", action="store_true", help="Also save a full-page screenshot.")
    archive.add_argument(
        "--pdf", dest="print_pdf", action="store_true", help="Also save the page printed as PDF."
    )
    check = commands.add_parser(
        "check", help="Check your own output file as the orchestrator will: problems with their lines."
    )
    check.add_argument(
        "--workdir", type=Path, help="The run folder (default: DEEPRESEARCH_WORKDIR, else here)."
    )
    for sub in (search, archive):
        sub.add_argument("--batch", type=int, help="The Top-K batch it is for (executors).")
    for sub in (search, archive, check):
        sub.add_argument("--debug", action="store_true", help="Show the traceback of an internal error.")
    return top


def run(argv: list[str]) -> Printed:
    """Parse `argv` and run the command; what it prints."""
    args = parser().parse_args(argv)
    environ = attributed(os.environ, None, getattr(args, "batch", None))
    root = workspace_root(args.workdir, environ)
    if args.command == "check":
        return run_check_command(root, environ)
    if args.command == "search":
        return run_search_command(args.query, args.k, args.as_json, root, environ, args.local)
    return run_archive_command(args.urls, args.as_json, args.screenshot, args.print_pdf, root, environ)


def main(argv: list[str] | None = None) -> None:
    """Run `search`, `archive` or `check` with the CLI's messages and exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        run(args).emit()
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        sys.exit(ExitCode.USAGE if exc.code not in (0, None) else 0)
    except (Exception, KeyboardInterrupt) as exc:
        sys.exit(exit_code_for(exc, debug_requested(args)))
    sys.exit(0)


if __name__ == "__main__":
    main()
