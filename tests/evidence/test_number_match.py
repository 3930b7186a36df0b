"""Numeric grounding: which numbers of a statement its quote states (or derives), after normalisation."""

from __future__ import annotations

import pytest

from deepresearch.evidence.judge import missing_numbers
from deepresearch.evidence.quantities import quantities

# (statement, quote, the statement's numbers the quote does not ground — as written)
PAIRS: list[tuple[str, str, list[str]]] = [
    # the same number, written differently
    ("Capacity reached 4,800 MW in 2023.", "Installed capacity was 4,800 MW at the end of 2023.", []),
    ("Capacity reached 4.8 GW in 2023.", "Installed capacity was 4,800 MW at the end of 2023.", []),
    ("Capacity reached 4,800 MW.", "Installed capacity was 4.8 gigawatts.", []),
    ("Capacity reached 4.8 GW.", "Installed capacity was 4 800 megawatts.", []),
    ("Capacity reached 4.8 GW.", "Installed capacity was 4.81 GW.", []),  # rounded by the statement
    (
        "Capacity reached 4.81 GW.",
        "Installed capacity was 4.8 GW.",
        ["4.81 GW"],
    ),  # more precise than the source
    ("Capacity reached 5.2 GW.", "Installed capacity was 4.8 GW.", ["5.2 GW"]),
    ("Output rose 12%.", "Output rose by 12 per cent.", []),
    ("Output rose 12 percent.", "Output rose by twelve percent.", []),
    ("Output rose 12%.", "Output rose by 12 GW.", ["12%"]),  # units disagree
    ("Costs fell 3.5%.", "Costs declined by 3,5 percent.", []),  # decimal comma
    ("Revenue was €1.2 billion.", "Revenue reached EUR 1.2bn in 2024.", []),
    ("Revenue was 1.2 billion euros.", "Revenue: €1,200 million.", []),
    ("Revenue was $1.2 billion.", "Revenue: €1.2bn.", ["$1.2 billion"]),  # another currency
    ("The fund holds US$3m.", "The fund holds 3 million US dollars.", []),
    ("Population: 1,234,567.", "A population of 1.234.567 was counted.", []),  # thousands dots
    # a separator followed by three digits, read as the text's other numbers write decimals
    ("The threshold is 2 MW.", "End-2023: 2.1 GW = 2,100 MW.", ["2 MW"]),  # 2,100 is not 2.1 here
    ("The threshold is 2.1 MW.", "The threshold is 2,100 MW.", []),  # (nothing says which it is)
    ("The plant has 2 MW.", "Die Anlage hat 2.100 MW und 4,8 GW.", ["2 MW"]),  # 2.100 is not 2.1 here
    ("About 12 million homes.", "About 12,000,000 homes are connected.", []),
    # ranges
    ("Targets are 4–5 GW.", "The plan targets between 4 and 5 gigawatts.", []),
    ("Targets are 4 to 5 GW.", "The plan targets 4-5 GW.", []),
    ("Targets are 4–6 GW.", "The plan targets between 4 and 5 gigawatts.", ["6 GW"]),
    ("Budget of €4–5 billion.", "A budget of 4 to 5 billion euros.", []),
    ("Sales rose 12% to $4.2 billion.", "Sales grew 12 percent, reaching US$ 4.2bn.", []),  # not a range
    ("Sales rose 12% to $4.2 billion.", "Sales grew 12 percent to 4.2 billion yuan.", ["$4.2 billion"]),
    ("Capacity rose in 2023 to 5 GW.", "Capacity reached 5 GW last year.", []),  # a year, not 2023 GW
    ("Output grew from 2000 to 3000 MW.", "Output reached 3,000 MW.", ["2000"]),  # a range: both MW
    # the example: a forecast whose quote has none of its numbers
    (
        "10 GW by 2025 (low 4 GW, high 14 GW).",
        "The 2019 forecast expects strong growth.",
        ["10 GW", "4 GW", "14 GW"],
    ),
    # derived numbers: growth rates, differences, ratios, sums, shares
    ("Sales grew 25%.", "Sales rose from 4 million units in 2022 to 5 million in 2023.", []),
    ("Sales grew 14.3%.", "Sales rose from 4.2 million to 4.8 million.", []),
    ("Sales grew 14%.", "Sales rose from 4.2 million to 4.8 million.", []),
    ("Sales grew 15%.", "Sales rose from 4.2 million to 4.8 million.", ["15%"]),
    ("Sales rose by 0.6 million.", "Sales rose from 4.2 million to 4.8 million.", []),
    ("Exports were 2.5 times imports.", "Exports reached 50 units against imports of 20 units.", []),
    ("Together they hold 9 GW.", "Park A has 4 GW and park B has 5 GW.", []),
    ("Wind has a 40% share.", "Wind supplied 20 TWh of the 50 TWh generated.", []),
    ("The share rose 3 percentage points.", "The share rose from 12% to 15%.", []),
    # not claims: years, dates, citation IDs, section numbers, list ordinals
    ("In 2024, see Section 3.2 and Table 4 [S01].", "Nothing numeric here.", []),
    ("Most came from auction rounds 2 and 3 [S01].", "Nothing numeric here.", []),  # a list of labels
    ("See Section 3 and 12 projects [S01].", "Nothing numeric here.", ["12"]),  # a count after a label
    ("Fact-003 and COVID-19 were cited on 5 March 2024.", "Nothing numeric here.", []),
    ("1. The first point: 12 regions.", "The survey covered 12 regions.", []),
    # Chinese
    ("装机容量达到48吉瓦。", "截至2023年底，装机容量达到4800万千瓦。", []),
    ("营收增长12%。", "营收同比增长12%。", []),
    ("营收为1.2亿元。", "全年营收达到1.2亿元人民币。", []),
    ("营收为1.5亿元。", "全年营收达到1.2亿元人民币。", ["1.5亿元"]),
    ("出口增长25%。", "出口额从4亿美元增至5亿美元。", []),
    ("份额上升了3个百分点。", "份额从12%升至15%。", []),
    ("见第3章和图2，2024年3月5日发布。", "无数字。", []),
]


@pytest.mark.parametrize(("statement", "quote", "missing"), PAIRS, ids=[p[0][:40] for p in PAIRS])
def test_grounding_table(statement: str, quote: str, missing: list[str]) -> None:
    assert [q.text for q in missing_numbers(statement, [quote])] == missing


def test_the_table_is_large_enough() -> None:
    assert len(PAIRS) >= 30
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in s) for s, _, _ in PAIRS) >= 6


def test_units_are_read_in_their_base() -> None:
    [mw] = quantities("4,800 MW")
    [gw] = quantities("4.8 GW")
    assert {r.value for r in mw.readings} & {r.value for r in gw.readings}
    assert mw.dimension == gw.dimension == "W"


def test_not_claims_are_left_out_but_evidence_reads_everything() -> None:
    text = "In 2024 (see § 4 and Figure 2) output [12] rose twelve percent."
    assert quantities(text) == []
    assert {q.text for q in quantities(text, claims_only=False)} >= {"2024", "twelve percent"}
