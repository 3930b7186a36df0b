"""docs/architecture.md stays true: every package, module and command is named, layers match lint-imports."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import typer.main

from deepresearch.cli.app import app
from tests.helpers import REPO

DOC = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
PACKAGE = REPO / "deepresearch"


def _packages() -> list[Path]:
    return sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())


def test_every_package_and_module_is_described() -> None:
    missing = []
    for package in _packages():
        if f"deepresearch/{package.name}" not in DOC:
            missing.append(f"deepresearch/{package.name}")
        for module in package.rglob("*.py"):
            if module.name != "__init__.py" and not re.search(rf"`{re.escape(module.stem)}(\.py)?`", DOC):
                missing.append(str(module.relative_to(REPO)))
    assert missing == [], f"docs/architecture.md does not name: {missing}"


def test_every_command_is_described() -> None:
    group = typer.main.get_group(app)
    commands = sorted(group.commands)
    assert commands  # search, archive, check, status, doctor, browser ...
    for name in commands:
        assert f"`{name}_cmd`" in DOC or f"deepresearch {name}" in DOC, name


def test_the_layer_diagram_is_the_checked_contract() -> None:
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    [layers] = [c["layers"] for c in contracts if c["type"] == "layers"]
    diagram = DOC.split("## Layers", 1)[1].split("```")[1]
    drawn = [line.split("  ")[0].strip() for line in diagram.strip().splitlines()]
    checked = [
        " | ".join(part.strip().removeprefix("deepresearch.") for part in layer.split("|"))
        for layer in layers
    ]
    assert drawn == checked
