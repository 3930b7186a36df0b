"""Reading numbers written in prose, and the rule for chart values (the report's rule: evidence/)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepresearch.evidence.cited import Evidence
from deepresearch.evidence.numbers import closest_excerpt, mentions
from deepresearch.figures.point_grounding import _About, point_number
from deepresearch.state.model import Fact


def readings(text: str) -> set[Decimal]:
    return {m.value for m in mentions(text)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,234 units", {"1234", "1.234"}),  # ambiguous: both readings kept
        ("1,234,567 people", {"1234567"}),
        ("1 234 567 people", {"1234567"}),
        ("1\u00a0234 people", {"1234"}),  # no-break space
        ("1\u202f234,5 m³", {"1234.5"}),  # thin space, decimal comma
        ("1.234.567 Einwohner", {"1234567"}),
        ("1,234.5 tonnes", {"1234.5"}),
        ("3,5 Prozent", {"3.5", "0.035"}),  # a German percentage
        ("rose 42%", {"42", "0.42"}),
        ("rose 42 percent", {"42", "0.42"}),
        ("增长１２.５％", {"12.5", "0.125"}),  # full-width digits and percent sign
        ("a change of -3.5 points", {"-3.5"}),
        ("a change of −3.5 points", {"-3.5"}),  # U+2212 minus
        ("COVID-19 in 2019-2020", {"19", "2019", "2020"}),  # hyphens are not minus signs
        ("1.2 million cars", {"1.2", "1200000"}),
        ("$3.4bn in revenue", {"3.4", "3400000000"}),
        ("1.2 billion users", {"1.2", "1200000000"}),
        ("销量达到949.5万辆", {"949.5", "9495000"}),
        ("收入3亿元", {"3", "300000000"}),
        ("version 1.2.3", set()),
    ],
)
def test_numbers_are_read_with_separators_signs_percent_and_scale(text: str, expected: set[str]) -> None:
    assert readings(text) == {Decimal(v) for v in expected}


def drawn(written: str, text: str, unit: str = "", label: str = "") -> bool:
    """Whether a chart value is grounded in a fact that states `text` (the figures' rule, which is
    the report's: evidence/)."""
    fact = Fact("Fact-001", text, ["S01"], quote=text)
    about = _About(label, "", frozenset(), frozenset())
    evidence = Evidence.of_fact(fact.id, fact.statement, fact.quote)
    return any(evidence.stating(b)[0] is not None for b in point_number(written, unit, about))


@pytest.mark.parametrize(
    ("written", "number", "matches"),
    [
        ("40.2", "40.2", True),
        ("3.1", "3.14", True),  # rounded to the chart's precision
        ("3.2", "3.14", False),
        ("3.14", "3.1", False),  # more precise than the source
        ("40", "40.2", True),
        ("41.0", "40.2", False),
        ("40.0", "40.2", False),  # "40.0" claims one decimal
        ("1200000", "1234000", True),  # rounded to 1e5, within 5%
        ("1000", "1234", False),  # rounds, but moves the number by 19%
        ("0", "0.4", False),
        ("0.42", "0.42", True),
        ("2.5", "2.45", True),  # half up
        ("-3.5", "-3.5", True),
    ],
)
def test_rounding_rule(written: str, number: str, matches: bool) -> None:
    assert drawn(written, f"The value was {number} in that year.") is matches


def test_percent_value_matches_with_or_without_the_percent_sign() -> None:
    assert drawn("42", "a share of 42%")
    assert drawn("42", "a share of 42%", unit="%")
    assert not drawn("43", "a share of 42%")
    assert not drawn("42", "a capacity of 42 GW", unit="%")  # a unit the reader knows is kept


def test_scaled_values_match_either_form() -> None:
    assert drawn("1200000", "1.2 million people")
    assert drawn("1.2", "1.2 million people", unit="million")
    assert drawn("9495000", "销量达到949.5万辆")


def test_negative_value_matches_an_unsigned_number_only_when_the_text_says_it_fell() -> None:
    assert drawn("-14", "Battery prices fell 14% in 2023")
    assert drawn("-37.9", "利润下降37.9%")
    assert not drawn("-14", "Battery prices rose 14% in 2023")


def test_a_point_for_a_year_needs_the_number_for_that_year() -> None:
    text = "Sales were 6.6 million in 2021 and 10.5 million in 2022."
    assert drawn("6.6", text, unit="million", label="2021")
    assert not drawn("6.6", text, unit="million", label="2022")


def test_excerpt_shows_the_nearest_number() -> None:
    text = "In 2023 the renewable share of EU electricity generation reached 40.2%, up from 38.5% in 2022."
    excerpt = closest_excerpt("41.0", text)
    assert "40.2%" in excerpt
    assert excerpt.startswith("...")


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=-(10**12), max_value=10**12), st.sampled_from([",", " ", "\u00a0", "\u202f"]))
def test_any_integer_written_with_thousands_separators_is_found(number: int, separator: str) -> None:
    written = f"{abs(number):,}".replace(",", separator)
    fell = " after it fell" if number < 0 else ""
    text = f"The total was {'-' if number < 0 else ''}{written} units{fell}."
    assert drawn(str(number), text)


@settings(max_examples=60, deadline=None)
@given(st.decimals(min_value=-1000, max_value=1000, places=2, allow_nan=False, allow_infinity=False))
def test_any_decimal_matches_itself_and_its_percent_form(value: Decimal) -> None:
    text = f"a change of {value}% last year"
    assert drawn(str(value), text)
    assert drawn(str(value), text, unit="%")
