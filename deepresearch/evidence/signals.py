"""The words that say a number is derived, and how, or that it is a change rather than a level.

A report may state a difference, sum, ratio, growth rate or share of numbers its sources give, but
only where its words say so (evidence/derivation.py). The words of a number's clause (and a table
cell's column header) name the operations it may be:

- difference: `by`, `added`, `additions`, `net`, `gap`, `difference`, `more`/`less than`, `higher`,
  `lower`, `above`, `below`, `exceeds`, `remaining`, `needs`, `implies`, `compared with`, `versus`;
- sum: `total`, `combined`, `together`, `altogether`, `sum`, `overall`, `cumulative`, `in all`, `plus`
  (not for the number `plus` opens the clause of: an addend);
- ratio: `times`, `-fold`, `ratio`, `per`, `average`, `each`, `2.9x`, `oversubscribed`;
- growth (a per cent): `growth`, `grew`, `rose`, `fell`, `increase`, `decline`, `up`, `down`, `year-on-year`,
  `compared with`, a signed number (`+41%`), and any per cent (`%`);
- share (a per cent): `share`, `of`, `accounts for`, `proportion`, and any per cent;
- annual (a per-year rate or compound growth): `a year`, `per year`, `annual`, `on average`, `CAGR`;
- derived (`derived_marks`): `derived`, `computed`, `calculated`, `implies`, `i.e.` before the
  number in its clause (not `derived from` it: those are the inputs), at the start of the next
  clause (`52% a year (derived from ...)`), opening the sentence (`Derived from the series, ...`) or
  closing it (`... (derived).`, `; this is a derived projection`); see derivation.py.

A number is a change when it is signed (`+5`, `−15%`) or when a change word stands right before it
(`rose by`, `fell`, `an increase of`) or right after it (`19% lower`, `a 38% decline`, `EUR 180m net
growth`); its direction is that of the sign or the word.
"""

from __future__ import annotations

import re

DIFFERENCE, SUM, RATIO, GROWTH, SHARE, ANNUAL, DERIVED = (
    "difference", "sum", "ratio", "growth", "share", "annual", "derived",
)  # fmt: skip

_SIGNALS: dict[str, re.Pattern[str]] = {
    DIFFERENCE: re.compile(
        r"\b(?:by|add(?:ed|s|ing|itions?)|net|gap|difference|(?<!and\s)(?<!or\s)more|less|fewer|higher|lower|above|below|"
        r"exceed\w*|remain\w*|short\w*|need(?:s|ed)?|impl(?:y|ies|ied)|compared|versus|vs|minus|change[sd]?|"
        r"increase[sd]?|decrease[sd]?|rose|fell|grew|declined|dropped)\b|增加|减少|上升|下降|新增|净|差|多出|少于|高于|低于"
    ),
    SUM: re.compile(
        r"\b(?:total\w*|combined|together|altogether|sum|overall|cumulative\w*|in all|plus|aggregate)\b|合计|总计|共计|总共|累计"
    ),
    RATIO: re.compile(
        r"\b(?:times|\w*fold|ratio|per|average\w*|each|oversubscribed|multiple|double[sd]?|half|quarter)\b"
        r"|\d(?:\.\d+)?\s?x\b|倍|平均|每"
    ),
    GROWTH: re.compile(
        r"\b(?:growth|grew|grow\w*|rose|ris(?:e|es|en|ing)|fell|fall\w*|increase\w*|decrease\w*|declin\w*|"
        r"up|down|higher|lower|above|below|change\w*|compared|year-on-year|yoy|cagr)\b|[+−-]\s?\d"
        r"|增长|增幅|下降|降幅|上升|同比|环比|减少"
    ),
    SHARE: re.compile(
        r"\b(?:share\w*|of|accounts?|accounted|proportion|portion|part|fraction)\b|占|份额|比重|比例"
    ),
    ANNUAL: re.compile(
        r"\b(?:a year|per year|annual\w*|yearly|each year|on average|cagr|per annum)\b|/\s?yr\b|年均|每年"
    ),
    DERIVED: re.compile(
        r"\b(?:derived|computed|calculated|impl(?:y|ies|ied)|i\.e\.|works out)\b|推算|计算得"
    ),
}

