"""What a fact's statement may say beyond its quote: nothing but the quote's content and simple
arithmetic of its numbers. Who published it belongs to the source (its title and URL), not the
statement.

Code checks the part it can: a statement that names a web address, or attributes itself to a
publisher (`According to VSIA, ...`, `The NSO reports ...`, `..., says the Ministry`) that its quote
does not name, goes back to the executor once, named at its line. Its numbers are checked by
pipeline/fact_grounding.py.
"""

from __future__ import annotations

import re

_ADDRESS = re.compile(
    r"\b(?:https?://\S+|www\.\S+|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|gov|edu|int|eu|io|info)(?:\.[a-z]{2})?)\b",
    re.I,
)
_NAME = r"(?P<name>(?:the\s+)?[A-Z][\w&.'’-]*(?:\s+(?:of\s+|for\s+|and\s+)?[A-Z][\w&.'’-]*){0,5})"
_ATTRIBUTIONS = (
    re.compile(rf"\b(?i:according to) {_NAME}"),
    re.compile(
        rf"^{_NAME}(?:'s?|’s?)?\s+(?:\([^)]*\)\s+)?(?:says|said|reports|reported|states|stated|estimates|estimated|writes|wrote|publishes|published|notes|noted|finds|found|claims|claimed)\b"
    ),
    re.compile(rf",\s+(?:says|said|reports|reported|writes|wrote|notes|noted)\s+{_NAME}\s*[.;]?$"),
)


def attribution(statement: str, quote: str) -> str:
    """The publisher or address a statement names that its quote does not ("" when there is none)."""
    address = next(
        (m.group() for m in _ADDRESS.finditer(statement) if m.group().lower() not in quote.lower()), ""
    )
    if address:
        return address
    for pattern in _ATTRIBUTIONS:
        match = pattern.search(statement)
        if not match:
            continue
        name = re.sub(r"^the\s+", "", match.group("name"), flags=re.I).strip(" .,'’")
        if name and name.lower() not in quote.lower():
            return match.group().strip(" ,.;")
    return ""
