"""Quantitative values in a fact's statement, for novelty: a number with its unit, normalised.

The numbers are read by `deepresearch.evidence.quantities` (the same reading as numeric grounding:
separators, decimal commas, scale words, units in their base — 4,800 MW is 4.8 GW — and what is not a
claim: years, dates, references, citation IDs, ordinals). A number with a known unit (W, Wh, %, a
currency) is compared in that unit; a number without one takes the word after it as its unit ("42
points" is 42 point), and a number with neither is not a quantity. Two quantities are the same when
their units match and a reading is shared, so "the index stood at 42 points" restates "the index
reached 42 points in 2025".

What counts as a value at all (`counts_for`): a number measures the subject a dimension asks about,
not the page or the web it was read on. Never counted: a page number or page count, an HTTP status
(404 next to "HTTP", "status", "error" or "Not Found"), the price of a report, dataset or licence,
and a count of web activity — votes, views, likes, downloads, comments, replies, shares, followers,
subscribers, visits, clicks, search results, citations, reviews, ratings, stars — unless the
dimension itself names that thing (a dimension on a vote in parliament counts its votes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from deepresearch.evidence.quantities import prepare
from deepresearch.evidence.quantities import quantities as read_quantities

_WORD = re.compile(r"\s*(°?[^\W\d_][\w°²³/-]*)", re.UNICODE)
_FUNCTION_WORDS = frozenset(
    ("a", "an", "and", "are", "as", "at", "before", "between", "by", "during", "for", "from", "in",
     "into", "is", "of", "on", "or", "over", "per", "since", "than", "that", "the", "to", "under",
     "until", "up", "was", "were", "which", "while", "with", "within")
)  # fmt: skip


_CURRENCIES = frozenset({"eur", "usd", "gbp", "cny"})
_ACTIVITY = frozenset(
    ("vote", "upvote", "view", "pageview", "like", "download", "comment", "reply", "replie", "follower",
     "subscriber", "visit", "visitor", "click", "result", "hit", "citation", "rating", "star", "retweet",
     "repost", "post")
)  # fmt: skip
_ACTIVITY_CJK = ("票", "页", "次浏览", "浏览", "阅读", "点赞", "赞", "次下载", "下载", "条评论", "评论", "回复",
                 "转发", "粉丝", "关注", "条结果", "个结果", "次引用", "引用", "星")  # fmt: skip
WEB_ACTIVITY = "a count of web activity"
_HTTP = re.compile(
    r"\b(?:https?|status|error|response|code)\b|not found|forbidden|unavailable|bad gateway|状态码|错误"
)
_HTTP_AFTER = re.compile(
    r"\s*(?:not found|forbidden|error|unauthorized|bad request|gone|internal server)", re.I
)
_PAGE_BEFORE = re.compile(r"(?:\bpages?|\bpp?\.|第)\s*$")
_PURCHASE = re.compile(r"\b(?:pric\w*|costs?|buy\w*|purchas\w*|sells?|sold|fees?)\b|售价|价格|购买")
_DOCUMENT = re.compile(
    r"\b(?:reports?|stud(?:y|ies)|datasets?|copy|copies|pdf|editions?|licen[cs]es?|subscriptions?)\b|报告|数据集|订阅"
)
_CLAUSE_END = re.compile(r"[.;:!?。；：！？]\s")


@dataclass(frozen=True)
class Quantity:
    """A number (every plausible reading of it, in its unit's base) and its unit; `text` as written,
    `before` the words of its clause that lead up to it (lower-case), `after` what follows it."""

    unit: str
    readings: frozenset[Decimal]
    text: str = ""
    before: str = ""
    after: str = ""

    def same_as(self, other: Quantity) -> bool:
        """The same quantity: the same unit and a reading in common."""
        return self.unit == other.unit and bool(self.readings & other.readings)

    def __str__(self) -> str:
        return self.text or f"{min(self.readings)} {self.unit}".strip()


def _singular(word: str) -> str:
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def quantities(text: str) -> list[Quantity]:
    """Every quantity (number with a unit) stated in `text`, in order."""
    prepared = prepare(text)
    found = []
    for quantity in read_quantities(text):
        readings = frozenset(r.value.normalize() for r in quantity.readings)
        lead = prepared[max(0, quantity.start - 80) : quantity.start]
        before = _CLAUSE_END.split(lead)[-1].lower()
        after = prepared[quantity.end : quantity.end + 30]
        if quantity.dimension:
            found.append(Quantity(quantity.dimension.lower(), readings, quantity.text, before, after))
            continue
        match = _WORD.match(prepared, quantity.end)
        word = _singular(match.group(1)) if match else ""
        if word and word not in _FUNCTION_WORDS:
            shown = f"{quantity.text} {match.group(1)}" if match else quantity.text
            found.append(Quantity(word, readings, shown, before, after))
    return found


def not_a_measure(quantity: Quantity) -> str:
    """Why a number describes the page, the web or a document rather than a subject ("" when it
    may measure the subject)."""
    unit, before = quantity.unit, quantity.before
    if _PAGE_BEFORE.search(before) or unit in ("page", "pp") or unit.startswith("页"):
        return "a page number or count"
    whole = [r for r in quantity.readings if r == r.to_integral_value() and 100 <= r <= 599]
    said = _HTTP.search(before) or _HTTP_AFTER.match(quantity.after) or unit in ("not", "error")
    if whole and unit not in _CURRENCIES | {"%", "w", "wh"} and said:
        return "an HTTP status"
    if unit in _CURRENCIES and _PURCHASE.search(before) and _DOCUMENT.search(before):
        return "the price of a report"
    return WEB_ACTIVITY if _activity(unit) else ""


def _activity(unit: str) -> str:
    """The web activity a unit counts (votes, views, 票...), or ""."""
    if unit in _ACTIVITY:
        return unit
    return next((word for word in _ACTIVITY_CJK if unit.startswith(word)), "")


def counts_for(quantity: Quantity, dimension_text: str) -> bool:
    """Whether `quantity` is a value of what a dimension (its name and description) asks about:
    anything but the numbers of `not_a_measure`, unless the dimension names that very activity."""
    why = not_a_measure(quantity)
    return not why or (why == WEB_ACTIVITY and _activity(quantity.unit) in dimension_text.lower())
