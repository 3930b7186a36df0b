"""The units and scale words a number may carry, and reading them around a number in a text.

A quantity's value is kept in its dimension's base unit, so `4,800 MW` and `4.8 GW` are the same
4.8e9 W, and `€1.2bn` and `1.2 billion euros` the same 1.2e9 EUR. Dimensions: W (power), Wh
(energy), % (per cent and percentage points), EUR, USD, GBP, CNY, JPY, h (durations: `2 hours`,
`1.8 h`, `30-month`, `15-year`; a month is 730 h, a year 8,760 h); "" for a bare number (counts,
units this table does not know). Scale words multiply, in English, Chinese, Japanese, German,
French, Spanish and Italian: thousand, million, bn, 万/萬, 亿/億, 兆 (10¹²), Tsd., Mio., Mrd.,
Milliarden, Billionen (10¹²), millions, milliards, Md€, M€, mil, millones, mil millones, billones
(10¹²), mila, miliardi. `billion` is 10⁹, and 10¹² in a German or French text (`long_scale`); a
joining `de`/`d'` may stand between a scale and its unit (`2,3 milliards d'euros`), and 多/余
("more than") between digits and a Chinese scale (`300多万`). `¥` is read as yuan; yen are
written `円`, `yen` or `JPY`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
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
    "日元": Unit("JPY"), "yen": Unit("JPY"), "yenes": Unit("JPY"), "jpy": Unit("JPY"),
    **WORDS_DURATION,
}  # fmt: skip
# The same units in German, French, Spanish and Japanese.
WORDS |= {
    "prozent": Unit("%"), "prozentpunkte": Unit("%"), "prozentpunkten": Unit("%"), "prozentpunkt": Unit("%"),
    "pour cent": Unit("%"), "pourcent": Unit("%"), "points de pourcentage": Unit("%"),
    "point de pourcentage": Unit("%"), "por ciento": Unit("%"), "puntos porcentuales": Unit("%"),
    "punto porcentual": Unit("%"), "パーセント": Unit("%"),
    "us-dollar": Unit("USD"), "dólares": Unit("USD"), "dólar": Unit("USD"), "ドル": Unit("USD"),
    "米ドル": Unit("USD"), "ユーロ": Unit("EUR"), "円": Unit("JPY"), "人民元": Unit("CNY"),
}  # fmt: skip
for _word, _exp in {**_WORDS, "": 0}.items():
    _size = Decimal(10) ** _exp
    for _hours in ("wattstunden", "wattstunde", "wattheures", "wattheure", "vatios hora", "vatios-hora"):
        WORDS[f"{_word}{_hours}"] = Unit("Wh", _size)
    WORDS |= {f"{_word}vatios": Unit("W", _size), f"{_word}vatio": Unit("W", _size)}
for _kana, _exp in {"": 0, "キロ": 3, "メガ": 6, "ギガ": 9, "テラ": 12}.items():
    WORDS |= {
        f"{_kana}ワット": Unit("W", Decimal(10) ** _exp),
        f"{_kana}ワット時": Unit("Wh", Decimal(10) ** _exp),
    }
# Written before the number: €4.8bn, US$ 3 million, EUR 12, ¥300.
PREFIXES: dict[str, Unit] = {
    "US$": Unit("USD"), "$": Unit("USD"), "€": Unit("EUR"), "£": Unit("GBP"), "¥": Unit("CNY"),
    "USD": Unit("USD"), "EUR": Unit("EUR"), "GBP": Unit("GBP"), "CNY": Unit("CNY"), "RMB": Unit("CNY"),
    "JPY": Unit("JPY"),
}  # fmt: skip
SCALES: dict[str, int] = {
    "thousand": 3, "million": 6, "mn": 6, "mln": 6, "billion": 9, "bn": 9, "trillion": 12, "tn": 12,
    "千": 3, "万": 4, "十万": 5, "百万": 6, "千万": 7, "亿": 8, "十亿": 9, "百亿": 10, "千亿": 11, "万亿": 12,
    "萬": 4, "億": 8, "十億": 9, "百億": 10, "千億": 11, "萬億": 12, "兆": 12,
    # German, French, Spanish, Italian
    "tsd.": 3, "tausend": 3, "mio.": 6, "mio": 6, "millionen": 6, "mrd.": 9, "mrd": 9, "milliarde": 9,
    "milliarden": 9, "billionen": 12, "bio.": 12, "mille": 3, "millions": 6, "milliard": 9, "milliards": 9,
    "md": 9, "mds": 9, "billions": 12, "mil": 3, "millón": 6, "millones": 6, "mil millones": 9,
    "millardo": 9, "millardos": 9, "billón": 12, "billones": 12, "mila": 3, "milione": 6, "milioni": 6,
    "miliardo": 9, "miliardi": 9,
}  # fmt: skip
LONG_SCALE = {"billion": 12}  # in German and French: `1 Billion Euro` is 10¹² euros
LONG_SCALE_LANGUAGES = ("de", "fr")
_BIG_CJK = frozenset(w for w, e in SCALES.items() if e >= 4 and re.search("[万萬亿億兆]", w))
# Written right after the digits, no space: 5k, 3m, 2b (a lone "m" after a space is metres).
TIGHT_SCALES: dict[str, int] = {"k": 3, "m": 6, "b": 9}

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# A word that ends in a letter ends at a non-letter or a CJK character (480万kWだった). Case-sensitive
# (`(?-i:`): the class has no case, and under IGNORECASE Python compiles its CJK ranges character by
# character.
_WORD_END = r"(?-i:(?![^\W\d_\u3040-\u30ff\u3400-\u9fff]))"


def _needs_end(word: str) -> bool:
    """Whether a word needs `_WORD_END` after it: CJK words and symbols need no boundary."""
    return not _CJK.search(word) and word[-1].isalpha()


class _Words:
    """One table's words, matched longest first (ties in table order), each ending as `_needs_end`
    says. Two alternations, not one: the words that end in a letter share one end-of-word lookahead
    (one alternation with a lookahead per word took Python's compiler 0.1 s, in every command that
    reads a number), the others need none; of their two matches the longer, as one would give."""

    def __init__(self, words: Iterable[str], flags: re.RegexFlag) -> None:
        order = sorted(words, key=len, reverse=True)
        self._fold = bool(flags & re.IGNORECASE)
        self._rank: dict[str, int] = {}
        for index, word in enumerate(order):
            self._rank.setdefault(self._key(word), index)
        bounded, free = [w for w in order if _needs_end(w)], [w for w in order if not _needs_end(w)]
        self._patterns = [
            re.compile(pattern, flags)
            for pattern, used in (
                (f"(?:{_alternation(bounded)}){_WORD_END}", bounded),
                (_alternation(free), free),
            )
            if used
        ]

    def _key(self, text: str) -> str:
        return text.lower() if self._fold else text

    def match(self, text: str, pos: int) -> re.Match[str] | None:
        """The table's word at `pos`, as one alternation of them all would match it."""
        found = [m for pattern in self._patterns if (m := pattern.match(text, pos)) is not None]
        if len(found) < 2:
            return found[0] if found else None
        last = len(self._rank)
        return min(found, key=lambda m: (-len(m.group()), self._rank.get(self._key(m.group()), last)))


