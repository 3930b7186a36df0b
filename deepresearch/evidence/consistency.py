"""A sentence whose numbers contradict each other: it cannot be right as written, whatever its
sources state, so none of the numbers involved is grounded.

- **a derivation it writes out** with two inputs (`75% (derived: 142,000 of 189,000)`, `6,700
  (derived: 46,200 less 39,500)`) that do not give its result by any arithmetic of
  evidence/derivation.py, or, with no number for its result, that do not give the ratio it writes
  in words (`about a third of the Capital's density (derived: 105 against 290)`, `twice`, `eight
  times`; to 15%: a ratio in words is a coarse one);
- **a number restated in brackets in another unit** (`1.2 GW (1,200 MW)`) with another value
  (`0.3 GW (1,200 MW)`);
- **a change from one number to another in the wrong direction** (`rose from 71,500 to 60,200`,
  `10%, down from 3%`): a rise ends higher than it starts, a fall lower.

And a change written against its sources' years (`backwards`): `from A to B` (on to C: `from A to B
to C`) and `A→B` run from the earlier to the later, so the facts that state A and B, each for a year
of its own, do not give A for a later year than B (`210→130 EUR/kWh` is not `130→210`, when 210 is
2022's and 130 2025's), and a change from a value to itself needs facts that give it for two years
(`210→210`); when the sentence says how long the change took (`in four years`), the years of A
and B are that far apart (`from 600 to 4,700 in four years` is 2021's and 2025's, not 2022's).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from deepresearch.evidence.arithmetic import operands
from deepresearch.evidence.binding import Bound
from deepresearch.evidence.derivation import derive
from deepresearch.evidence.number_match import same_value
from deepresearch.evidence.quantities import NUMBER_WORDS
from deepresearch.evidence.signals import DERIVED, derivation_inputs, input_marks

_RISE = r"rose|ris(?:e|es|en|ing)|grew|grow(?:s|n|ing)?|increas\w*|climb\w*|jump\w*|gain\w*|up|surg\w*|expand\w*|doubl\w*|tripl\w*|edged up"
_FALL = r"fell|fall(?:s|ing|en)?|declin\w*|decreas\w*|dropp?\w*|down|slow\w*|eas(?:ed|ing)|shr[au]nk|contract\w*|cut|reduc\w*|edged down|halv\w*"
_VERB = re.compile(rf"\b(?:(?P<rise>{_RISE})|(?P<fall>{_FALL}))\b[^.;]{{0,60}}$", re.IGNORECASE)
_FROM = re.compile(
    r"\bfrom\s+(?:(?:about|around|roughly|nearly|some|almost|just|only|EUR|USD|US\$|[$€£¥])\s*)*$", re.I
)
_TO = re.compile(
    r"^[^.;]{0,30}?\bto\s+(?:(?:about|around|roughly|nearly|some|almost|just|only|EUR|USD|US\$|[$€£¥])\s*)*$",
    re.I,
)
_UP_FROM = re.compile(r"^[^.;]{0,60}?,?\s*\b(?:(?P<rise>up)|(?P<fall>down))\s+from\s+\S*\s*$", re.I)


def contradictions(text: str, claims: Sequence[Bound], spans: Iterable[int] = ()) -> dict[int, str]:
    """Why each number of a sentence (by its index in `claims`, bound in `text`) contradicts
    another of the sentence (module docstring); the numbers that do not are absent."""
    found: dict[int, str] = {}
    checks = (*_derivations(text, claims, list(spans)), *_directions(text, claims), *_restated(claims))
    for indexes, why in checks:
        for index in indexes:
            found.setdefault(index, why)
    return found


def _restated(claims: Sequence[Bound]) -> list[tuple[list[int], str]]:
    """A number restated right after it, alone in brackets, in another unit of its dimension
    (`1.2 GW (1,200 MW)`) that does not have its value."""
    found: list[tuple[list[int], str]] = []
    for index, (first, second) in enumerate(itertools.pairwise(claims)):
        if first.column != second.column or not first.quantity.dimension:
            continue
        if first.quantity.dimension != second.quantity.dimension:
            continue
        alone = re.fullmatch(rf"\s*\(\s*{re.escape(second.text)}\s*", second.clause)
        if not alone or not 0 <= second.quantity.start - first.quantity.end <= 3:
            continue  # (right after it: `1.2 GW (1,200 MW)`, not `1,050 MW, then unit 2 (410 MW)`)
        if not same_value(first.quantity, second.quantity) and not same_value(
            second.quantity, first.quantity
        ):
            found.append(
                ([index, index + 1], f"{second.text} restates {first.text} in brackets with another value")
            )
    return found


_ARROW = re.compile(r"\s*(?:→|->|⟶)\s*")
_CHAIN = re.compile(
    r"\s+(?:and\s+)?to\s+(?:(?:about|around|roughly|nearly|some|almost|EUR|USD|US\$|[$€£¥])\s*)*"
)


def backwards(text: str, claims: Sequence[Bound], stated: Sequence[Bound | None]) -> dict[int, str]:
    """Why each number of a change written from A to B (`from A to B`, `A→B`) runs against the
    years of the evidence numbers that state A and B (`stated`, by the claims' indexes)."""
    found: dict[int, str] = {}
    pairs = _from_to(text, claims)
    length = _length(text) if len(pairs) == 1 else None  # (`in four years`: of the sentence's one change)
    for i, j in pairs:
        a, b, change = stated[i], stated[j], f"a change from {claims[i].text} to {claims[j].text}"
        if a is None or b is None:
            continue
        dated = bool(a.strength and b.strength and a.years and b.years)
        if dated and min(a.years) > max(b.years):
            why = f"{change} runs backwards: {a.origin} gives {a.text} for {min(a.years)}, after {b.text}"
        elif same_value(claims[i].quantity, claims[j].quantity) and not (
            dated and min(a.years) < max(b.years)
        ):
            why = f"{change} is no change, and no fact gives it for two years"  # `210→210`
        elif dated and length is not None and all(y - x != length for x in a.years for y in b.years):
            why = (
                f"{change} spans {max(b.years) - min(a.years)} years by {a.origin} and {b.origin} "
                f"({min(a.years)} to {max(b.years)}), not the {length} its sentence says"
            )
        else:
            continue
        found.setdefault(i, why)
        found.setdefault(j, why)
    return found


# (the number words a length or a ratio in words is read in: quantities.NUMBER_WORDS gives their values)
_COUNTS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_LENGTH = re.compile(
    rf"\b(?:in|over|within|across)\s+(?:the\s+)?(?:(?:last|past|next|following)\s+)?"
    rf"(?P<n>\d{{1,2}}|{'|'.join(_COUNTS)})\s+years\b",
    re.IGNORECASE,
)


def _length(text: str) -> int | None:
    """The length in years a sentence gives the one time it speaks of (`in four years`), if one."""
    found = {m.group("n").lower() for m in _LENGTH.finditer(text)}
    if len(found) != 1:
        return None
    return _count(found.pop())


def _count(written: str) -> int:
    """A count written in digits or as a word (`4`, `four`: quantities' number words)."""
    return int(written) if written.isdigit() else NUMBER_WORDS[written.lower()]


def _from_to(text: str, claims: Sequence[Bound]) -> list[tuple[int, int]]:
    """The (start, end) indexes of the changes the sentence writes as `from A to B` or `A→B`."""
    pairs: list[tuple[int, int]] = []
    for i, (a, b) in enumerate(itertools.pairwise(claims)):
        between = text[a.quantity.end : b.quantity.start]
        chained = bool(pairs) and pairs[-1][1] == i and _CHAIN.fullmatch(between)  # `from A to B to C`
        if (
            _ARROW.fullmatch(between)
            or chained
            or (_FROM.search(text, 0, a.quantity.start) and _TO.match(between))
        ):
            pairs.append((i, i + 1))
    return pairs


def _derivations(text: str, claims: Sequence[Bound], spans: list[int]) -> list[tuple[list[int], str]]:
    starts = [c.quantity.start for c in claims]
    inputs = derivation_inputs(text, starts)
    out: list[tuple[list[int], str]] = []
    for mark, end in input_marks(text):
        given = [i for i, c in enumerate(claims) if c.quantity.start in inputs and c.quantity.start >= end]
        given = [
            i for i in given if not any(end < m < claims[i].quantity.start for m, _ in input_marks(text))
        ]
        results = [
            i for i, c in enumerate(claims) if c.quantity.start < mark and c.quantity.start not in inputs
        ]
        if len(given) == 2 and not results:  # `about a third of ... (derived: 105 against 290)`
            out.extend(_worded(text[:mark], [claims[i] for i in given], given))
        if len(given) != 2 or not results or not claims[results[-1]].quantity.claim:
            continue
        result = claims[results[-1]]
        local = [o for i in given for o in operands(claims[i], "this sentence", "local")]
        if not local:
            continue
        marked = replace(result, signals=result.signals | {DERIVED}, years=frozenset(), strength=0)
        if derive(marked, local, [], spans):
            continue
        shown = " and ".join(claims[i].text for i in given)
        out.append(
            ([results[-1], *given], f"{result.text} does not follow from {shown}, the inputs written here")
        )
    return out


_PARTS = {"half": 2, "third": 3, "quarter": 4, "fifth": 5, "tenth": 10}
_RATIO = re.compile(
    rf"\b(?:(?:a|one)[- ](?P<part>{'|'.join(_PARTS)})|(?P<half>half)|(?P<twice>twice)|"
    rf"(?P<n>\d{{1,2}}|{'|'.join(_COUNTS)})\s+times)\b",
    re.IGNORECASE,
)
_WORDED = 0.15  # a ratio in words is a coarse one (`about a third` for 0.36)


def _worded(before: str, given: list[Bound], indexes: list[int]) -> list[tuple[list[int], str]]:
    """A ratio the sentence gives in words as its derivation's result (`about a third of ...
    (derived: 105 against 290)`, `twice`, `eight times`) that its two written inputs do not give."""
    found = list(_RATIO.finditer(before))
    if len(found) != 1:
        return []
    m = found[0]
    if m.group("part") or m.group("half"):
        ratio = 1 / _PARTS[(m.group("part") or "half").lower()]
    else:
        ratio = 2.0 if m.group("twice") else float(_count(m.group("n")))
    pairs = [
        (float(x.value), float(y.value))
        for x in given[0].quantity.readings
        for y in given[1].quantity.readings
    ]
    if any(not a or not b or abs(a / b - ratio) <= _WORDED * ratio or abs(b / a - ratio) <= _WORDED * ratio
           for a, b in pairs):  # fmt: skip
        return []
    return [(indexes, f"{given[0].text} and {given[1].text} do not give {m.group()}, the ratio written here")]


def _directions(text: str, claims: Sequence[Bound]) -> list[tuple[list[int], str]]:
    """`rose from A to B` (B is the next number after `to`), `B, up from A`."""
    out: list[tuple[list[int], str]] = []
    for i, a in enumerate(claims):
        opening = _FROM.search(text, 0, a.quantity.start)
        if opening is None:
            continue
        after = (
            j for j in range(i + 1, len(claims)) if _TO.match(text[a.quantity.end : claims[j].quantity.start])
        )
        later = next(after, None)
        if later is not None:
            verb, pair = _VERB.search(text[: opening.start()]), (i, later)
        elif i > 0:
            verb, pair = _UP_FROM.match(text[claims[i - 1].quantity.end : a.quantity.start]), (i, i - 1)
        else:
            continue
        start, end = claims[pair[0]], claims[pair[1]]
        if verb is None or start.quantity.dimension != end.quantity.dimension:
            continue
        rise = verb.group("rise") is not None
        if not _consistent(start, end, rise):
            word, way = ("rise", "higher") if rise else ("fall", "lower")
            out.append((list(pair), f"a {word} from {start.text} to {end.text} does not end {way}"))
    return out


def _consistent(start: Bound, end: Bound, rise: bool) -> bool:
    """Some reading of the two numbers goes the way the words say (read alike: `60,200` and
    `71,500` both as thousands, or both with a decimal comma)."""
    a, b = start.quantity.readings, end.quantity.readings
    pairs = zip(a, b, strict=True) if len(a) == len(b) else ((x, y) for x in a for y in b)
    return any((y.value > x.value) if rise else (y.value < x.value) for x, y in pairs)
