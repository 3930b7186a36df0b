"""Is a fact's quote really in its source's archived text? Normalised, token-level, slightly fuzzy.

Both sides are reduced to word tokens after NFKC and case folding, with markdown link targets
dropped: so whitespace, line wrapping, curly vs straight quotes, dashes vs hyphens, ellipsis
characters, markdown emphasis and link syntax never matter. A quote must then appear as a
contiguous run of tokens. Quotes of at least `FUZZY_MIN_CHARS` characters may differ slightly
(a typo, a dropped short word; never a number or a negation): candidate places are found from
rare anchor tokens, and only those windows are compared with difflib, so checking thousands of
quotes stays fast. An ellipsis inside a quote ("A ... B") marks an elision: each part must
appear, in order.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from pathlib import Path

from deepresearch.core.workspace import Workspace
from deepresearch.sources.positions import strip_markers
from deepresearch.sources.record import SourceRecord
from deepresearch.state.model import Verified

FUZZY_MIN_CHARS = 40
FUZZY_MIN_RATIO = 0.93  # character similarity of the best window: ~7% edits on a long quote
_NEGATIONS = frozenset(("not", "no", "never", "none", "nor", "neither", "without", "cannot", "nothing", "t"))
_MAX_ANCHORS = 4
PASSAGE_CHARS = 400  # the archived text around a quote that may back its statement's numbers
_MAX_CANDIDATES = 8

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")  # CJK one char at a time: no spaces to split on
_LINK_TARGET = re.compile(r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")  # [text](url "title") → [text]
_ELISION = re.compile(r"\s*(?:\[\s*(?:\.\s*){3}\]|\[…\]|\.{3,}|…)\s*")


def _readable(text: str) -> str:
    """The text as quotes are matched in it: NFKC, link targets and position markers dropped."""
    return _LINK_TARGET.sub("]", unicodedata.normalize("NFKC", strip_markers(text)))


def tokens(text: str) -> list[str]:
    """The word tokens of `text`, normalised (NFKC, case-folded, markdown link targets and position
    markers dropped)."""
    return _TOKEN.findall(_readable(text).casefold())


class _Prepared:
    """A document's tokens, joined once, with positions by token for anchoring."""

    def __init__(self, text: str) -> None:
        self.text = _readable(text)
        self.tokens = _TOKEN.findall(self.text.casefold())
        spans = [m.span() for m in _TOKEN.finditer(self.text)]
        # Case folding may split a token (rarely); then no passage can be cut from the text.
        self.spans = spans if len(spans) == len(self.tokens) else []
        self.joined = " " + " ".join(self.tokens) + " "
        self.counts = Counter(self.tokens)
        self.positions: dict[str, list[int]] = {}
        for i, token in enumerate(self.tokens):
            self.positions.setdefault(token, []).append(i)


@lru_cache(maxsize=32)
def _prepare(text: str) -> _Prepared:
    # Cached: the orchestrator checks many facts against the same few archives.
    return _Prepared(text)


def _exact_at(doc: _Prepared, quote: list[str], start: int) -> tuple[int, int] | None:
    """(first, after-last) token index of the first exact occurrence of `quote` at or after `start`."""
    needle = " " + " ".join(quote) + " "
    offset = len(" " + " ".join(doc.tokens[:start]) + " ") - 1 if start else 0
    found = doc.joined.find(needle, offset)
    if found < 0:
        return None
    first = doc.joined.count(" ", 0, found)
    return first, first + len(quote)


def _candidates(doc: _Prepared, quote: list[str], start: int) -> list[int]:
    """Likely start positions of `quote` in the document, voted by its rarest tokens."""
    ranked = sorted({t for t in quote if len(t) > 2 and t in doc.counts}, key=lambda t: doc.counts[t])
    votes: Counter[int] = Counter()
    for token in ranked[:_MAX_ANCHORS]:
        offsets = [i for i, t in enumerate(quote) if t == token]
        for position in doc.positions[token][:200]:
            for offset in offsets:
                if position - offset >= start:
                    votes[max(position - offset, 0)] += 1
    return [pos for pos, _ in votes.most_common(_MAX_CANDIDATES)]


def _critical(words: list[str]) -> Counter[str]:
    """Numbers and negations: a near-match may differ by a typo, never by one of these."""
    return Counter(w for w in words if w in _NEGATIONS or any(ch.isdigit() for ch in w))