_TABLES: dict[str, tuple[Iterable[str], re.RegexFlag]] = {
    "symbols": (SYMBOLS, re.NOFLAG),
    "words": (WORDS, re.IGNORECASE),
    "scales": (SCALES, re.IGNORECASE),
}


@functools.cache
def _words_re(table: str) -> _Words:
    """One table's words (`_TABLES`), built on first use: a command that reads no number does not
    pay for it."""
    words, flags = _TABLES[table]
    return _Words(words, flags)


_PREFIX_RE = re.compile(rf"(?:{_alternation(list(PREFIXES))})\s?$")


_TIGHT_RE = re.compile(r"(?:k|m|b)(?![^\W\d_])", re.IGNORECASE)
_CURRENCY_SCALE_RE = re.compile(r"(?:k|M)(?=\s?[€$£¥])")  # 12,5 M€, 300 k€
_MORE_THAN = "多余餘"  # 300多万: more than three million
_JOINING_RE = re.compile(r"\s?(?:de|d['’]|di)\s?", re.IGNORECASE)  # millones de dólares, milliards d'euros


@dataclass(frozen=True)
class Tail:
    """What follows a number: a scale word, a unit, and where they end."""

    scale: int = 0
    unit: Unit | None = None
    end: int = 0
    cjk: bool = False  # the scale is a Chinese or Japanese one of 万 or more (万, 亿, 億, 兆 ...)


