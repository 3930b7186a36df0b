"""A number's own phrase in prose: where the words about it start before it and end after it.

Before a number its phrase starts at the last break after the number before it (a comma, a
conjunction, a preposition of time or comparison, `in`), and after a reporting verb's `that` (who
reports a figure is not what it counts); after it, the phrase runs to the first break (`and`,
`plus`, `for`, `by` ...), but on over the `by` of who made what its noun counts (`38,100 rides by
staff`).
"""

from __future__ import annotations

import re

from deepresearch.evidence.terms import terms_of

# Where a number's own phrase ends after it; before it, `in` ends one too (`EUR 2.0bn in nominal
# terms`, `2.4 hours of storage`: words that follow a number on `in` or `of` are its own).
_TAIL_BREAK = re.compile(
    r"[,;:()\[\]]|\b(?:during|at|on|for|from|to|by|with|while|than|as|and|or|plus|but|against|versus|vs)\b",
    re.IGNORECASE,
)
# ... but not the `by` of who did what a count's noun names (`38,100 rides by staff`): a time's `by`
# (`by 2030`, `by the end of 2025`) and a `by` right after the number or its unit (`rose 5% by volume`) do.
_AGENT = re.compile(
    r"(?<=[a-z]\s)by(?=\s+(?!(?:the\s+)?(?:end|start|beginning|middle|close|mid|early|late|then|now|"
    r"next|last|this|year|month|quarter|week|day|january|february|march|april|may|june|july|august|"
    r"september|october|november|december)\b)[a-z])",
    re.IGNORECASE,
)
_PHRASE_BREAK = re.compile(rf"{_TAIL_BREAK.pattern}|\bin\b", re.IGNORECASE)


# Who reports a number is not what it counts (`the office's note shows that the figure counts 38,100
# rides`): a phrase starts after a reporting verb's `that`.
_REPORTED = re.compile(
    r"\b(?:show|say|said|note|report|state|find|found|estimate|suggest|indicate|confirm|claim|argue|"
    r"explain|write|wrote|add)(?:s|ed|d)?\s+that\b",
    re.IGNORECASE,
)


def after_break(stretch: str) -> str:
    """The words of a stretch between two numbers after its last break (a bracket that opens right
    before the next number aside: `demand peak (9.3 GW)`): the next number's."""
    return _PHRASE_BREAK.split(stretch.rstrip().rstrip("([").rstrip())[-1]


def tail_phrase(stretch: str) -> str:
    """The text after a number up to its phrase's first break."""
    return _TAIL_BREAK.split(stretch, 1)[0]


def tail_words(stretch: str) -> frozenset[str]:
    """The words of a number's phrase after it (over an agent's `by`)."""
    return terms_of(tail_phrase(_AGENT.sub(" " * 2, stretch)))


def lead_words(lead: str) -> frozenset[str]:
    """The words of a number's phrase before it, from after a reporting verb's `that`."""
    return terms_of(_REPORTED.split(lead)[-1])
