"""The typer application and the subcommand registry (errors become exit codes in cli/entry.py)."""

from __future__ import annotations

import importlib

import typer

from deepresearch.cli.entry import run_app

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
    "deepresearch.cli.demo_cmd",
)


def _register_subcommands() -> None:
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(app)


_register_subcommands()


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the app, turn typed errors into messages and exit codes."""
    run_app(app, argv)