def _unit_at(text: str, pos: int) -> tuple[Unit, int] | None:
    for name, table, fold in (("symbols", SYMBOLS, False), ("words", WORDS, True)):
        match = _words_re(name).match(text, pos)
        if match and not _YEAR_END.match(text, match.start()):
            key = match.group().lower() if fold else match.group()
            return table[key], match.end()
    return None


_YEAR_END = re.compile(r"year[- ]end|year[- ]on[- ]year", re.IGNORECASE)  # `2024 year-end` is a year


def _skip_space(text: str, pos: int) -> int:
    """Past one space, or the hyphen of `15-year` or `30-month`."""
    return pos + 1 if pos < len(text) and text[pos] in " \u00a0\u202f\u2009-" else pos


def _scale_at(text: str, pos: int, long_scale: bool) -> tuple[int, int, bool] | None:
    """(power of ten, end, whether it is a big CJK scale) of a scale word at `pos`."""
    if pos < len(text) and text[pos] in _MORE_THAN:
        found = _scale_at(text, pos + 1, long_scale)
        return found if found is not None and found[2] else None
    currency = _CURRENCY_SCALE_RE.match(text, pos)
    if currency:
        return TIGHT_SCALES[currency.group().lower()], currency.end(), False
    match = _words_re("scales").match(text, pos)
    if match is None:
        return None
    word = match.group().lower()
    power = LONG_SCALE[word] if long_scale and word in LONG_SCALE else SCALES[word]
    return power, match.end(), word in _BIG_CJK


def read_tail(text: str, pos: int, long_scale: bool = False) -> Tail:
    """The scale and unit written right after a number that ends at `pos` (each optional);
    `long_scale`: the text is German or French, where a billion is 10¹²."""
    scale, end, cjk = 0, pos, False
    tight = _TIGHT_RE.match(text, pos)
    if tight:
        scale, end = TIGHT_SCALES[tight.group().lower()], tight.end()
    else:
        spaced = _skip_space(text, pos)
        unit = _unit_at(text, spaced)  # a unit first: 千瓦 is kW, not 千 + 瓦
        if unit is not None:
            return Tail(0, unit[0], unit[1])
        found = _scale_at(text, spaced, long_scale)
        if found is not None:
            scale, end, cjk = found
    unit = _unit_at(text, _skip_space(text, end))
    joining = _JOINING_RE.match(text, end) if scale and unit is None else None
    if joining is not None:  # 2,3 milliards d'euros
        unit = _unit_at(text, joining.end())
    if unit is not None:
        return Tail(scale, unit[0], unit[1], cjk)
    return Tail(scale, None, end, cjk)


def read_prefix(text: str, start: int) -> tuple[Unit, int] | None:
    """The currency written right before a number that starts at `start` (€, US$, EUR ...), and
    where it starts."""
    window = max(0, start - 5)
    match = _PREFIX_RE.search(text[window:start])
    return (PREFIXES[match.group().strip()], window + match.start()) if match else None


@functools.cache
def _named_re() -> re.Pattern[str]:
    """Any unit, written with or without a number; compiled on first use, as `_words_re`."""
    return re.compile(
        rf"(?<![^\W\d_])(?:{_alternation([*SYMBOLS, *WORDS, *PREFIXES])})(?![^\W\d_])", re.IGNORECASE
    )


def named_dimensions(text: str) -> frozenset[str]:
    """The dimensions whose units `text` names, with or without a number (`EUR/MW/yr`, `(GW)`):
    what a bare number in it, or under it as a header, may be measured in."""
    table = {k.lower(): v for k, v in (*SYMBOLS.items(), *WORDS.items(), *PREFIXES.items())}
    return frozenset(
        table[m.group().lower()].dimension for m in _named_re().finditer(text) if m.group().lower() in table
    )
