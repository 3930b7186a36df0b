"""report.html (one self-contained, offline file) and report.pdf printed from it (`sources.browser`).

The markdown is rendered with the same parser the checks use (raw HTML off, so everything from the
report is escaped). The token stream is then adjusted: headings get ids and feed the table of
contents, each `[S01]` in the body becomes a link to its reference entry `#ref-S01` (wrapped in its
sentence's support mark: marks.py), reference
entries get those ids, and archive links are marked so readers (and tests) can find them. Figures
(`assets/images/figure-N.png`) are shown as their SVG, embedded as a data URI.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path

from jinja2 import Environment, StrictUndefined
from markdown_it.token import Token
from markupsafe import Markup

from deepresearch.core.errors import UsageError
from deepresearch.evidence.support import SupportStore
from deepresearch.report.blocks import generated_ranges, heading_title, new_parser, strip_generated_sections
from deepresearch.report.citations import BRACKET_RE, bracket_ids
from deepresearch.report.marks import Mark, bracket_marks
from deepresearch.report.references import ENTRY_ID
from deepresearch.state.model import TaskDoc

_SLUG_DROP = re.compile(r"[^\w\- ]+")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_FIGURE_PNG = re.compile(r"(?:\./)?(assets/images/figure-\d+)\.png")


def _plain(inline: Token) -> str:
    return "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))


def _slug(text: str, used: set[str]) -> str:
    base = "-".join(_SLUG_DROP.sub("", text.lower()).split()) or "section"
    slug, n = base, 2
    while slug in used:
        slug, n = f"{base}-{n}", n + 1
    used.add(slug)
    return slug


def _in_generated(tok: Token, ranges: list[tuple[int, int]]) -> bool:
    return tok.map is not None and any(start <= tok.map[0] < end for start, end in ranges)


def _mark_references(tokens: list[Token], ranges: list[tuple[int, int]]) -> set[str]:
    """Give reference entries their `ref-Sxx` ids and class archive/external links; return the IDs."""
    entries: set[str] = set()
    for index, tok in enumerate(tokens):
        if not _in_generated(tok, ranges):
            continue
        if tok.type == "list_item_open" and index + 2 < len(tokens):
            match = ENTRY_ID.match(tokens[index + 2].content)
            if match:
                tok.attrSet("id", f"ref-{match.group(1)}")
                entries.add(match.group(1))
        children = (tok.children or []) if tok.type == "inline" else []
        for child in children:
            href = str(child.attrGet("href") or "")
            if child.type == "link_open" and href:
                child.attrSet("class", "external" if _SCHEME.match(href) else "archive")
    return entries


def _html(content: str) -> Token:
    return Token("html_inline", "", 0, content=content)


def _cite_tokens(text: str, targets: dict[str, str], marks: Iterator[Mark | None]) -> list[Token]:
    """`text` as tokens with each citation of a known source turned into a link, and each citation
    wrapped in its claim's support mark."""
    out: list[Token] = []
    pos = 0
    for match in BRACKET_RE.finditer(text):
        ids = bracket_ids(match.group(1))
        mark = next(marks, None)
        if not mark and not any(i in targets for i in ids):
            continue
        out.append(Token("text", "", 0, content=text[pos : match.start()]))
        out += [_html(mark.open_html())] if mark else []
        out.append(Token("text", "", 0, content="["))
        for n, source_id in enumerate(ids):
            if n:
                out.append(Token("text", "", 0, content=", "))
            if source_id not in targets:
                out.append(Token("text", "", 0, content=source_id))
                continue
            attrs: dict[str, str | int | float] = {"href": f"#ref-{source_id}", "class": "cite"}
            attrs["title"] = targets[source_id]
            out += [
                Token("link_open", "a", 1, attrs=attrs),
                Token("text", "", 0, content=source_id),
                Token("link_close", "a", -1),
            ]
        out.append(Token("text", "", 0, content="]"))
        out += [_html(mark.close_html())] if mark else []
        pos = match.end()
    out.append(Token("text", "", 0, content=text[pos:]))
    return [tok for tok in out if tok.type != "text" or tok.content]


def _link_citations(inline: Token, targets: dict[str, str], marks: Iterator[Mark | None]) -> None:
    children: list[Token] = []
    depth = 0  # inside a link already: no nested links, no marks
    for child in inline.children or []:
        depth += child.type == "link_open"
        depth -= child.type == "link_close"
        if child.type == "text" and depth == 0:
            children.extend(_cite_tokens(child.content, targets, marks))
        else:
            if child.type == "text":
                for _ in BRACKET_RE.finditer(child.content):
                    next(marks, None)
            children.append(child)
    inline.children = children


def _units(tokens: list[Token], ranges: list[tuple[int, int]]) -> list[list[Token]]:
    """The body's inline tokens grouped as the checks see them: a table row is one unit."""
    units: list[list[Token]] = []
    row: list[Token] | None = None
    for tok in tokens:
        if tok.type == "tr_open":
            row = []
        elif tok.type == "tr_close" and row is not None:
            units += [row] if row else []  # rows of the generated sections have none
            row = None
        elif tok.type == "inline" and not _in_generated(tok, ranges):
            if row is not None:
                row.append(tok)
            else:
                units.append([tok])
    return units