def _fuzzy_at(doc: _Prepared, quote: list[str], start: int) -> tuple[int, int] | None:
    """(first, after-last) token index of the best near-match of `quote` at or after `start`."""
    target = " ".join(quote)
    critical = _critical(quote)
    best_ratio, best = 0.0, None
    for pos in _candidates(doc, quote, start):
        for shift in (-1, 0, 1):
            for length in range(max(len(quote) - 2, 1), len(quote) + 3):
                begin = max(pos + shift, start)
                words = doc.tokens[begin : begin + length]
                if _critical(words) != critical:
                    continue
                window = " ".join(words)
                matcher = SequenceMatcher(None, target, window, autojunk=False)
                if matcher.real_quick_ratio() < FUZZY_MIN_RATIO or matcher.quick_ratio() < FUZZY_MIN_RATIO:
                    continue
                ratio = matcher.ratio()
                if ratio > best_ratio:
                    best_ratio, best = ratio, (begin, begin + length)
    return best if best_ratio >= FUZZY_MIN_RATIO else None


def quote_parts(quote: str) -> list[str]:
    """The parts of a quote between elisions ('...', '…', '[...]'), stripped of wrapping quotes."""
    parts = [p.strip().strip("\"'“”‘’«»„ ") for p in _ELISION.split(quote)]
    return [p for p in parts if tokens(p)]


def _locate(quote: str, doc: _Prepared) -> tuple[int, int] | None:
    """The token range where `quote` (each elided part in order) is found in `doc`, or None."""
    parts = quote_parts(quote)
    if not parts:
        return None
    position, first = 0, None
    for part in parts:
        part_tokens = tokens(part)
        span = _exact_at(doc, part_tokens, position)
        if span is None and len(part) >= FUZZY_MIN_CHARS:
            span = _fuzzy_at(doc, part_tokens, position)
        if span is None:
            return None
        first = span[0] if first is None else first
        position = span[1]
    return (first or 0), position


def locate_quote(quote: str, text: str) -> int | None:
    """The index (in `tokens(text)`) of the first word of `quote` in `text`, or None when not found.

    Found means as `quote_in_text` says: normalised, each elided part in order, long parts fuzzily."""
    where = _locate(quote, _prepare(text))
    return None if where is None else where[0]


def quote_in_text(quote: str, text: str) -> bool:
    """True when `quote` (normalised, each elided part in order, long parts fuzzily) is in `text`."""
    return _locate(quote, _prepare(text)) is not None


def quote_passage(quote: str, text: str, chars: int = PASSAGE_CHARS) -> str | None:
    """The text around where `quote` is found (`chars` before and after, NFKC), or None."""
    doc = _prepare(text)
    where = _locate(quote, doc)
    if where is None or not doc.spans:
        return None
    start, end = doc.spans[where[0]][0], doc.spans[max(where[1] - 1, where[0])][1]
    return doc.text[max(start - chars, 0) : end + chars]


@dataclass(frozen=True)
class QuoteCheck:
    """The outcome of checking one quote: yes, no, or unchecked (no archived text to check)."""

    verified: Verified
    detail: str


def _archived_text(workspace: Workspace, source: SourceRecord | str | Path) -> tuple[str | None, str]:
    """(the archived text, or None) and what to say about it when there is none."""
    if isinstance(source, SourceRecord):
        if not source.ok or not source.archive:
            return None, f"{source.url}: not archived ({source.error or 'no text'})"
        relative = source.archive
    else:
        relative = str(source)
    path = Path(relative) if Path(relative).is_absolute() else workspace.root / relative
    try:
        return path.read_text(encoding="utf-8"), relative
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{relative}: cannot read the archived text ({exc})"


def verify_fact_quote(workspace: Workspace, source: SourceRecord | str | Path, quote: str) -> QuoteCheck:
    """Check `quote` against a source's archived text (a registry record, or an archive path)."""
    text, relative = _archived_text(workspace, source)
    if text is None:
        return QuoteCheck(Verified.UNCHECKED, relative)
    if not quote.strip():
        return QuoteCheck(Verified.NO, "the fact has no quote")
    if quote_in_text(quote, text):
        return QuoteCheck(Verified.YES, f"found in {relative}")
    return QuoteCheck(Verified.NO, f"not found in {relative}")


_ARCHIVE_HEADER = re.compile(r"\A# [^\n]*\n(?:[^\n]*\n){0,12}?---\n")


def archived_passage(workspace: Workspace, source: SourceRecord | str | Path, quote: str) -> str | None:
    """The source's archived text around `quote` (see `quote_passage`), without the header the
    archiver writes (title, URLs, fetch time: not the source's words), or None."""
    text, _ = _archived_text(workspace, source)
    if text is None or not quote.strip():
        return None
    return quote_passage(quote, _ARCHIVE_HEADER.sub("", text, count=1))
