"""Number formats of English, Chinese, Japanese, German, French and Spanish: a quote in one language
grounds a statement in another (evidence/numbers.py, units.py, quantities.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from deepresearch.evidence.cited import Evidence
from deepresearch.evidence.judge import missing_numbers
from deepresearch.evidence.quantities import quantities
from deepresearch.figures.point_grounding import _About, point_number

# (statement, quote in another language, the statement's numbers the quote does not ground)
ROWS: list[tuple[str, str, list[str]]] = [
    # German: decimal comma, thousands dots, Mio./Mrd./Milliarden, Billion = 10¹², Prozent
    ("Capacity reached 4.8 GW.", "Die installierte Leistung erreichte 4,8 GW.", []),
    ("Capacity reached 4.9 GW.", "Die installierte Leistung erreichte 4,8 GW.", ["4.9 GW"]),
    ("Revenue was €4.8 billion.", "Der Umsatz lag bei 4,8 Mrd. Euro.", []),
    ("Revenue was €4.8 billion.", "Der Umsatz stieg auf 4,8 Milliarden Euro.", []),
    ("Sales reached 1.2 million units.", "Der Absatz erreichte 1,2 Mio. Stück.", []),
    ("The population was 1,234,567.", "Die Bevölkerung betrug 1.234.567 Personen.", []),
    ("Output was 12,345.6 MWh.", "Die Erzeugung betrug 12.345,6 MWh.", []),
    ("Generation was 1.3 TWh.", "Die Erzeugung betrug 1.300 Gigawattstunden.", []),
    ("Debt reached €2.5 trillion.", "Die Schulden erreichten 2,5 Billionen Euro.", []),
    ("Debt reached €2.5 billion.", "Die Schulden erreichten 2,5 Billionen Euro.", ["€2.5 billion"]),
    ("Debt reached €1 trillion.", "Die Schulden des Bundes erreichten 1 Billion Euro.", []),
    ("The share rose to 12.5%.", "Der Anteil stieg auf 12,5 Prozent.", []),
    ("The share rose 3 percentage points.", "Der Anteil stieg um 3 Prozentpunkte.", []),
    ("Around 35 thousand jobs.", "Rund 35 Tsd. Arbeitsplätze.", []),
    ("Prices are CHF 1,234,567.", "Der Preis beträgt 1'234'567 Franken.", []),
    # French: spaces (thin, narrow no-break) between thousands, milliards, M€, Md€, billion = 10¹²
    ("Capacity reached 4.8 GW.", "La capacité installée a atteint 4,8 GW.", []),
    ("The market was worth €2.3 billion.", "Le marché a atteint 2,3 milliards d'euros.", []),
    ("Sales were 1.25 million.", "Les ventes ont atteint 1,25 million d'unités.", []),
    ("Population: 1,234,567.", "Une population de 1\u202f234\u202f567 habitants.", []),
    ("Population: 1,234,567.", "Une population de 1\u2009234\u2009567 habitants.", []),
    ("The budget is €12.5 million.", "Le budget est de 12,5 M€.", []),
    ("The budget is €3.2 billion.", "Le budget est de 3,2 Md€.", []),
    ("The rate was 12.5%.", "Le taux était de 12,5\u202f%.", []),
    ("The rate was 12.5%.", "Le taux était de 12,5 pour cent.", []),
    ("Debt reached €3 trillion.", "La dette a atteint 3 billions d'euros.", []),
    ("Debt reached €3 billion.", "La dette a atteint 3 billions d'euros.", ["€3 billion"]),
    # Spanish: millones, mil millones (10⁹), billones (10¹²), por ciento, mil
    ("Output reached 4.8 million tonnes.", "La producción alcanzó 4,8 millones de toneladas.", []),
    ("Revenue was $2.5 billion.", "Los ingresos fueron de 2.500 millones de dólares.", []),
    ("Revenue was $2.5 billion.", "Los ingresos fueron de 2,5 mil millones de dólares.", []),
    ("Revenue was $2.5 billion.", "Los ingresos fueron de 2,5 millones de dólares.", ["$2.5 billion"]),
    ("Public debt was €1.5 trillion.", "La deuda pública fue de 1,5 billones de euros.", []),
    ("Unemployment was 11.2%.", "El desempleo fue del 11,2 por ciento.", []),
    ("About 35,000 jobs.", "Unos 35 mil empleos.", []),
    # Chinese: 万, 亿, 億 (traditional), 兆 (10¹²), 万千瓦, 多 ("more than")
    ("Exports reached 4.8 GWh.", "出口量达到4.8吉瓦时。", []),
    ("Sales reached 3.5 million units.", "销量达到350万辆。", []),
    ("Sales reached 3.6 million units.", "销量达到350万辆。", ["3.6 million"]),
    ("Revenue was 120 million yuan.", "营收为1.2亿元。", []),
    ("Revenue was 120 million yuan.", "營收為1.2億元。", []),
    ("Capacity reached 120 GW.", "装机容量达到1.2亿千瓦。", []),
    ("Deposits reached 2.5 trillion yuan.", "存款達到2.5兆元。", []),
    ("About 35,000 people attended.", "约3.5万人参加。", []),
    ("There are over 3 million public chargers.", "全国公共充电桩300多万台。", []),
    ("The population was 125 million.", "人口为1亿2500万。", []),
    # Japanese: 億, 兆, compounds (1兆2000億円), 円, ギガワット時, パーセント, 万kW
    ("Sales were 1.2 trillion yen.", "売上高は1兆2000億円だった。", []),
    ("Sales were 1.3 trillion yen.", "売上高は1兆2000億円だった。", ["1.3 trillion yen"]),
    ("Revenue was 350 billion yen.", "売上高は3500億円。", []),
    ("The population is 125 million.", "人口は1億2500万人である。", []),
    ("Shipments reached 4.8 GWh.", "出荷量は4.8ギガワット時に達した。", []),
    ("The share rose to 12.5%.", "シェアは12.5パーセントに上昇した。", []),
    ("Capacity was 4.8 GW.", "容量は480万kWだった。", []),
    # the other way: an English quote grounds a statement in another language
    ("Die Leistung erreichte 4,8 GW.", "Capacity reached 4.8 GW.", []),
    ("Le marché a atteint 2,3 milliards d'euros.", "The market reached €2.3 billion.", []),
    ("营收为1.2亿美元。", "Revenue was $120 million.", []),
    ("売上高は3500億円。", "Revenue was 350 billion yen.", []),
    ("La producción alcanzó 4,8 millones de toneladas.", "Output reached 4.8 million tonnes.", []),
]


@pytest.mark.parametrize(
    ("statement", "quote", "missing"), ROWS, ids=[r[0][:30] + " | " + r[1][:20] for r in ROWS]
)
def test_grounding_across_languages(statement: str, quote: str, missing: list[str]) -> None:
    assert [q.text for q in missing_numbers(statement, [quote])] == missing


def test_billion_is_read_by_the_text_language() -> None:
    english, german = quantities("Debt reached 1 billion euros."), quantities("Die Schulden: 1 Billion Euro.")
    assert [r.value for r in english[0].readings] == [Decimal("1e9")]
    assert [r.value for r in german[0].readings] == [Decimal("1e12")]
    # a caller that knows the language says so
    assert [r.value for r in quantities("1 billion euros", language="fr")[0].readings] == [Decimal("1e12")]


def test_a_compound_is_one_quantity_and_keeps_its_unit() -> None:
    [total] = quantities("売上高は1兆2000億円だった。")
    assert total.dimension == "JPY" and total.text == "1兆2000億円"
    assert [r.value for r in total.readings] == [Decimal("1.2e12")]


def drawn(value: str, unit: str, text: str) -> bool:
    """Whether a chart point `value` in `unit` is grounded in a fact stating `text` (the figures'
    reader, which is the report's)."""
    about = _About("", "", frozenset(), frozenset())
    evidence = Evidence.of_fact("Fact-001", text, text)
    return any(evidence.stating(b)[0] is not None for b in point_number(value, unit, about))


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        ("4.8", "", "Die Leistung erreichte 4,8 Mrd. Euro."),
        ("4.8", "bn EUR", "Die Leistung erreichte 4,8 Mrd. Euro."),
        ("4800000000", "EUR", "Die Leistung erreichte 4,8 Milliarden Euro."),
        ("2300000000", "", "Le marché a atteint 2,3 milliards d'euros."),
        ("2500000000", "USD", "Los ingresos fueron de 2,5 mil millones de dólares."),
        ("350000000000", "円", "売上高は3500億円。"),
        ("12.5", "%", "Der Anteil stieg auf 12,5 Prozent."),
        ("12.5", "%", "Le taux était de 12,5 pour cent."),
        ("1234567", "", "Der Preis beträgt 1'234'567 Franken."),
    ],
)
def test_chart_values_are_found_in_other_languages(value: str, unit: str, text: str) -> None:
    assert drawn(value, unit, text)


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        ("4.9", "bn EUR", "Die Leistung erreichte 4,8 Mrd. Euro."),
        ("4.8", "EUR", "Die Leistung erreichte 4,8 Mrd. Euro."),  # 4.8 euros is not 4.8 billion
        ("12.6", "%", "Der Anteil stieg auf 12,5 Prozent."),
        ("2300000000", "USD", "Le marché a atteint 2,3 milliards d'euros."),
    ],
)
def test_chart_values_in_other_languages_are_not_found_when_they_differ(
    value: str, unit: str, text: str
) -> None:
    assert not drawn(value, unit, text)


def test_the_table_covers_every_language() -> None:
    quotes = " ".join(quote for _s, quote, _m in ROWS)
    for marker in ("Mrd.", "milliards", "millones", "億", "亿", "兆", "万", "\u202f", "\u2009", "Prozent"):
        assert marker in quotes, marker
