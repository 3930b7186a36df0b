"""Figures in the report: the Markdown block, placement after the first reference, and checks.

A reference is `Figure N`, `Fig. N`, `Figures N and M` (any case) or `图N` / `图 N`. A figure is
placed after the block (paragraph, list or table) that first refers to it, outside code fences and
figure blocks; a figure never referred to goes at the end of the body, before a References section.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from deepresearch.figures.fonts import has_cjk
from deepresearch.figures.records import RenderedFigure

# "Figure 1", "Fig. 2", and lists only after a plural: "Figures 1 and 2" (not "Figure 1, 2023").
_REF = re.compile(
    r"\b(?:figure|fig\.)[ \t]*(\d+)(?!\d)"
    r"|\b(?:figures|figs\.)[ \t]*(\d+(?:[ \t]*(?:,|and|&|or)[ \t]*\d{1,2}(?!\d))*)",
    re.IGNORECASE,
)
_REF_ZH = re.compile(r"图[ \t]*(\d+(?:[ \t]*[、,，和与及或][ \t]*\d{1,2}(?!\d))*)(?!\d)")
_IMAGE = re.compile(r"!\[[^\]]*\]\((?:\./)?assets/images/figure-(\d+)\.(?:png|svg)\)")
_REFERENCES = re.compile(
    r"^#{1,6}\s+(references|sources|bibliography|参考文献|参考资料|来源)\s*$", re.IGNORECASE
)
_CITE = re.compile(r"\[(S\d+)\]")


def figure_markdown(figure: RenderedFigure) -> str:
    """The image, a blank line, and the caption: `*Figure N: title.* caption [S03][S07]`."""
    caption = figure.caption if figure.caption != figure.title else ""
    colon, stop = ("：", "。") if has_cjk(figure.title) else (": ", ".")
    title = figure.title.rstrip(".。 ")
    text = " ".join(
        part for part in (f"*{figure.label}{colon}{title}{stop}*", caption, figure.citations) if part
    )
    return f"![{figure.label}: {figure.title}]({figure.png})\n\n{text}"


def figure_references(text: str) -> list[int]:
    """Figure numbers referred to in `text`, in order of first mention (figure blocks excluded)."""
    found: dict[int, None] = {}
    for line in _prose_lines(text):
        matches = sorted([*_REF.finditer(line), *_REF_ZH.finditer(line)], key=lambda m: m.start())
        for match in matches:
            numbers = next(g for g in match.groups() if g is not None)
            found.update(dict.fromkeys(int(n) for n in re.findall(r"\d+", numbers)))
    return list(found)


def _prose_lines(text: str) -> list[str]:
    """Lines of prose: code fences, figure blocks and the References section blanked."""
    lines, fenced, references = [], False, False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        references = references or (not fenced and _REFERENCES.match(line.strip()) is not None)
        figure_line = _IMAGE.search(line) or re.match(r"\s*\*(Figure|图) ?\d+[:：]", line)
        lines.append("" if fenced or references or figure_line else line)
    return lines


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) line ranges of blocks separated by blank lines, code fences kept whole."""
    blocks, start, fenced = [], None, False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if line.strip() and start is None:
            start = i
        elif not line.strip() and start is not None and not fenced:
            blocks.append((start, i))
            start = None
    if start is not None:
        blocks.append((start, len(lines)))
    return blocks


def insert_figures(report_text: str, figures: Sequence[RenderedFigure]) -> str:
    """Place each figure after the block that first refers to it (at the end if never referred to)."""
    lines = report_text.splitlines()
    present = {int(m.group(1)) for m in _IMAGE.finditer(report_text)}
    prose = _prose_lines(report_text)
    blocks = [(end, set(figure_references("\n".join(prose[start:end])))) for start, end in _blocks(lines)]
    after: dict[int, list[RenderedFigure]] = {}
    unplaced = []
    for figure in (f for f in figures if f.number not in present):
        end = next((e for e, refs in blocks if figure.number in refs), None)
        if end is None:
            unplaced.append(figure)
        else:
            after.setdefault(end, []).append(figure)
    tail = next((i for i, line in enumerate(lines) if _REFERENCES.match(line.strip())), len(lines))
    after.setdefault(tail, []).extend(unplaced)
    out: list[str] = []
    for i in range(len(lines) + 1):
        for figure in after.get(i, []):
            out.extend(["", *figure_markdown(figure).splitlines(), ""])
        if i < len(lines):
            out.append(lines[i])
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n") + "\n"


def check_figures(
    report_text: str, figures: Sequence[RenderedFigure], workspace_root: Path | None = None
) -> list[str]:
    """Problems: a figure referred to that does not exist; a figure missing, or not citing its sources."""
    numbers = {f.number: f for f in figures}
    known = ", ".join(str(n) for n in sorted(numbers)) or "none"
    problems = [
        f"Figure {n} is referred to in the report but there is no Figure {n} (figures: {known})"
        for n in figure_references(report_text) if n not in numbers
    ]  # fmt: skip
    lines = report_text.splitlines()
    for figure in figures:
        at = next((i for i, line in enumerate(lines) if _image_number(line) == figure.number), None)
        if at is None:
            problems.append(f"{figure.label} ({figure.png}) is not in the report")
            continue
        caption = next((line for line in lines[at + 1 :] if line.strip()), "")
        cited = set(_CITE.findall(caption))
        missing = [s for s in figure.sources if s not in cited]
        if missing:
            problems.append(
                f"{figure.label}'s caption does not cite {', '.join(missing)} (its data comes from them)"
            )
        if workspace_root is not None and not (workspace_root / figure.png).is_file():
            problems.append(f"{figure.label}: image file {figure.png} is missing")
    return problems


def _image_number(line: str) -> int | None:
    match = _IMAGE.search(line)
    return int(match.group(1)) if match else None