_HEDGE = r"(?:(?:about|around|roughly|nearly|almost|some|approximately|over|just|only|a further|a net|net|another)\s+)*"
_RISE = r"rose|ris(?:e|es|en)|grew|grow[sn]?|increased?|climbed|jumped|gained|added|adds|up|surged|expanded|raised|lifted|boosted|doubled|tripled"
_FALL = r"fell|falls?|declined?|decreased?|dropped|slipped|lost|cut|down|plunged|shrank|contracted|reduced|reduces|lowered|halved|slashed|trimmed"
_CJK_RISE = "增长了?|增加了?|上升了?|提高了?|多了"
_CJK_FALL = "下降了?|减少了?|降低了?|下跌了?|缩减了?|少了"
_BEFORE = re.compile(
    rf"(?:(?P<cjk>{_CJK_RISE}|{_CJK_FALL})|\b(?P<verb>{_RISE}|{_FALL})\s+(?:by\s+)?{_HEDGE}|"
    rf"\b(?:{_RISE}|{_FALL}|exceed\w*|outpaced|overshot)\b[^.;,]{{0,40}}?\bby\s+{_HEDGE}|"
    rf"\b(?P<noun>increase|decrease|decline|drop|rise|growth|gain|loss|fall|reduction|cut|addition|change)s?\s+of\s+{_HEDGE})$",
    re.IGNORECASE,
)
_AFTER = re.compile(
    r"^\s*(?:(?:year-on-year|y/y|yoy|on the year|net)\s+)?(?P<word>increase|decrease|rise|drop|decline|growth|gain|"
    r"loss|jump|fall|reduction|cut|additions?|higher|lower|more|less|fewer|below|above|up|down|added)\b"
    r"(?!\s+(?:the|a|an|its|their|his|her|our|\d))",  # `205,000 less the 14,000 exported`: a subtraction
    re.IGNORECASE,
)
_RISE_WORD = re.compile(
    rf"^(?:{_RISE}|increase|rise|growth|gain|jump|addition|additions|higher|more|above)$", re.I
)
_FALL_WORD = re.compile(
    rf"^(?:{_FALL}|decrease|drop|decline|loss|fall|reduction|lower|less|fewer|below)$", re.I
)
_CHANGE_WORDS = re.compile(
    r"\b(?:add(?:ed|s|ing|itions?)|net|increase[sd]?|decrease[sd]?|rose|rise[sn]?|fell|falls?|grew|growth|"
    r"declin\w*|drop\w*|up|down|change[sd]?|yoy|year-on-year|higher|lower\w*|more|less|gain\w*|loss\w*|cut|"
    r"reduc\w*|rais\w*|halv\w*|doubl\w*)\b"
    r"|\bnew\b|增长|增加|减少|下降|上升|新增|同比|净|増加|減少|上昇|低下|伸び"
    # German, French, Spanish, Italian (issue 28's languages): a quote in them may state a change
    r"|\b(?:stieg\w*|gestiegen|steigt|sank\w*|gesunken|sinkt|wuchs|gewachsen|wächst|anstieg\w*|zuwachs\w*|"
    r"rückgang\w*|zunahme|abnahme|augment\w*|hausse|baiss\w*|diminu\w*|progress\w*|recul\w*|"
    r"aument\w*|creci\w*|subi\w*|cay\w*|descen\w*|disminu\w*|crescit\w*|cresciut\w*|calat\w*)\b",
    re.IGNORECASE,
)


def signals_in(text: str) -> frozenset[str]:
    """The operations the words of `text` name (module docstring), but `derived`; a clause that opens
    with `plus` (`2.3 GW under construction plus 3.9 GW permitted`) writes an addend, not a sum."""
    lowered = _ADDEND.sub("", text.lower(), count=1)
    return frozenset(name for name, regex in _SIGNALS.items() if name != DERIVED and regex.search(lowered))