def _mark_citations(
    tokens: list[Token], ranges: list[tuple[int, int]], targets: dict[str, str], root: Path
) -> None:
    """Link every citation in the body and mark it with its claim's support state."""
    record = SupportStore(root).load()
    for unit in _units(tokens, ranges):
        text = (
            " | ".join(tok.content.replace("\n", " ") for tok in unit) if len(unit) > 1 else unit[0].content
        )
        marks: list[Mark | None] = list(bracket_marks(text, record))
        shown = sum(
            len(BRACKET_RE.findall(c.content)) for t in unit for c in t.children or [] if c.type == "text"
        )
        if shown != len(marks):  # escapes or markup moved a bracket: link without marks
            marks = [None] * shown
        stream = iter(marks)
        for tok in unit:
            _link_citations(tok, targets, stream)


def _embed_figures(tokens: list[Token], workspace_root: Path) -> None:
    """Show each figure as its SVG, embedded so the page stays one offline file (PNG if no SVG)."""
    for tok in tokens:
        for child in (tok.children or []) if tok.type == "inline" else []:
            match = _FIGURE_PNG.fullmatch(str(child.attrGet("src") or "")) if child.type == "image" else None
            if match is None:
                continue
            svg = workspace_root / f"{match.group(1)}.svg"
            if svg.is_file():
                encoded = base64.b64encode(svg.read_bytes()).decode("ascii")
                child.attrSet("src", f"data:image/svg+xml;base64,{encoded}")
            child.attrSet("class", "figure")


def _headings(tokens: list[Token]) -> list[tuple[int, str, str]]:
    """Give every heading an id; return (level, id, text) for each."""
    used: set[str] = set()
    found: list[tuple[int, str, str]] = []
    for index, tok in enumerate(tokens):
        if tok.type == "heading_open":
            text = _plain(tokens[index + 1])
            slug = _slug(text, used)
            tok.attrSet("id", slug)
            found.append((int(tok.tag[1]), slug, text))
    return found


def render_html(final_report_text: str, doc: TaskDoc, workspace_root: Path) -> str:
    """The finalized report as one self-contained HTML page (inline CSS, no scripts, no web fonts).

    `workspace_root` is where report.html is written: links to archives are relative to it.
    """
    md = new_parser()
    env: dict[str, object] = {}
    tokens = md.parse(final_report_text, env)
    ranges = generated_ranges(final_report_text)
    entries = _mark_references(tokens, ranges)
    targets = {s.id: s.title for s in doc.sources if s.id in entries}
    _mark_citations(tokens, ranges, targets, workspace_root)
    _embed_figures(tokens, workspace_root)
    headings = _headings(tokens)
    # A leading level-1 heading is the page title; the table of contents goes right after it.
    split = 3 if tokens and tokens[0].type == "heading_open" and tokens[0].tag == "h1" else 0
    head = md.renderer.render(tokens[:split], md.options, env)
    rest = md.renderer.render(tokens[split:], md.options, env)
    title = headings[0][2] if split else (doc.front.question or "Research report")
    toc = [(level, slug, text) for level, slug, text in headings if level in (2, 3)]
    failed = next(
        (str(tok.attrGet("id")) for i, tok in enumerate(tokens) if _is_verification(tokens, i, ranges)), ""
    )
    template = Environment(autoescape=True, undefined=StrictUndefined).from_string(
        files("deepresearch.report").joinpath("report.html.j2").read_text(encoding="utf-8")
    )
    return template.render(
        title=title,
        question=doc.front.question,
        lang="zh" if _mostly_cjk(strip_generated_sections(final_report_text)) else "en",
        head=Markup(head),
        body=Markup(rest),
        toc=toc,
        sources=len(doc.sources),
        facts=len(doc.facts),
        verification_anchor=failed,
    )


def _is_verification(tokens: list[Token], index: int, ranges: list[tuple[int, int]]) -> bool:
    tok = tokens[index]
    return (
        tok.type == "heading_open"
        and _in_generated(tok, ranges)
        and heading_title(tokens[index + 1].content) == "verification"
    )


def _mostly_cjk(text: str) -> bool:
    cjk = sum("\u4e00" <= ch <= "\u9fff" for ch in text)
    return cjk > len(text) / 10


def render_pdf(html_path: Path, pdf_path: Path, chromium_path: str | Path | None = None) -> None:
    """Print report.html to PDF with headless Chromium (the same launch order as archiving)."""
    from deepresearch.sources.browser import BrowserUnavailable, print_pdf  # Playwright: only to print

    try:
        print_pdf(html_path, pdf_path, str(chromium_path) if chromium_path else None)
    except BrowserUnavailable as exc:
        raise UsageError(
            f"cannot print {pdf_path.name}: no Chromium could be launched ({exc})",
            hint="install one (`apt-get install chromium` or `playwright install chromium`), "
            "or leave out --pdf; report.html is written either way",
        ) from exc
