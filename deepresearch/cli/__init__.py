"""The command-line layer: flags → Config → core; renders events; maps errors to exit codes."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["main"]


def __getattr__(name: str) -> Any:
    # Loaded on first use, so that `deepresearch.cli.tools` (what agents' tool scripts run) starts
    # without importing every other command. (`deepresearch.cli.app` is the typer app's module.)
    if name == "main":
        return importlib.import_module("deepresearch.cli.app").main
    raise AttributeError(name)
