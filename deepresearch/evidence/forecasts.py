"""Numbers of forecasts and scenarios: what a source projected is not what was measured.

A number is a forecast's (`Bound.forecast`) when the words of its item up to it and of its own
phrase after it (an item: its group of clauses, evidence/terms.py, up to `;`, `and`, `but`, `while`,
`versus`...) name a forecast, projection or scenario (`the base case projected 10 GW by 2025 (low
case 4 GW`, `Corvel's 4.5 GW forecast`), or its column's header does, and its clause names no
outturn (`a projection of 10 GW, far above the 4.8 GW outturn`). A number is given as
measured (`Bound.observed`) when its sentence (a table row, with its header) states what is, was or
was measured (`is`, `was`, `validated`, `operational`, `recorded`, `outturn`, `grew`...) and speaks
of nothing foreseen: no forecast, target, plan, model, assumption, nor what will or would be. A
measured number is not stated by a forecast's number (evidence/aboutness.py): `the NSO's validated
4.8 GW` is not the `low case 4 GW`, while `the NSO recorded 4.8 GW` after a projection is its own item,
and states it; `the figures in circulation range from 3.8 to 9.9 GW` says of none that it was measured.
Nor is a table row's number that its label cells give as a forecast's (`| ~4.5 GW (range 3.8-5.2) |
Corvel forecast |`) stated by a number that is no forecast's (the 4.8 GW outturn).

A number's **scenario** is the scenario word (`low`, `base`, `high`, `central`...) of its own phrase,
else the one such word of its item, where they speak of a case or scenario (`the 4 GW low case`;
`the low scenario (4 GW by 2025)`). A number of one scenario does not state a number its words give
for another (`FEI's 10 GW low case` is not the base case's 10 GW), and a claim naming a scenario that
no number with its value names is the figure, changed, of a number of another value that names it
(`its 8 GW base case` when the base case is 10 GW and the 8 GW a target; evidence/cited.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from deepresearch.evidence.bound import Bound

_FORECAST = re.compile(
    r"\b(?:forecast\w*|projected|projections?|scenarios?|(?:low|high|base|central|reference)[- ]cases?|"
    r"outlooks?|expect\w*|predict\w*|anticipat\w*)\b|预测|预计|情景",
    re.IGNORECASE,
)
_FORESEEN = re.compile(
    rf"{_FORECAST.pattern}|\b(?:targets?|targeted|plan\w*|goals?|model\w*|assum\w*|will|would|could|"
    r"might|shall)\b|目标|规划|将",
    re.IGNORECASE,
)
_OUTTURN = re.compile(r"\b(?:outturns?|recorded|measured|actual\w*|observed|realised|realized)\b", re.I)
_MEASURED = re.compile(
    r"\b(?:is|are|was|were|validat\w*|measur\w*|operational|operating|recorded|outturn|actual\w*|"
    r"registered|installed|commissioned|went|grew|rose|fell|reached|stood)\b|实际|运行|投运",
    re.IGNORECASE,
)


def a_forecast(text: str) -> bool:
    """Whether `text` names a forecast, projection or scenario."""
    return bool(_FORECAST.search(text))


def measured(text: str) -> bool:
    """Whether a sentence (a row) states what is, was or was measured, and nothing foreseen."""
    return bool(_MEASURED.search(text)) and not _FORESEEN.search(text)


def outturn(text: str) -> bool:
    """Whether a clause names what came to be measured (`far above the 4.8 GW NSO outturn`)."""
    return bool(_OUTTURN.search(text))


# (stemmed) the names of a scenario, and the words that say a number is a case or scenario's
_SCENARIOS = frozenset({"low", "high", "bas", "central", "referenc", "optimistic", "pessimistic"})
_CASE = frozenset({"cas", "scenario"})


def scenario(number: Bound) -> frozenset[str]:
    """The scenario a number is given for: the scenario words of its phrase, else the one of its item,
    where they speak of a case or scenario (none when they name none, or several)."""
    if not number.terms & _CASE and not number.near & _CASE:
        return frozenset()
    own = number.near & _SCENARIOS
    item = number.terms & _SCENARIOS
    return own or (item if len(item) == 1 else frozenset())


# (stemmed) the words that name a forecast, projection or scenario (`project` is also a wind farm)
_FORESEEING = frozenset(
    {"forecast", "projection", "scenario", "outlook", "expect", "predict", "prediction", "anticipat"}
)


def forecast_row(number: Bound) -> bool:
    """A table cell whose row's label cells name a forecast, projection or scenario (`| ~4.5 GW |
    Corvel forecast |`, `| 10 GW | FEI base case |`)."""
    label = number.label
    return number.column >= 0 and bool(label & _FORESEEING or (label & _CASE and label & _SCENARIOS))


def other_scenario(claim: Bound, matches: Sequence[Bound], others: Iterable[Bound]) -> Bound | None:
    """A number of another value given for the claim's scenario, when no number with the claim's
    value is given for it: the claim names that scenario's figure, changed."""
    named = scenario(claim)
    if not named or any(scenario(m) & named for m in matches):
        return None
    return next((o for o in others if scenario(o) & named), None)
