"""The words that say what a number is a number of: content words, crudely stemmed, by clause.

A number's terms are the content words of its clause (lower case, stemmed; no stop words, units,
months or numbers; a unit of power or energy that follows no number names what is measured: `MW
+33%` is power's); those of the clauses without a number that open its group (the clauses up to `;`,
`and`, `but`, `while`..., but not an `and` that goes on with a number, hedged or not: `cites 3.4 GW
(end-2024) and 2.1 GW (end-2023)`, `about 91 MW and about 32 MW`) or follow it in its group (`1.7 GW
(53 installations) on distribution networks`); or, when it has none, those of the clause before
(`fell from EUR 160m (2022) to 140m (2023)`: the same thing), unless its group opens with words of
its own (`total spend was EUR 520m; battery revenue (310m) rose`: another item). A group that opens
with a verb of change after `and` or `but` has no subject of its own and takes the group before's
words too (`growth in power peaked in 2023 (+75%) and slowed to +41% in 2025`: power's growth). A
bracket with a number and no words of its own after an earlier one with words is parallel to it
(`Capital 17,900 (290 per 100,000 residents), North 6,100 (105)`); one that follows words written
since the number before it is about those words, and they are not that number's (`2.9 GW during the
demand peak (9.3 GW)`, `185,000 in 2024, counting exports (14,000 in 2025)`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_WORD = re.compile(r"[^\W\d_]+")
_STOP = frozenset({
    "the", "and", "for", "with", "from", "into", "onto", "that", "this", "these", "those", "which",
    "who", "whom", "whose", "was", "were", "are", "is", "be", "been", "being", "has", "have", "had",
    "its", "their", "his", "her", "our", "your", "they", "them", "than", "then", "there", "here",
    "when", "where", "what", "about", "around", "approximately", "roughly", "nearly", "almost",
    "some", "over", "under", "only", "also", "just", "more", "less", "most", "least", "very", "such",
    "each", "per", "cent", "percent", "year", "years", "yearly", "end", "mid", "early", "late",
    "figure", "figures", "number", "numbers", "value", "values", "level", "levels",
    "amount", "reached", "reach", "stood", "stands", "stand", "rose", "rise", "fell", "fall", "grew",
    "grow", "while", "whereas", "but", "not", "nor", "yet", "all", "any", "both", "either",
    "neither", "other", "another", "same", "own", "since", "until", "during", "before", "after",
    "between", "among", "within", "without", "against", "versus", "via", "one", "two", "three",
    "four", "five", "six", "seven", "eight", "nine", "ten", "hundred", "thousand", "million",
    "billion", "trillion", "said", "says", "say", "according", "reported", "reports", "report",
    "states", "stated", "state", "gives", "give", "given", "shows", "show", "showed", "derived",
    "computed", "calculated", "implies", "implied", "imply",
    # months and units say when and in what, not what of
    "jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun", "june", "jul",
    "july", "aug", "august", "sep", "sept", "september", "oct", "october", "nov", "november", "dec",
    "december", "kw", "mw", "gw", "tw", "wh", "kwh", "mwh", "gwh", "twh", "eur", "usd", "gbp", "cny",
    "rmb", "euro", "euros", "dollar", "dollars", "yuan", "pct", "mln", "watt", "watts",
})  # fmt: skip
_SHORT_STOP = frozenset({"of", "in", "to", "on", "at", "by", "or", "an", "as", "is", "it", "up", "no", "vs"})
_SUFFIXES = ("ations", "ation", "itions", "ition", "ings", "ing", "ies", "ed", "es", "s")
# Words that make a clause's number a change: `net additions were 0.3 GW`.
_REPORTING = re.compile(r"\b(?:add|adds|added)\s+that\b", re.IGNORECASE)
CHANGE_TERMS = frozenset(
    {"add", "net", "increas", "decreas", "growth", "declin", "chang", "gain", "yoy"}
)  # stemmed
# Where a group of clauses ends: the next one starts with one of these.
_STRONG = re.compile(
    r"(?:;|，|；|\s+(?:and|but|while|whereas|versus|vs\.?|against)\s|,\s*(?:and|but|while)\s)"
    # `cites 3.4 GW (2024) and 2.1 GW (2023)`, `about 91 MW and about 32 MW`: one group
    r"(?!\s*(?:(?:about|around|roughly|nearly|almost|approximately|some|just|only|over|under)\s+)*"
    r"(?:[+−-]|EUR|USD|GBP|US\$|[€$£¥])?\s?\d)",
    re.I,
)
Clause = tuple[int, int]
# A group that opens with a verb of change after `and`/`but` has no subject of its own: it goes on
# with the one before's (`growth in power peaked in 2023 (+75%) and slowed to +41% in 2025`).
_NO_SUBJECT = re.compile(
    r"\s*,?\s*(?:and|but)\s+(?:then\s+|later\s+)?(?:slowed|rose|fell|grew|peaked|dropped|declined|"
    r"increased|decreased|climbed|jumped|eased|recovered|doubled|tripled|halved|accelerated)\b",
    re.IGNORECASE,
)


def stem(word: str) -> str:
    """A crude stem, enough to meet `added` with `additions`, `installed` with `installation` and
    `discharge` with `discharged` (a final `e` goes: `price`, `prices`, `pricing`)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    return word[:-1] if word.endswith("e") and len(word) >= 4 else word


