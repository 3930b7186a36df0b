"""The executor's statement rule: a statement says what its quote states; who published it belongs
to the source. Its numbers are judged like a report's (for the same year and thing; derived only
where the statement says so)."""

from __future__ import annotations

import pytest

from deepresearch.evidence.judge import missing_numbers
from deepresearch.pipeline.statements import attribution

# (statement, quote, what code finds named that the quote does not name)
STATEMENTS = [
    ("According to VSIA, most 2025 additions came from rounds 1 and 2.", "most additions were from rounds 1 and 2",
     "According to VSIA"),
    ("The NSO states the fleet reached 4.8 GW.", "the fleet reached 4.8 GW", "The NSO states"),
    ("Battery prices fell 14% in 2023, says BNEF.", "prices fell 14% in 2023", "says BNEF"),
    ("Capacity reached 4.8 GW (stats.gov.vl).", "Capacity reached 4.8 GW", "stats.gov.vl"),
    ("VSIA figures include about 0.1 GW of behind-the-meter systems.", "VSIA figures include approximately 0.1 GW",
     ""),  # the quote names VSIA itself
    ("The Act entered into force on 1 May 2023.", "The Act enters into force on 1 May 2023.", ""),
]  # fmt: skip


@pytest.mark.parametrize(("statement", "quote", "named"), STATEMENTS, ids=[s[0][:30] for s in STATEMENTS])
def test_a_publisher_the_quote_does_not_name_is_found(statement: str, quote: str, named: str) -> None:
    assert attribution(statement, quote) == named


def test_a_statement_number_for_another_year_or_an_unsignalled_derivation_is_missing() -> None:
    quote = "Net additions were 1.3 GW in 2024 and 1.4 GW in 2025."
    assert [q.text for q in missing_numbers("Net additions were 1.4 GW in 2024.", [quote])] == ["1.4 GW"]
    assert [q.text for q in missing_numbers("Additions totalled 2.7 GW in 2024-2025.", [quote])] == []
    assert [q.text for q in missing_numbers("Additions were 2.7 GW in 2024-2025.", [quote])] == ["2.7 GW"]
