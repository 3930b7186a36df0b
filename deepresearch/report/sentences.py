"""Sentence splitting (Latin and CJK) and the rule for which blocks make claims.

Splitting: a sentence ends at 。！？； (always), or at . ! ? … followed by whitespace (or the end)
when the next word does not start in lower case and the word before a period is not an
abbreviation (e.g., U.S., Dr., Fig., et al.). Decimals (3.5), versions and domains never split
because no whitespace follows the period. Closing quotes, brackets, emphasis marks and citation
groups right after the terminator stay with the sentence they close.

Which blocks make claims (and so must carry citations):
- paragraphs, list items (each item its own unit), table body rows (each row one unit) and
  paragraphs inside blockquotes (a quotation in a report is evidence and must be cited);
- not headings, table header rows, link definitions, paragraphs that are only images, figure and
  table captions ("Figure 2: ...", "Fig. 2", "Table 1", "图 1", "表 1", "Source: ..."), lead-ins
  (a single sentence ending with a colon that introduces a list or table), or text with no letters
  or digits once citations are removed;
- the References and Verification sections never reach this module (see blocks.py).
"""

from __future__ import annotations

import re

from deepresearch.report.blocks import Block
from deepresearch.report.citations import BRACKET_RE, strip_citations

_CJK_END = "。！？；"
_LATIN_END = ".!?…"
_CLOSERS = "\"'”’)]}*_»」』）】〕"
_CITATIONS_AHEAD = re.compile(rf"(?:\s*{BRACKET_RE.pattern})+")

# Lower-case words that end with a period without ending a sentence. "etc." is deliberately absent:
# it usually does end a sentence when a capital follows, and the lower-case rule covers the rest.
ABBREVIATIONS = frozenset(
    {
        "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "al", "fig", "figs", "no",
        "nos", "vol", "vols", "p", "pp", "ch", "sec", "ed", "eds", "approx", "est", "inc", "ltd",
        "co", "corp", "dept", "univ", "gov", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
        "sept", "oct", "nov", "dec", "cf", "ca", "resp", "eq", "ref", "refs", "op", "min", "max",
    }
)  # fmt: skip
_INITIALISM = re.compile(r"(?:[A-Za-z]\.)*[A-Za-z]")  # U.S / e.g / i.e / J (as in "J. Smith")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_CAPTION = re.compile(
    r"^[*_\s]*(?:(?:figure|fig\.|table|chart|exhibit|source|sources)\s*\d*[.:：\s]|[图表]\s*\d|来源[:：])",
    re.IGNORECASE,
)
_CONTENT = re.compile(r"[^\W_]")  # a letter or digit in any script


def _flatten(text: str) -> tuple[str, list[int]]:
    """`text` with each whitespace run made one space (ends stripped), and where each character
    of the result comes from in `text`."""
    flat: list[str] = []
    where: list[int] = []
    for match in re.finditer(r"\S+", text):
        if flat:
            flat.append(" ")
            where.append(match.start() - 1)
        flat.append(match.group())
        where.extend(range(match.start(), match.end()))
    return "".join(flat), where


def _flat_spans(flat: str) -> list[tuple[int, int]]:
    """Sentence spans in flattened text (whitespace around each included)."""
    spans: list[tuple[int, int]] = []
    start = i = 0
    while i < len(flat):
        if flat[i] not in _CJK_END and flat[i] not in _LATIN_END:
            i += 1
            continue
        end = _sentence_end(flat, i)
        if _is_boundary(flat, i, end):
            spans.append((start, end))
            start = end
        i = end
    spans.append((start, len(flat)))
    return [(a, b) for a, b in spans if _CONTENT.search(strip_citations(flat[a:b]))]


def split_sentences(text: str) -> list[str]:
    """The sentences of a paragraph, list item or table row, stripped; citation-only pieces dropped."""
    flat, _ = _flatten(text)
    return [flat[a:b].strip() for a, b in _flat_spans(flat)]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of `split_sentences(text)` is in `text` (start, end offsets, stripped)."""
    flat, where = _flatten(text)
    spans = []
    for a, b in _flat_spans(flat):
        piece = flat[a:b]
        a += len(piece) - len(piece.lstrip())
        b -= len(piece) - len(piece.rstrip())
        spans.append((where[a], where[b - 1] + 1))
    return spans


def _sentence_end(text: str, i: int) -> int:
    """Index just past the terminator at `i`, its repeats, closing marks and trailing citations."""
    j = i + 1
    while j < len(text) and text[j] in _CJK_END + _LATIN_END:
        j += 1
    while j < len(text) and text[j] in _CLOSERS:
        j += 1
    ahead = _CITATIONS_AHEAD.match(text, j)
    return ahead.end() if ahead else j


def _is_boundary(text: str, i: int, end: int) -> bool:
    if text[i] in _CJK_END:
        return True
    if end < len(text) and not (text[end].isspace() or _is_cjk(text[end])):
        return False  # 3.5, example.com, v1.2
    following = text[end:].lstrip()
    if following and following[0].islower():
        return False
    if text[i] == ".":
        word = re.split(r"[\s(\[\"'“‘]", text[:i])[-1]
        if word.lower() in ABBREVIATIONS or _INITIALISM.fullmatch(word):
            return False
    return True


def _is_cjk(ch: str) -> bool:
    return "\u3000" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uff00" <= ch <= "\uffef"


def count_sentences(text: str) -> int:
    """How many sentences `text` holds (at least 1 when it has any content)."""
    return len(split_sentences(text))


def makes_claims(block: Block) -> bool:
    """Whether the block states something that must be cited (rules in the module docstring)."""
    if block.kind not in ("paragraph", "list_item", "table_row"):
        return False
    prose = strip_citations(_IMAGE.sub("", block.text)).strip()
    if not _CONTENT.search(prose) or _CAPTION.match(prose):
        return False
    sentences = split_sentences(prose)
    is_lead_in = len(sentences) == 1 and sentences[0].rstrip("*_ ").endswith((":", "："))
    return not is_lead_in


def citations_needed(sentences: int) -> int:
    """Citation groups a claim-making block needs: one per two sentences, rounded up."""
    return -(-sentences // 2)
