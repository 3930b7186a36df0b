"""Where a verified quote sits in its archived text: the page, timestamp or chapter it starts in.

    position = quote_position(fact.quote, archived_text)   # Position(PAGE, 3) → link `…#page=3`

The quote is found exactly as `quotes.quote_in_text` finds it; its first word is then mapped to the
last position marker (sources/positions.py) before it.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache

from deepresearch.sources.positions import Position, segments
from deepresearch.sources.quotes import locate_quote, tokens


@lru_cache(maxsize=32)
def _starts(text: str) -> tuple[tuple[int, ...], tuple[Position | None, ...]]:
    """The first token index of each marked piece of `text`, and the position it starts at."""
    firsts: list[int] = []
    places: list[Position | None] = []
    count = 0
    for position, piece in segments(text):
        firsts.append(count)
        places.append(position)
        count += len(tokens(piece))
    return tuple(firsts), tuple(places)


def quote_position(quote: str, text: str) -> Position | None:
    """The position where `quote` starts in `text`; None when not found or the text has no markers."""
    first = locate_quote(quote, text)
    if first is None:
        return None
    firsts, places = _starts(text)
    return places[bisect_right(firsts, first) - 1]
