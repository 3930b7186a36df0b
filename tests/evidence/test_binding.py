"""What a number of a fact is about: its words come from its own group of clauses."""

from __future__ import annotations

from deepresearch.evidence.binding import bind_row, bind_text

# A fact of the real-model fixture (../shared/fixtures/real-report-en, Fact-011), two items apart at `;`.
PIPELINE = (
    "Under construction at 31 December 2025 - 2.3 GW in 29 projects (not operational); a further 3.9 GW in "
    "47 projects was permitted but not started (pipeline total 6.2 GW)."
)


def _terms(text: str) -> dict[str, frozenset[str]]:
    return {b.quantity.text: b.terms for b in bind_text(text, origin="Fact-011", whole=True)}


def test_a_semicolon_ends_an_items_words() -> None:
    terms = _terms(PIPELINE)
    assert "construction" in terms["2.3 GW"]
    assert "construction" not in terms["3.9 GW"]  # the permitted projects are not under construction
    assert {"further", "permitt"} <= terms["3.9 GW"]


def test_and_or_but_end_an_items_words_unless_a_number_follows() -> None:
    terms = _terms("In the north 2.3 GW was built, but in the south operators permitted 3.9 GW.")
    assert "north" not in terms["3.9 GW"] and "south" in terms["3.9 GW"]
    # `cites 3.4 GW (2024) and 2.1 GW (2023)`: a list, one group
    listed = _terms("The bulletin cites 3.4 GW (2024) and 2.1 GW (2023).")
    assert "bulletin" in listed["2.1 GW"]


def test_a_table_rows_party_is_an_acronym_of_its_label_cells_not_a_unit_nor_a_citation() -> None:
    [cell] = bind_row(
        [" 4.9 GW ", " VSIA [S03] ", " Scope, in MWh and EUR [S05] "], ["Figure", "Source", "Why"]
    )
    assert cell.party == frozenset({"vsia"})
    [plain] = bind_row([" 4.9 GW ", " The association [S03] "], ["Figure", "Source"])
    assert plain.party == frozenset()
