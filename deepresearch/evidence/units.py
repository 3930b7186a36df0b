"""The units and scale words a number may carry, and reading them around a number in a text.

A quantity's value is kept in its dimension's base unit, so `4,800 MW` and `4.8 GW` are the same
4.8e9 W, and `€1.2bn` and `1.2 billion euros` the same 1.2e9 EUR. Dimensions: W (power), Wh
(energy), % (per cent and percentage points), EUR, USD, GBP, CNY, h (durations: `2 hours`, `1.8 h`,
`30-month`, `15-year`; a month is 730 h, a year 8,760 h); "" for a bare number (counts, units this
table does not know). Scale words (thousand, million, bn, 万, 亿...) multiply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Unit:
    """A unit's dimension and its size in the dimension's base unit."""

    dimension: str
    factor: Decimal = Decimal(1)


def _power(prefix: str, exponent: int) -> dict[str, Unit]:
    return {
        f"{prefix}W": Unit("W", Decimal(10) ** exponent),
        f"{prefix}Wh": Unit("Wh", Decimal(10) ** exponent),
    }


_PREFIXES = {"": 0, "k": 3, "M": 6, "G": 9, "T": 12}
_WORDS = {"": 0, "kilo": 3, "mega": 6, "giga": 9, "tera": 12}

# Case-sensitive symbols (MW is not mW); words are matched case-insensitively.
SYMBOLS: dict[str, Unit] = {k: v for p, e in _PREFIXES.items() for k, v in _power(p, e).items()}
SYMBOLS |= {
    "%": Unit("%"),
    "€": Unit("EUR"),
    "$": Unit("USD"),
    "£": Unit("GBP"),
    "¥": Unit("CNY"),
    "h": Unit("h"),
}
_DURATIONS = {
    "minute": Decimal(1) / 60,
    "hour": Decimal(1),
    "day": Decimal(24),
    "week": Decimal(168),
    "month": Decimal(730),
    "year": Decimal(8760),
}
WORDS_DURATION = {
    **{w: Unit("h", size) for w, size in _DURATIONS.items()},
    **{f"{w}s": Unit("h", size) for w, size in _DURATIONS.items()},
    "hr": Unit("h"), "hrs": Unit("h"), "yr": Unit("h", Decimal(8760)), "yrs": Unit("h", Decimal(8760)),
    "min": Unit("h", Decimal(1) / 60), "mins": Unit("h", Decimal(1) / 60),
}  # fmt: skip
WORDS: dict[str, Unit] = {}
for _word, _exp in _WORDS.items():
    _size = Decimal(10) ** _exp
    WORDS |= {f"{_word}watts": Unit("W", _size), f"{_word}watt": Unit("W", _size)}
    for _hours in ("watt-hours", "watt hours", "watt-hour", "watt hour", "watthours", "watthour"):
        WORDS[f"{_word}{_hours}"] = Unit("Wh", _size)
WORDS |= {
    "percent": Unit("%"), "per cent": Unit("%"), "pct": Unit("%"), "percentage points": Unit("%"),
    "percentage point": Unit("%"), "pp": Unit("%"), "euros": Unit("EUR"), "euro": Unit("EUR"),
    "eur": Unit("EUR"), "us dollars": Unit("USD"), "dollars": Unit("USD"), "dollar": Unit("USD"),
    "usd": Unit("USD"), "pounds sterling": Unit("GBP"), "gbp": Unit("GBP"), "yuan": Unit("CNY"),
    "renminbi": Unit("CNY"), "rmb": Unit("CNY"), "cny": Unit("CNY"),
    "个百分点": Unit("%"), "百分点": Unit("%"), "瓦时": Unit("Wh"), "瓦": Unit("W"),
    "千瓦时": Unit("Wh", Decimal(10) ** 3), "度": Unit("Wh", Decimal(10) ** 3),
    "千瓦": Unit("W", Decimal(10) ** 3), "兆瓦时": Unit("Wh", Decimal(10) ** 6),
    "兆瓦": Unit("W", Decimal(10) ** 6), "吉瓦时": Unit("Wh", Decimal(10) ** 9),
    "吉瓦": Unit("W", Decimal(10) ** 9), "太瓦时": Unit("Wh", Decimal(10) ** 12),
    "元": Unit("CNY"), "人民币": Unit("CNY"), "美元": Unit("USD"), "欧元": Unit("EUR"), "英镑": Unit("GBP"),
    **WORDS_DURATION,
}  # fmt: skip
# Written before the number: €4.8bn, US$ 3 million, EUR 12, ¥300.
PREFIXES: dict[str, Unit] = {
    "US$": Unit("USD"), "$": Unit("USD"), "€": Unit("EUR"), "£": Unit("GBP"), "¥": Unit("CNY"),
    "USD": Unit("USD"), "EUR": Unit("EUR"), "GBP": Unit("GBP"), "CNY": Unit("CNY"), "RMB": Unit("CNY"),
}  # fmt: skip
SCALES: dict[str, int] = {
    "thousand": 3, "million": 6, "mn": 6, "mln": 6, "billion": 9, "bn": 9, "trillion": 12, "tn": 12,
    "千": 3, "万": 4, "十万": 5, "百万": 6, "千万": 7, "亿": 8, "万亿": 12,
}  # fmt: skip
# Written right after the digits, no space: 5k, 3m, 2b (a lone "m" after a space is metres).
TIGHT_SCALES: dict[str, int] = {"k": 3, "m": 6, "b": 9}

_CJK = re.compile(r"[\u3400-\u9fff]")


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def _word_end(word: str) -> str:
    """A word ends at a non-letter; CJK words and symbols need no boundary."""
    return "" if _CJK.search(word) or not word[-1].isalpha() else r"(?![^\W\d_])"


_SYMBOL_RE = re.compile(
    "|".join(rf"{re.escape(s)}{_word_end(s)}" for s in sorted(SYMBOLS, key=len, reverse=True))
)
_WORD_RE = re.compile(
    "|".join(rf"{re.escape(w)}{_word_end(w)}" for w in sorted(WORDS, key=len, reverse=True)), re.IGNORECASE
)
_SCALE_RE = re.compile(
    "|".join(rf"{re.escape(w)}{_word_end(w)}" for w in sorted(SCALES, key=len, reverse=True)), re.IGNORECASE
)
_TIGHT_RE = re.compile(r"(?:k|m|b)(?![^\W\d_])", re.IGNORECASE)
_PREFIX_RE = re.compile(rf"(?:{_alternation(list(PREFIXES))})\s?$")


@dataclass(frozen=True)
class Tail:
    """What follows a number: a scale word, a unit, and where they end."""

    scale: int = 0
    unit: Unit | None = None
    end: int = 0


def _unit_at(text: str, pos: int) -> tuple[Unit, int] | None:
    for regex, table, fold in ((_SYMBOL_RE, SYMBOLS, False), (_WORD_RE, WORDS, True)):
        match = regex.match(text, pos)
        if match and not _YEAR_END.match(text, match.start()):
            key = match.group().lower() if fold else match.group()
            return table[key], match.end()
    return None


_YEAR_END = re.compile(r"year[- ]end|year[- ]on[- ]year", re.IGNORECASE)  # `2024 year-end` is a year


def _skip_space(text: str, pos: int) -> int:
    """Past one space, or the hyphen of `15-year` or `30-month`."""
    return pos + 1 if pos < len(text) and text[pos] in " \u00a0\u202f\u2009-" else pos


def read_tail(text: str, pos: int) -> Tail:
    """The scale and unit written right after a number that ends at `pos` (each optional)."""
    scale, end = 0, pos
    tight = _TIGHT_RE.match(text, pos)
    if tight:
        scale, end = TIGHT_SCALES[tight.group().lower()], tight.end()
    else:
        spaced = _skip_space(text, pos)
        unit = _unit_at(text, spaced)  # a unit first: 千瓦 is kW, not 千 + 瓦
        if unit is not None:
            return Tail(0, unit[0], unit[1])
        match = _SCALE_RE.match(text, spaced)
        if match:
            scale, end = SCALES[match.group().lower()], match.end()
    unit = _unit_at(text, _skip_space(text, end))
    if unit is not None:
        return Tail(scale, unit[0], unit[1])
    return Tail(scale, None, end)


def read_prefix(text: str, start: int) -> tuple[Unit, int] | None:
    """The currency written right before a number that starts at `start` (€, US$, EUR ...), and
    where it starts."""
    window = max(0, start - 5)
    match = _PREFIX_RE.search(text[window:start])
    return (PREFIXES[match.group().strip()], window + match.start()) if match else None


_NAMED = re.compile(
    rf"(?<![^\W\d_])(?:{_alternation([*SYMBOLS, *WORDS, *PREFIXES])})(?![^\W\d_])", re.IGNORECASE
)


def named_dimensions(text: str) -> frozenset[str]:
    """The dimensions whose units `text` names, with or without a number (`EUR/MW/yr`, `(GW)`):
    what a bare number in it, or under it as a header, may be measured in."""
    table = {k.lower(): v for k, v in (*SYMBOLS.items(), *WORDS.items(), *PREFIXES.items())}
    return frozenset(
        table[m.group().lower()].dimension for m in _NAMED.finditer(text) if m.group().lower() in table
    )
