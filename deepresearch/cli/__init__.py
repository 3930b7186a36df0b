"""The command-line layer: flags → Config → core; renders events; maps errors to exit codes."""

from deepresearch.cli.app import app, main

__all__ = ["app", "main"]
