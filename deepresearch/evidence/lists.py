"""Lists of numbers that write their unit once: `0.9, 1.2 and 2.1 GW`, `0.9/1.2/2.1 GW`, `EUR 90k,
109k and 113k`.

In a list (numbers separated only by `,` `;` `/` `and`; a unit written after two or more numbers
ends it: `0.9 and 4.8 GW and 1.6 and 11.5 GWh` are two lists), the numbers without a unit take the unit
of the last number when it has one, or else of the first: a bare number its scale too, one written with
a scale of its own (`EUR 340m, 410m and 520m`) only the unit. A number followed by a noun of its own
(`11.5 GWh, 87 installations`) is a count, and keeps no unit.
"""

from __future__ import annotations

import re
from dataclasses import replace

from deepresearch.evidence.quantities import Quantity

_SEPARATOR = re.compile(r"\s*(?:/|,|;|,?\s+and)\s*[+−-]?", re.IGNORECASE)
_OWN_NOUN = re.compile(
    r"\s+(?!(?:and|or|per|in|for|at|by|to|of|from|respectively|each|a|an|the)\b)[^\W\d_]{3,}"
)


def _with_unit(bare: Quantity, model: Quantity) -> Quantity:
    """`bare` in the unit and scale of `model` (its own scale, when it writes one: `410m`)."""
    if not bare.plain:
        return replace(bare, dimension=model.dimension)
    factor = model.readings[0].value / model.bare[0].value
    scaled = tuple(
        replace(r, value=r.value * factor, step=r.step * factor, exact=r.exact * factor) for r in bare.bare
    )
    return replace(bare, readings=scaled, dimension=model.dimension)


def _gives_unit(q: Quantity) -> bool:
    return bool(q.dimension and q.bare and q.bare[0].value)


def _takes_unit(text: str, q: Quantity) -> bool:
    return not q.dimension and not _OWN_NOUN.match(text, q.end)


def _runs(text: str, found: list[Quantity]) -> list[list[int]]:
    """The indexes of the claim numbers of each list, in order."""
    runs: list[list[int]] = []
    for i, q in enumerate(found):
        if not q.claim:
            continue
        last = found[runs[-1][-1]] if runs else None
        closed = last is not None and len(runs[-1]) > 1 and _gives_unit(last)  # `0.9 and 4.8 GW and 1.6 GWh`
        if last is not None and not closed and _SEPARATOR.fullmatch(text, last.end, q.start):
            runs[-1].append(i)
        else:
            runs.append([i])
    return [run for run in runs if len(run) > 1]


def list_ends(text: str, found: list[Quantity]) -> dict[int, int]:
    """Where the list of each number of a list ends (its last number's end), by the number's start:
    what is written after it (`per MW-year`) is written for every number of the list."""
    return {found[i].start: found[run[-1]].end for run in _runs(text, found) for i in run}


def share_units(text: str, found: list[Quantity]) -> list[Quantity]:
    """`found` (read from `text`) with the bare numbers of each list in the list's unit."""
    out = list(found)
    for run in _runs(text, out):
        last, first = out[run[-1]], out[run[0]]
        if _gives_unit(last):
            for i in run[:-1]:
                if _takes_unit(text, out[i]):
                    out[i] = _with_unit(out[i], last)
        elif _gives_unit(first):
            for i in run[1:]:  # a list in a unit written first stops at a count
                if not _takes_unit(text, out[i]):
                    break
                out[i] = _with_unit(out[i], first)
    return out
