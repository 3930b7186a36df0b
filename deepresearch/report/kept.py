"""Reports of earlier questions, kept under `reports/` when a follow-up is asked in the workspace.

    reports/01-how-did-sales-change.md         the report, its links made relative to reports/
    reports/01-how-did-sales-change.html       its HTML page (figures embedded, links likewise)
    reports/01-how-did-sales-change.task.md    the task.md it was verified against
    reports/01-how-did-sales-change.figures/   its figures (PNG, SVG) and their manifest, if it had any

A kept report is a record: `deepresearch check reports/01-….md` verifies it again against the
task.md it was written from (the knowledge base has grown since) and the archives, which are never
deleted, and rewrites nothing.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

from deepresearch.core.errors import StateError
from deepresearch.core.files import atomic_write
from deepresearch.figures import RenderedFigure
from deepresearch.figures.records import MANIFEST
from deepresearch.report.finalize import VerificationOutcome, verify_report
from deepresearch.state.model import TaskDoc
from deepresearch.state.parser import parse_task_md

REPORTS = "reports"
_WORD = re.compile(r"[a-z0-9]+")
_MD_LINK = re.compile(r"(\]\(<?)(?:\./)?assets/")
_MD_FIGURE = re.compile(r"(\]\()(?:\./)?assets/images/(figure-\d+\.(?:png|svg))")
_HTML_LINK = re.compile(r'((?:href|src)=")(?:\./)?assets/')
_HTML_FIGURE = re.compile(r'(src=")(?:\./)?assets/images/(figure-\d+\.(?:png|svg))')


def kept_stem(number: int, question: str) -> str:
    """`01-how-did-heat-pump-sales-change`: the question's number and the first words of it."""
    words = _WORD.findall(question.lower())
    slug = "-".join(words)[:48].rstrip("-") or "question"
    return f"{number:02d}-{slug}"


def state_path(report: Path) -> Path:
    """The task.md a kept report was verified against."""
    return report.with_name(f"{report.stem}.task.md")


def figures_dir(report: Path) -> Path:
    """The folder of a kept report's figures."""
    return report.with_name(f"{report.stem}.figures")


def relocate(markdown: str, stem: str) -> str:
    """A report's text as kept in reports/: figures from its own folder, archives from ../assets/."""
    text = _MD_FIGURE.sub(lambda m: f"{m.group(1)}{stem}.figures/{m.group(2)}", markdown)
    return _MD_LINK.sub(lambda m: f"{m.group(1)}../assets/", text)


def restore(markdown: str, stem: str) -> str:
    """The inverse of `relocate`: links relative to the workspace again, as the checks read them."""
    text = markdown.replace(f"]({stem}.figures/", "](assets/images/")
    return text.replace("](../assets/", "](assets/").replace("](<../assets/", "](<assets/")


def _relocate_html(html: str, stem: str) -> str:
    text = _HTML_FIGURE.sub(lambda m: f"{m.group(1)}{stem}.figures/{m.group(2)}", html)
    return _HTML_LINK.sub(lambda m: f"{m.group(1)}../assets/", text)


def keep_report(root: Path, number: int, question: str) -> str:
    """Keep the current report (report.md, .html, .pdf, its figures and task.md) under reports/
    and take it out of the workspace's top level; return its path relative to `root` ("" when
    there is no report). Safe to repeat after a crash: what was kept is found again."""
    stem = kept_stem(number, question)
    target = root / REPORTS / f"{stem}.md"
    report = root / "report.md"
    if not report.is_file():
        return f"{REPORTS}/{target.name}" if target.is_file() else ""
    target.parent.mkdir(parents=True, exist_ok=True)
    _keep_figures(root, figures_dir(target))
    atomic_write(state_path(target), (root / "task.md").read_text(encoding="utf-8"))
    html = root / "report.html"
    if html.is_file():
        atomic_write(target.with_suffix(".html"), _relocate_html(html.read_text(encoding="utf-8"), stem))
    atomic_write(target, relocate(report.read_text(encoding="utf-8"), stem))
    pdf = root / "report.pdf"
    if pdf.is_file():
        pdf.replace(target.with_suffix(".pdf"))
    html.unlink(missing_ok=True)
    report.unlink()  # last: until now a repeat finds the report where it was
    return f"{REPORTS}/{target.name}"


def _keep_figures(root: Path, folder: Path) -> None:
    manifest = root / MANIFEST
    if not manifest.is_file():
        return
    folder.mkdir(parents=True, exist_ok=True)
    for entry in json.loads(manifest.read_text(encoding="utf-8")):
        for key in ("png", "svg"):
            image = root / str(entry.get(key, ""))
            if image.is_file():
                shutil.copy2(image, folder / image.name)
    shutil.copy2(manifest, folder / "figures.json")


def kept_figures(root: Path, report: Path) -> list[RenderedFigure]:
    """A kept report's figures, with their images in its own folder."""
    manifest = figures_dir(report) / "figures.json"
    if not manifest.is_file():
        return []
    folder = figures_dir(report).relative_to(root).as_posix()
    try:
        figures = [RenderedFigure.from_dict(item) for item in json.loads(manifest.read_text("utf-8"))]
    except (ValueError, TypeError, KeyError) as exc:
        raise StateError(f"unreadable figure manifest: {exc}", path=str(manifest)) from exc
    return [
        replace(f, png=f"{folder}/{Path(f.png).name}", svg=f"{folder}/{Path(f.svg).name}") for f in figures
    ]


def kept_state(report: Path) -> TaskDoc:
    """The task.md a kept report was written from (StateError naming the problem when it is broken)."""
    path = state_path(report)
    if not path.is_file():
        raise StateError(
            "not found: a kept report is checked against the task.md it was written from",
            str(path),
            hint="restore that file from a backup, or check the latest report with `deepresearch check DIR`",
        )
    return parse_task_md(path.read_text(encoding="utf-8"), path=str(path))


def check_kept(root: Path, report: Path) -> VerificationOutcome:
    """Verify a kept report against the state it was written from; nothing is written."""
    text = restore(report.read_text(encoding="utf-8"), report.stem)
    return verify_report(text, kept_state(report), root, kept_figures(root, report))