_ADDEND = re.compile(r"^\W*plus\b")
_OPENING = re.compile(
    r"^[\s(,;:–—-]*(?:derived|computed|calculated|i\.e\.|impl(?:y|ies|ied))\b", re.IGNORECASE
)
_CLOSING = re.compile(
    r"[\s(,;:–—-]*(?:(?:derived|computed|calculated)[\s)]*|this (?:is|was) (?:a |an )?(?:derived|computed|calculated)\b.*)",
    re.IGNORECASE | re.DOTALL,
)
_INPUTS = re.compile(r"\s+(?:from|using|as)\b", re.IGNORECASE)


_INPUT_MARK = re.compile(r"\b(?:derived|computed|calculated)\s*(?:from\b|:)", re.IGNORECASE)


def input_marks(text: str) -> list[tuple[int, int]]:
    """Where a text says the inputs of a derivation follow (`derived from`, `derived:`)."""
    return [(m.start(), m.end()) for m in _INPUT_MARK.finditer(text)]


def derivation_inputs(text: str, starts: list[int]) -> set[int]:
    """Which numbers (by start) a text gives as the inputs of a derivation (`derived from 0.9 GW to
    4.8 GW`, `(derived: 46,200 less 39,500)`, `derived from totals of EUR 340m, 410m and 520m`):
    quoted values, not claims about the sentence's subject."""
    marks = [m.end() for m in _INPUT_MARK.finditer(text)]
    inputs: set[int] = set()
    for start in starts:
        mark = max((m for m in marks if m <= start), default=-1)
        if mark != -1 and not _INPUT_END.search(text[mark:start] + text[start : start + 1]):
            inputs.add(start)
    return inputs


# What ends the inputs of a `derived from`: a bracket, a clause or sentence end (a comma but in a list).
_INPUT_END = re.compile(r"[;)(]|\.(?!\d)|,(?!\s*(?:EUR|USD|[€$£¥])?\s?\d)")


def derived_marks(text: str, clauses: list[tuple[int, int]], starts: list[int]) -> set[int]:
    """Which numbers (by start) of a sentence its words mark as derived (module docstring)."""
    if not clauses:
        return set()
    marker = _SIGNALS[DERIVED]
    first = text[slice(*clauses[0])]
    last_number = max(starts, default=-1)
    closing = any(start > last_number and _CLOSING.fullmatch(text, start, end) for start, end in clauses)
    opening = _OPENING.match(first) and not any(clauses[0][0] <= s < clauses[0][1] for s in starts)
    whole = opening or closing
    marked: set[int] = set()
    for index, (start, end) in enumerate(clauses):
        following = text[slice(*clauses[index + 1])] if index + 1 < len(clauses) else ""
        for number in (s for s in starts if start <= s < end):
            before = [m for m in marker.finditer(text, start, number) if not _INPUTS.match(text, m.end())]
            if whole or before or _OPENING.match(following):
                marked.add(number)
    return marked


def _direction(word: str) -> int:
    if _RISE_WORD.match(word):
        return 1
    if _FALL_WORD.match(word):
        return -1
    return 0


def sign_at(text: str, start: int) -> int:
    """+1 or −1 for a number written with a sign at `start` (`+5`, `−15%`, ` -0.3`), else 0."""
    if start == 0:
        return 0
    mark = text[start - 1]
    before = text[start - 2] if start >= 2 else " "
    if mark == "+":
        return 1
    if mark in "-−–" and (before.isspace() or before in "(|[≥≤~:"):
        return -1
    return 0


def change_at(text: str, start: int, end: int) -> tuple[bool, int]:
    """Whether the number at text[start:end] is written as a change, and its direction."""
    sign = sign_at(text, start)
    if sign:
        return True, sign
    before = _BEFORE.search(text[max(0, start - 60) : start])
    if before:
        cjk = before.group("cjk")
        if cjk:
            return (True, -1) if re.match(_CJK_FALL, cjk) else (True, 1)
        word = before.group("verb") or before.group("noun") or ""
        return True, _direction(word)
    after = _AFTER.match(text[end : end + 60])
    if after:
        return True, _direction(after.group("word"))
    return False, 0


def sentence_speaks_of_change(sentence: str) -> bool:
    """Whether a sentence of evidence speaks of a change (its numbers may be changes)."""
    return bool(_CHANGE_WORDS.search(sentence))