def terms_of(text: str) -> frozenset[str]:
    """The content words of `text`, lower case and stemmed; two-letter ones only as capitals
    (`AC`, `DC`, `EU`); a unit of power or energy written without a number names what is measured
    (`MW +33%, MWh +44%`: power, energy)."""
    text = _REPORTING.sub(" ", text)  # `they would add that 42% ...`: a way of speaking, not a change
    words = (w.lower() for w in _WORD.findall(text) if len(w) >= 3 or (len(w) == 2 and w.isupper()))
    named = frozenset(_MEASURED[m.group(2)] for m in _UNIT_ALONE.finditer(text) if not m.group(1))
    return frozenset(stem(w) for w in words if w not in _STOP and w not in _SHORT_STOP) | named


# `MW +33%`: a unit that follows no number (`3,400 MW` is a number's) names what is measured.
_UNIT_ALONE = re.compile(r"(\d[\d.,]*\s?|/\s?|\bper\s)?\b[kMGT]W(h)?\b")
_MEASURED = {None: "power", "h": "energy"}


def _groups(text: str, clauses: Sequence[Clause]) -> list[list[Clause]]:
    groups: list[list[Clause]] = []
    for clause in clauses:
        if not groups or _STRONG.match(text, clause[0]):
            groups.append([])
        groups[-1].append(clause)
    return groups


def group_spans(text: str, clauses: Sequence[Clause]) -> list[Clause]:
    """Where each group of clauses (an item of its sentence: up to `;`, `and`, `but`...) starts and ends."""
    return [(group[0][0], group[-1][1]) for group in _groups(text, clauses)]


def _take_tail(
    text: str, bracket: Clause, group: Sequence[Clause], starts: Sequence[int],
    out: dict[int, frozenset[str]], lead: frozenset[str],
) -> None:  # fmt: skip
    """`2.9 GW during the demand peak (9.3 GW)`: a bracket with a number and no words of its own
    is about the words written since the number before it, which are then not the earlier numbers'
    (unless their clause names them before them)."""
    earlier = [s for s in starts if group[0][0] <= s < bracket[0]]
    if not earlier:
        return
    tail = terms_of(text[earlier[-1] : bracket[0]])
    if not tail:
        return
    out[bracket[0]] = tail | lead
    for owner in (c for c in group if c[0] in out and c[1] <= bracket[0]):
        named = terms_of(text[owner[0] : min(s for s in earlier if s >= owner[0])])
        out[owner[0]] -= tail - named - lead


def clause_terms(text: str, clauses: Sequence[Clause], starts: Sequence[int]) -> dict[int, frozenset[str]]:
    """The terms of the numbers (starting at `starts`) of each clause, by the clause's start."""
    out: dict[int, frozenset[str]] = {}
    inherited: frozenset[str] = frozenset()
    parallel: frozenset[str] = frozenset()  # the words of the last bracket that had its own
    subject: frozenset[str] = frozenset()  # the words of the group before (its subject, when it has one)
    for group in _groups(text, clauses):
        counted = [c for c in group if any(c[0] <= s < c[1] for s in starts)]
        before, subject = subject, frozenset(w for c in group for w in terms_of(text[slice(*c)]))
        if not counted:
            continue
        first = group.index(counted[0])
        lead = frozenset(w for c in group[:first] for w in terms_of(text[slice(*c)]))
        if _NO_SUBJECT.match(text, group[0][0]):
            lead |= before
        if lead:  # an item that names what it is about (`; battery revenue (95/310m) rose`)
            inherited = parallel = frozenset()
        run: list[Clause] = []  # the clauses with numbers that the next words without one follow
        for clause in group[first:]:
            words = terms_of(text[slice(*clause)])
            if clause in counted:
                # `1.7 GW (53 installations)`: a bracket right after a number that names nothing new is
                # about the same thing (`(168 thousand in total)` is not)
                bracketed = (
                    text[clause[0]] in "(（" and bool(run) and run[-1] in counted and words <= inherited
                )
                if run and run[-1] not in counted:
                    run = []
                out[clause[0]] = (words | inherited if bracketed else words or inherited) | lead
                if text[clause[0]] in "(（" and not words:
                    _take_tail(text, clause, group, starts, out, lead)
                if (
                    bracketed and not words
                ):  # `North 6,100 (105)` after `Capital 17,900 (290 per 100,000 residents)`
                    out[clause[0]] |= parallel
                elif text[clause[0]] in "(（" and words - inherited:
                    parallel = words
                inherited = out[clause[0]]
            else:
                for owner in (c for c in run if c in counted):
                    out[owner[0]] |= words
            run.append(clause)
        subject = out[counted[0][0]] if _NO_SUBJECT.match(text, group[0][0]) else subject
    return out
