"""`python -m deepresearch.cli.tools search|archive ...`: what the tool scripts of a run run.

Only the two commands research agents may use, loaded without the rest of the CLI: an agent's
search or archive starts in about a fifth of the time `deepresearch search` takes (bench/pipeline.py).
The commands themselves are the same functions as `deepresearch search` and `deepresearch archive`.
"""

from __future__ import annotations

import typer

from deepresearch.cli import archive_cmd, search_cmd
from deepresearch.cli.entry import run_app

tools_app = typer.Typer(
    name="deepresearch",
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
search_cmd.register(tools_app)
archive_cmd.register(tools_app)


def main(argv: list[str] | None = None) -> None:
    """Run `search` or `archive` with the CLI's exit codes."""
    run_app(tools_app, argv)


if __name__ == "__main__":
    main()
