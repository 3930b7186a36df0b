"""Rendered figures and their manifest, `assets/images/figures.json` (read by `deepresearch check`)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.core.errors import StateError
from deepresearch.core.files import atomic_write
from deepresearch.figures.fonts import has_cjk

MANIFEST = "assets/images/figures.json"


@dataclass(frozen=True)
class RenderedFigure:
    """A figure drawn to disk: its number in the report, files, caption and the sources it cites."""

    number: int
    title: str
    caption: str  # the agent's caption (or the title), without label and citations
    png: str  # workspace-relative, forward slashes: assets/images/figure-1.png
    svg: str
    sources: tuple[str, ...]
    facts: tuple[str, ...] = ()
    index: int = 0  # position of its spec in charts_result.md
    type: str = ""
    warnings: tuple[str, ...] = field(default=(), compare=False)

    @property
    def label(self) -> str:
        """`Figure N`, or `图 N` when the title is Chinese/Japanese/Korean."""
        return f"图 {self.number}" if has_cjk(self.title) else f"Figure {self.number}"

    @property
    def citations(self) -> str:
        """The caption's citations: [S03][S07]."""
        return "".join(f"[{s}]" for s in self.sources)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RenderedFigure:
        """A figure from its manifest entry (lists become tuples)."""
        fields = {**data, **{k: tuple(data.get(k, ())) for k in ("sources", "facts", "warnings")}}
        return cls(**fields)


def save_figures(workspace_root: Path, figures: list[RenderedFigure]) -> Path:
    """Write the manifest atomically; returns its path."""
    path = workspace_root / MANIFEST
    atomic_write(
        path, json.dumps([f.to_dict() for f in figures], ensure_ascii=False, indent=2) + "\n", durable=False
    )
    return path


def load_figures(workspace_root: Path) -> list[RenderedFigure]:
    """The figures of a run from its manifest; none when the run drew no figure."""
    path = workspace_root / MANIFEST
    if not path.exists():
        return []
    try:
        return [RenderedFigure.from_dict(item) for item in json.loads(path.read_text("utf-8"))]
    except (ValueError, TypeError, KeyError) as exc:
        raise StateError(
            f"unreadable figure manifest: {exc}", path=MANIFEST, hint="delete it and re-run the figures step"
        ) from exc
