"""ungrounded_number: each number of the report must be stated, for the same thing, by a fact of the
sources cited where it is stated (its sentence, or its table row with its header and caption), or be
derived where the sentence says so."""

from __future__ import annotations

import pytest

from deepresearch.report.blocks import body_blocks
from deepresearch.report.check import check_report
from deepresearch.report.number_check import explanation, judge_numbers, number_violations
from deepresearch.state.model import Conflict, Fact, FrontMatter, Source, Support, TaskDoc, Verified
from tests.report.conftest import Run

# Facts of an energy statistics bulletin (S01), a grid operator (S02), an industry body (S03) and a
# ministry (S04); S05 states nothing numeric.
FACTS = [
    ("Fact-001", "Net additions were 0.3 GW in 2022, 0.9 GW in 2023, 1.3 GW in 2024 and 1.4 GW in 2025.", "S01"),
    ("Fact-002", "Year-end 2024 fleet was 3.4 GW / 7.6 GWh in 61 installations.", "S01"),
    ("Fact-003", "Year-end 2025 fleet was 4.8 GW / 11.5 GWh in 87 installations.", "S01"),
    ("Fact-004", "At end-2025, 34 transmission-connected installations totalled 3.1 GW and "
                 "distribution-connected installations 1.7 GW (53 installations).", "S01"),
    ("Fact-005", "The Northern Region held 1.9 GW (40%) at end-2025 (Central 1.6 GW, Southern 1.3 GW).", "S01"),
    ("Fact-006", "Battery revenue rose from EUR 95m (2022) to EUR 180m (2023) and EUR 310m (2024).", "S02"),
    ("Fact-007", "Total ancillary spend was EUR 340m in 2022 and EUR 520m in 2024.", "S02"),
    ("Fact-008", "The industry counts 4.9 GW installed at end-2025.", "S03"),
    ("Fact-009", "Round 1 (September 2023) awarded 0.7 GW; round 2 (May 2024) awarded 0.9 GW.", "S04"),
    ("Fact-010", "The strategy describes the connection queue.", "S05"),
    # a charging registry (S06): columns of one table, a list with a bracket per item
    ("Fact-011", "DC points (50-149 kW): 1,900 in 2021, 3,800 in 2023 and 4,900 in 2024.", "S06"),
    ("Fact-012", "High-power points (150 kW and more): 600 in 2021, 2,100 in 2023 and 3,300 in 2024.", "S06"),
    ("Fact-013", "Points at the end of 2025 by region: Capital 17,900 (290 per 100,000 residents), "
                 "North 6,100 (105).", "S06"),
    ("Fact-014", "NCPA members installed 2,900 new high-power connectors in 2025.", "S06"),
    ("Fact-015", "The industry expects 1.5-2.0 GW to be commissioned in 2026.", "S03"),
    # the bulletin's split (S07): only the second item's bracket says `installations`
    ("Fact-016", "End-2025 split: 3.1 GW / 7.5 GWh (34 installations) on the transmission network; 1.7 GW / "
                 "4.0 GWh (53 installations) on distribution networks.", "S07"),
    # a bulletin's table row, quoted (S08): its bare cells are the statement's numbers
    ("Fact-017", "NSO, end-2022: 1.2 GW; net additions 0.3 GW.", "S08"),
    ("Fact-018", "The bulletin reports the fleet's latest yearly increase.", "S09"),
    ("Fact-019", "End-2022: 1.2 GW = 1,200 MW; 2.3 GWh. YoY: MW +33%, MWh +44%.", "S10"),
    # a pipeline (S11): two items of one sentence, apart at `;`
    ("Fact-020", "Storage projects: 2.3 GW under construction; a further 3.9 GW permitted.", "S11"),
    # a grid note (S12): a sum written out, and a peak in a bracket after the words it is about
    ("Fact-021", "Pipeline (not operational): 6.2 GW total = 2.3 GW under construction + 3.9 GW permitted.", "S12"),
    ("Fact-022", "Grid note: battery discharge peaked at 2.9 GW during the January demand peak (9.3 GW).", "S12"),
    ("Fact-023", "In 2025 the discharge record was 2.9 GW and the demand record 9.3 GW.", "S13"),
    # a grid operator's spend (S14): the item after `;` has words of its own
    ("Fact-024", "Total grid spend was EUR 340m (2022) and EUR 520m (2024); battery revenue (EUR 310m in 2024) rose.", "S14"),
    ("Fact-025", "The operators' survey had a 97% response; capacity uncertainty is about ±3%.", "S15"),
    ("Fact-026", "The average site size (derived) is about 91 MW on transmission and about 32 MW on distribution.", "S15"),
    ("Fact-027", "Fleet survey: a 97% response; fleet capacity uncertainty about ±3%.", "S16"),
    ("Fact-028", "In 2024 total grid spend was EUR 520m; battery revenue was 310m.", "S17"),
    ("Fact-029", "The 2025 demand peak of 9.3 GW was 2.2% above 2024.", "S18"),
    # an outlook (S19): a projection's scenarios, and the outturn as an item of its own
    ("Fact-030", "The 2019 outlook's base case projected 10 GW by 2025 (low case 4 GW, high 14 GW), while "
                 "the bulletin recorded 4.8 GW at end-2025.", "S19"),
    # a 2019 study (S21): its low case, and the outturn it is compared with
    ("Fact-032", "The 2019 study's low case projected 4 GW by 2025; the 4.8 GW outturn came close to the low case.",
     "S21"),
    ("Fact-031", "Average duration rose from 1.8 h in 2021 to 2.4 h in 2025, which the bulletin links to the "
                 "auctions' minimum 2-hour requirement.", "S20"),
    # a pipeline told in two facts (S22): only the second names the first item's words by its number
    ("Fact-033", "Storage projects: 2.3 GW in 29 projects was under construction at end-2025; a further "
                 "3.9 GW in 47 projects was permitted.", "S22"),
    ("Fact-034", "Storage pipeline at end-2025: 2.3 GW was under construction.", "S22"),
    # an industry body's counts (S23, published at ncpa.example): its name is in every fact
    ("Fact-035", "NCPA members operated 71,500 public connectors at the end of 2025 and 60,200 a year "
                 "earlier; a point often carries two or three connectors.", "S23"),
    ("Fact-036", "NCPA members installed 2,900 new high-power connectors in 2025.", "S23"),
    # a register's additions by year and its fleet (S24)
    ("Fact-037", "Official net additions of operational grid-scale battery power capacity were 0.3 GW in "
                 "2022, 0.9 GW in 2023 and 1.4 GW in 2025.", "S24"),
    ("Fact-038", "Year-end 2025 fleet was 4.8 GW in 87 installations.", "S24"),
    # a ministry's contracts (S25): every fact speaks of availability payments at full operation
    ("Fact-039", "At full operation, the contracts imply annual availability payments of about EUR 135 million "
                 "a year (0.7 GW x 58,400 EUR/MW/yr = about EUR 40.9m for round 1).", "S25"),
    ("Fact-040", "Availability payments at full operation are set per MW per year in each contract.", "S25"),
    ("Fact-041", "Round 1 availability payments start at full operation of each contract.", "S25"),
    ("Fact-042", "Full operation of all contracts brings availability payments to their peak.", "S25"),
    # a government target (S26)
    ("Fact-043", "The government targets 8 GW by 2030.", "S26"),
    # a grid operator's spend by year (S30): three totals and three shares, each list in year order
    ("Fact-060", "The operator's total ancillary spend was EUR 340m (2022), EUR 410m (2023) and EUR 520m "
                 "(2024); battery operators' share rose from about 28% to 44% to 60%.", "S30"),
    ("Fact-061", "Gas's share of the ancillary market fell from about 47% to about 23%.", "S30"),
    # a price series by year and revenues by year (S31)
    ("Fact-062", "Average pack prices were 210 EUR/kWh (2022), 178 EUR/kWh (2023), 152 EUR/kWh (2024) and "
                 "130 EUR/kWh (2025).", "S31"),
    ("Fact-063", "Battery operators' revenue was EUR 95m in 2022 and EUR 310m in 2024.", "S31"),
    # auction rounds and their total (S32)
    ("Fact-064", "Round 3 awarded 1.0 GW to 16 projects in February 2025.", "S32"),
    ("Fact-065", "The auction rounds under the Act: total 2.6 GW / 41 projects.", "S32"),
    # a charging registry's table (S33), quoted by row; a bulletin's yearly growth by unit (S34)
    ("Fact-066", "AC points (up to 22 kW): 25,900 in 2023 and 31,300 in 2024.", "S33"),
    ("Fact-067", "DC points (50-149 kW): 3,800 in 2023 and 4,900 in 2024.", "S33"),
    # a grid event (S35): two losses and their total; the load shed after
    ("Fact-069", "In the 14 Nov 2022 event, the combined loss of North Link (1,050 MW) and Harlow Bay (410 MW), "
                 "1,460 MW in total, exceeded the largest infeed loss secured against.", "S35"),
    ("Fact-070", "In the 14 Nov 2022 event, load shedding disconnected about 1,600 MW of demand.", "S35"),
    # an operator's spend by provider (S36): the changes 2022-2024, rises and falls, and their net sum
    ("Fact-071", "Changes in ancillary spend over 2022-2024 (EUR m): batteries +215m, gas -40m, hydro -10m = "
                 "+180m net rise.", "S36"),
    # a pipeline and its total (S37), and a blog's figure for it
    ("Fact-072", "Pipeline at end-2025: 2.3 GW in 29 projects under construction, 3.9 GW in 47 projects "
                 "permitted, 6.2 GW in total.", "S37"),
    ("Fact-073", "A blog post reported 3.1 GW permitted at end-2025.", "S37"),
    # points by region (S38): a count and a density per region
    ("Fact-074", "Public points at the end of 2025 by region: Capital 17,900 (290 per 100,000 residents), "
                 "North 6,100 (105), Coast 11,400 (180).", "S38"),
    ("Fact-068", "End-2025: 4.8 GW = 4,800 MW; 11.5 GWh = 11,500 MWh. YoY: MW +41% (stated), MWh +51% (computed).",
     "S34"),
    # an institute's outlook (S40): its scenarios, a target that is none of them, and what its base case
    # assumed
    ("Fact-080", "The institute's 2019 base case projected 10 GW by 2025 (low case 4 GW, high case 14 GW).", "S40"),
    ("Fact-081", "The target adopted in 2024 was 8 GW by 2030.", "S40"),
    ("Fact-082", "The base case assumed pack prices below 100 EUR/kWh by 2023.", "S40"),
    # an industry body (S41) that sets its count against the statistics office's, and the office (S42)
    ("Fact-085", "The association reports 4.9 GW installed at end-2025 versus NSO's 4.8 GW.", "S41"),
    ("Fact-086", "Operational capacity at end-2025 was 4.8 GW.", "S42"),
    # a forecaster's range (S43), and the top of the figures in circulation
    ("Fact-087", "The forecaster's central case was about 4.5 GW for 2025 (range 3.8-5.2 GW).", "S43"),
    # a register's first year (S44): a level, and no change figure for it
    ("Fact-089", "Year-end 2021 fleet was 0.9 GW in 14 installations, with no net-additions figure because "
                 "the series starts in 2021.", "S44"),
    # a grid event (S45): a plant's unit named by its number
    ("Fact-090", "North Link (1,050 MW) and Harlow Bay unit 2 (410 MW) tripped; frequency fell to 48.85 Hz.", "S45"),
    # a pipeline for a year (S46)
    ("Fact-091", "Pipeline at end-2025 (not operational): 6.2 GW total = 2.3 GW under construction + 3.9 GW "
                 "permitted.", "S46"),
    ("Fact-088", "The figures in circulation for 2025 range up to a market page's 9.9 GW.", "S43"),
    # a network by year (S47)
    ("Fact-092", "The network grew from 48 stations in 2022 to 72 stations at the end of 2024.", "S47"),
    # an outlook's assumption, a bound, and the outturn (S48); the outturn alone (S49)
    ("Fact-093", "The 2019 base case assumed pack prices below 100 EUR/kWh by 2023.", "S48"),
    ("Fact-095", "The outturn pack price was 178 EUR/kWh in 2023.", "S48"),
    ("Fact-094", "The average pack price was 178 EUR/kWh in 2023.", "S49"),
    # an office's note on how it counts (S50): one count, and the rides it leaves out
    ("Fact-096", "The Transport Office's 760,000 trips count customer rides only; staff made 38,100 further "
                 "rides moving bikes.", "S50"),
    # a blog's claim (S51) and an industry body's forecast range (S52)
    ("Fact-097", "A blog claims 250,000 heat pumps were installed in 2025, a record.", "S51"),
    ("Fact-098", "Members expect sales of 230,000 to 250,000 heat pumps in 2026 (a forecast).", "S52"),
    ("Fact-099", "A review of 40 field studies found heat pumps cut heating emissions.", "S53"),
    # a level at one year-end, and what it implies for the years before it as a whole (S54)
    ("Fact-100", "Year-end 2021 fleet was 0.9 GW in 14 installations.", "S54"),
    ("Fact-101", "An end-2018 estimate implies roughly 0.6 GW added over 2019-2021 combined.", "S54"),
    # an auction round (S55): its award, and the bids for the volume it offered
    ("Fact-102", "Round 3 awarded 1.0 GW to 16 projects in February 2025.", "S55"),
    ("Fact-103", "In round 3, bids totalling 2.9 GW were submitted for an indicative volume of 1.0 GW.", "S55"),
    ("Fact-104", "The three rounds contracted 2.6 GW in total.", "S55"),
    # a provider's revenues by year (S57)
    ("Fact-106", "Demand response earned EUR 15m (2022), EUR 25m (2023) and EUR 30m (2024).", "S57"),
    # a price series and two falls, each over its own years (S58)
    ("Fact-107", "Average pack prices were 210 EUR/kWh (2022) and 130 EUR/kWh (2025).", "S58"),
    ("Fact-108", "Pack prices fell 38% over 2022-2025, while the auction clearing price fell 19% in 2024.", "S58"),
    # a programme's total against the floor its act set (S56)
    ("Fact-105", "The 2.6 GW contracted across the three rounds exceeded the Act's floor of at least 2.4 GW by "
                 "0.2 GW.", "S56"),
    # an operator's total spend by year and its battery operators' part, a list written with its scale once
    ("Fact-109", "The operator's total ancillary spend was EUR 340m (2022), EUR 410m (2023) and EUR 520m "
                 "(2024); battery operators' share (95/180/310m) rose.", "S59"),
    # an operator's revenue by year (S60), and the revenue per MW it is divided into, its division written out
    ("Fact-110", "Battery revenue per MW of fleet was about EUR 90k/MW-yr in 2022 (95m / ~1.05 GW) and ~109k in "
                 "2023 (180m / ~1.65 GW).", "S60"),
    ("Fact-111", "Battery operators' revenues were EUR 95m (2022) and EUR 180m (2023).", "S60"),
]  # fmt: skip
QUOTES = {
    "Fact-066": "| 2024 | 39,500 | 31,300 | 4,900 | 3,300 |",
    "Fact-017": "| 2022 | 1.2 | 0.3 |",
    "Fact-018": "The fleet grew from 3.4 GW at the end of 2024 - an increase of 1.4 GW in one year.",
    "Fact-022": "Battery storage discharged up to 2.9 GW during the evening peak.",
    "Fact-035": "Our members operated 71,500 public connectors at the end of 2025, against 60,200 a year earlier.",
    "Fact-036": "Members installed 2,900 new high-power connectors in 2025.",
}
URLS = {"S23": "https://ncpa.example/network-2025"}  # the others: example.org, which names no publisher
KINDS = {"S51": "blog", "S53": "peer-reviewed"}  # the others: of unknown kind


def _doc() -> TaskDoc:
    facts = [
        Fact(fid, text, [src], quote=QUOTES.get(fid, ""), verified=Verified.YES) for fid, text, src in FACTS
    ]
    ids = [f"S{i:02d}" for i in range(1, 61)]
    sources = [
        Source(s, f"Source {s}", URLS.get(s, f"https://example.org/{s}"), KINDS.get(s, "unknown"))
        for s in ids
    ]
    # the reflector's words about a conflict name a count no source gives; its weights are code's
    conflict = Conflict(
        "CONF-1", "End-2025 capacity", ["Fact-003", "Fact-008"], preferred="Fact-003",
        resolution="The industry adds about 5 behind-the-meter sites. — evidence weight: Fact-003 W=1.00, "
        "Fact-008 W=0.88; Fact-003 preferred, margin 0.12",
    )  # fmt: skip
    return TaskDoc(FrontMatter(id="r", question="q"), facts=facts, sources=sources, conflicts=[conflict])


def _ungrounded(report: str, doc: TaskDoc | None = None) -> list[str]:
    return [j.bound.text for j in judge_numbers(body_blocks(report), doc or _doc()) if not j.grounded]


# (what the row shows, the report, the numbers it states that are not grounded)
TABLE: list[tuple[str, str, list[str]]] = [
    ("stated, in another unit", "The fleet reached 4,800 MW at end-2025 [S01].", []),
    ("wrong year", "Net additions were 1.4 GW in 2024 [S01].", ["1.4 GW"]),
    ("right year", "Net additions were 1.3 GW in 2024 [S01].", []),
    ("wrong year in a table row",
     "| Year | Net additions |\n| --- | --- |\n| 2024 | 1.4 GW [S01] |\n| 2025 | 1.4 GW [S01] |\n", ["1.4 GW"]),
    ("wrong row: another region's figure",
     "| Region | Capacity at end-2025 |\n| --- | --- |\n| Northern | 1.6 GW [S01] |\n| Central | 1.6 GW [S01] |\n",
     ["1.6 GW"]),
    ("wrong category",
     "At end-2025, 34 transmission-connected installations held 1.7 GW, and 53 distribution-connected "
     "installations held 1.7 GW [S01].", ["1.7 GW"]),
    ("right categories",
     "At end-2025, 34 transmission-connected installations held 3.1 GW, and 53 distribution-connected "
     "installations held 1.7 GW [S01].", []),
    ("wrong category, named by a word its item shares with every item",
     "At end-2025, transmission-connected installations held 1.7 GW and distribution-connected "
     "installations 3.1 GW [S01][S07].", ["1.7 GW", "3.1 GW"]),
    ("right categories, named by a word their item shares with every item",
     "At end-2025, transmission-connected installations held 3.1 GW and distribution-connected "
     "installations 1.7 GW [S01][S07].", []),
    ("a level is not stated by an addition",
     "| Year | Fleet |\n| --- | --- |\n| 2025 | 1.4 GW [S01] |\n", ["1.4 GW"]),
    ("a quoted row's cell that the statement gives as an addition is not a level",
     "| Year | Fleet |\n| --- | --- |\n| 2022 | 0.3 GW [S08] |\n", ["0.3 GW"]),
    ("a quoted row's cells as the statement gives them",
     "| Year | Fleet | Net additions |\n| --- | --- | --- |\n| 2022 | 1.2 GW [S08] | 0.3 GW [S08] |\n", []),
    ("a change is not for the year where it started", "The fleet grew by 1.4 GW in 2024 [S09].", ["1.4 GW"]),
    ("a change with where it started",
     "The fleet grew from 3.4 GW at the end of 2024, an increase of 1.4 GW [S09].", []),
    ("wrong column: a unit without a number names what is measured (MW +33%, MWh +44%)",
     "| Year | Power growth | Energy growth |\n| --- | --- | --- |\n| 2022 | +44% [S10] | +33% [S10] |\n",
     ["44%", "33%"]),
    ("right columns: MW +33% is power's growth, MWh +44% energy's",
     "| Year | Power growth | Energy growth |\n| --- | --- | --- |\n| 2022 | +33% [S10] | +44% [S10] |\n", []),
    ("a growth rate from last year's row of another column",
     "| Year | Power | Energy | Power growth | Energy growth |\n| --- | --- | --- | --- | --- |\n"
     "| 2024 | 3.4 GW [S01] | 7.6 GWh [S01] | - | - |\n| 2025 | 4.8 GW [S01] | 11.5 GWh [S01] | +51% | +51% |\n",
     ["51%"]),
    ("growth rates from last year's row of their own columns",
     "| Year | Power | Energy | Power growth | Energy growth |\n| --- | --- | --- | --- | --- |\n"
     "| 2024 | 3.4 GW [S01] | 7.6 GWh [S01] | - | - |\n| 2025 | 4.8 GW [S01] | 11.5 GWh [S01] | +41% | +51% |\n",
     []),
    ("a derivation the sentence signals",
     "Battery revenue rose by EUR 215m between 2022 and 2024, from EUR 95m to EUR 310m [S02].", []),
    ("a change derived from two years' levels, given for the earlier year",
     "The fleet added 26 installations in 2024, reaching 87 at end-2025 [S01].", ["26"]),
    ("a change derived from two years' levels, given for the span between them",
     "The fleet added 26 installations between end-2024 and end-2025, reaching 87 [S01].", []),
    ("a derivation the sentence does not signal",
     "Battery revenue was EUR 215m, EUR 95m in 2022 and EUR 310m in 2024 [S02].", ["EUR 215m"]),
    ("a wrong figure for a thing a fact gives, though arithmetic of others would make it",
     "Net additions were 0.6 GW in 2023, after 0.3 GW in 2022 [S01].", ["0.6 GW"]),
    ("a change of the sentence's figures, made one by the words right by it",
     "Net additions rose from 0.3 GW in 2022 to 0.9 GW in 2023, 0.6 GW more [S01].", []),
    ("a change from a year's level: a later level less that year's",
     "Reaching 8 GW by 2030 needs about +3.2 GW from the end-2025 level [S01][S26].", []),
    ("a change from a year's level is not the sum of that year's and earlier changes",
     "Reaching 8 GW by 2030 needs about +2.7 GW from the end-2025 level, in total (derived) [S01][S26].",
     ["2.7 GW"]),
    ("a change for one year is not the sum of other years' changes",
     "Derived from the bulletin, the fleet grew by 0.3 GW in 2022 and +1.6 GW in 2024 [S01].", ["1.6 GW"]),
    ("a change over a span of years: the sum of its years' changes",
     "Derived from the bulletin, the fleet grew by 0.3 GW in 2022 and +1.6 GW in 2022-2024 [S01].", []),
    ("a difference with a cited number about another number's words of the sentence, not the claim's",
     "Transmission-connected installations numbered 34, and the fleet's net additions 19 [S01].", ["19"]),
    ("a difference with a cited number about the claim's own words",
     "Transmission-connected installations numbered 34, and distribution-connected installations 19 more [S01].",
     []),
    ("a per cent not written as a change is no growth rate",
     "Battery revenue was EUR 95m in 2022 and EUR 180m in 2023, a share of 89% (derived) [S02].", ["89%"]),
    ("a per cent written as a change may be a growth rate",
     "Battery revenue was EUR 95m in 2022 and EUR 180m in 2023, a rise of 89% (derived) [S02].", []),
    ("a compound growth rate over more years than lie between its two numbers",
     "Battery revenue rose from EUR 95m (2022) to EUR 180m (2023) and EUR 310m (2024), about 38% a year [S02].",
     ["38%"]),
    ("a compound growth rate over the years between its two numbers",
     "Battery revenue rose from EUR 95m (2022) to EUR 180m (2023) and EUR 310m (2024), about 81% a year [S02].",
     []),
    ("a change whose words name no difference is no difference of two changes",
     "The fleet's expansion: +0.3 GW in 2022, +0.6 GW in 2023 [S01].", ["0.6 GW"]),
    ("a change whose words name a difference of two changes",
     "The fleet's expansion: +0.3 GW in 2022, +0.6 GW more in 2023 [S01].", []),
    ("a sum with a cited number that only its sentence's year ties to it",
     "In 2025, 2.3 GW was under construction, 3.6 GW in total [S01][S11].", ["3.6 GW"]),
    ("a sum with a cited number about the claim's words",
     "In 2025, 2.3 GW was under construction, 6.2 GW in total with permitted projects [S01][S11].", []),
    ("a sum for no year of a fact's figures for several years: no figure of one of them is its rival",
     "The two rounds together awarded 1.6 GW (derived) [S04].", []),
    ("a per cent of a fact's numbers in a unit its sentence does not name",
     "Distribution networks held 1.7 GW at end-2025, 53% of the transmission networks' share (derived) [S07].",
     ["53%"]),
    ("a per cent of numbers in the unit its sentence names",
     "Distribution networks held 1.7 GW at end-2025, 55% of the transmission networks' share (derived) [S07].",
     []),
    ("a share the sentence signals", "Batteries took a 60% share of the EUR 520m spent in 2024 [S02].", []),
    ("a growth rate from last year's row",
     "| Year | Fleet | Growth |\n| --- | --- | --- |\n| 2024 | 3.4 GW [S01] | - |\n| 2025 | 4.8 GW [S01] | +41% |\n",
     []),
    ("a wrong growth rate from last year's row",
     "| Year | Fleet | Growth |\n| --- | --- | --- |\n| 2024 | 3.4 GW [S01] | - |\n| 2025 | 4.8 GW [S01] | +47% |\n",
     ["47%"]),
    ("a table cell whose row cites a source that does not state it",
     "| Year | Fleet |\n| --- | --- |\n| 2025 | 4.8 GW [S03] |\n", ["4.8 GW"]),
    ("a row that cites nothing takes its caption's sources",
     "Year-end fleet [S01]:\n\n| Year | Fleet |\n| --- | --- |\n| 2025 | 4.8 GW |\n", []),
    ("a sentence without citation borrows the next one's",
     "The fleet held 4.8 GW at end-2025. It added 1.4 GW in 2025 [S01].", []),
    ("numbers of a list share its unit and its years",
     "The fleet reached 3.4 and 4.8 GW in 2024-2025 [S01].", []),
    ("a swapped list", "The fleet reached 4.8 and 3.4 GW in 2024-2025 [S01].", ["4.8", "3.4 GW"]),
    ("two lists, a unit each", "In 2024-2025 the fleet held 3.4 and 4.8 GW and 7.6 and 11.5 GWh [S01].", []),
    ("two lists, the second swapped",
     "In 2024-2025 the fleet held 3.4 and 4.8 GW and 11.5 and 7.6 GWh [S01].", ["11.5", "7.6 GWh"]),
    ("a change stated only as a level", "The fleet grew by 4.8 GW in 2025 [S01].", ["4.8 GW"]),
    ("a sentence that says what its number is not",
     "2024's 1.3 GW cannot have been mainly round 2 awards [S01][S04].", []),
    ("a sentence that says what its number is, for another fact's words",
     "2024's 1.3 GW was mainly round 2 awards [S01][S04].", ["1.3 GW"]),
    ("a part of a written sum as another part",
     "The pipeline held 3.9 GW under construction and 2.3 GW permitted [S12].", ["3.9 GW", "2.3 GW"]),
    ("the parts of a written sum", "The pipeline held 2.3 GW under construction and 3.9 GW permitted [S12].", []),
    ("a part of a written sum as the whole its words name", "3.9 GW is in the pipeline [S12].", ["3.9 GW"]),
    ("the whole of a written sum its words name", "6.2 GW is in the pipeline [S12].", []),
    ("a part of a written sum its words name", "3.9 GW is permitted in the pipeline [S12].", []),
    ("a text's whole as the part its words name",
     "Battery operators' ancillary revenue reached EUR 520m in 2024 [S59].", ["EUR 520m"]),
    ("a text's part its words name",
     "Battery operators' ancillary revenue reached EUR 310m in 2024 [S59].", []),
    ("a rate as the amount it is computed from, a list written per something once",
     "Battery revenue was about EUR 90k and 180000k per MW-year for 2022-2023 [S60].", ["180000k"]),
    ("a rate its list writes per something once",
     "Battery revenue was about EUR 90k and 109k per MW-year for 2022-2023 [S60].", []),
    ("an amount a rate is computed from", "Battery operators' revenue was EUR 180m in 2023 [S60].", []),
    ("an amount per year, no rate of another unit",
     "Battery operators' revenue was EUR 180m per year in 2023 [S60].", []),
    ("a text's whole its words name", "The operator's total ancillary spend reached EUR 520m in 2024 [S59].", []),
    ("an addend written as the sum of its fellow and another",
     "The pipeline held 2.3 GW under construction plus 6.2 GW permitted [S22].", ["6.2 GW"]),
    ("an addend and the sum its words name",
     "The pipeline held 2.3 GW under construction plus 3.9 GW permitted, 6.2 GW in total [S22].", []),
    ("a share of another whole than the one its words name",
     "Of the 6.2 GW pipeline, the 3.9 GW permitted is about 63% of the capacity under construction (derived) [S46].",
     ["63%"]),
    ("a share of the whole its words name",
     "Of the 6.2 GW pipeline, the 3.9 GW permitted is about 63% of the pipeline (derived) [S46].", []),
    ("a conflict's evidence weights", "The NSO's 4.8 GW is preferred by evidence weight (margin 0.12) [S01][S03].", []),
    ("a count only a conflict's wording gives",
     "The industry's figure includes 5 behind-the-meter sites [S01][S03].", ["5"]),
    ("a count a conflict's weight gives, in a sentence that speaks of no weight",
     "The industry's figure includes 1 behind-the-meter site [S01][S03].", ["1"]),
    ("a count only a conflict's fact IDs give (Fact-003)",
     "The industry's figure includes 3 behind-the-meter sites [S01][S03].", ["3"]),
    ("a level of a fact's item as a change, another item speaking of one",
     "The fleet grew by 1.2 GW in 2022 [S08].", ["1.2 GW"]),
    ("the change of a fact's item", "The fleet grew by 0.3 GW in 2022 [S08].", []),
    ("two items swapped, named by a word as another form (discharged, discharge)",
     "In 2025 batteries discharged a record 9.3 GW while demand peaked at 2.9 GW [S13].", ["9.3 GW", "2.9 GW"]),
    ("two items, named by a word as another form",
     "In 2025 batteries discharged a record 2.9 GW while demand peaked at 9.3 GW [S13].", []),
    ("an item's figure as another's, the item after ';' naming its own",
     "Battery revenue reached EUR 520m in 2024, of a total grid spend of EUR 310m [S14].", ["EUR 520m", "EUR 310m"]),
    ("each item's own figure",
     "Battery revenue reached EUR 310m in 2024, of a total grid spend of EUR 520m [S14].", []),
    ("a value written twice, which the cited fact states once",
     "Batteries discharged up to 9.3 GW during the 9.3 GW demand peak [S12].", ["9.3 GW"]),
    ("two values, each stated once", "Batteries discharged up to 2.9 GW during the 9.3 GW demand peak [S12].", []),
    ("a list's item with a scale of its own, in the list's currency (not 91 MW)",
     "The totals were EUR 340m, 91m and 520m [S02][S15].", ["91m"]),
    ("a list's items with a scale of their own, in the list's currency",
     "Total grid spend was EUR 340m and 520m in 2022 and 2024 [S14].", []),
    ("a value written twice, which two cited facts state once each for the same thing",
     "Batteries discharged up to 2.9 GW during the record 2.9 GW peak [S12][S13].", ["2.9 GW"]),
    ("two values, each stated by two cited facts",
     "Batteries discharged up to 2.9 GW during the record 9.3 GW peak [S12][S13].", []),
    ("a value written twice, which two cited facts state for two things",
     "Round 2 awarded 0.9 GW in May 2024, while net additions were 0.9 GW in 2023 [S01][S04].", []),
    ("a value written twice, which the cited fact's statement and its quote state once",
     "The 2.9 GW demand peak came as batteries discharged up to 2.9 GW [S12].", ["2.9 GW"]),
    ("two values, one of them in the fact's statement and its quote",
     "The 9.3 GW demand peak came as batteries discharged up to 2.9 GW [S12].", []),
    ("another item's figure, the sentence naming nothing of that item",
     "Capacity figures carry an uncertainty of about 97% [S15].", ["97%"]),
    ("the item's own figure", "Capacity figures carry an uncertainty of about 3% [S15].", []),
    ("another item's figure, sharing with the claim only a word many cited facts use (fleet)",
     "The fleet's capacity carries an uncertainty of about 97% [S01][S09][S16].", ["97%"]),
    ("the item's own figure, among facts that use its words",
     "The fleet's capacity carries an uncertainty of about 3% [S01][S09][S16].", []),
    ("a list's later item, its words written once before the list ('and about 32 MW')",
     "That implies average sizes of about 91 MW and about 32 MW [S15].", []),
    ("two sources' figures swapped, each named by one word",
     "The industry's 4.8 GW stands against the fleet's 4.9 GW at end-2025 [S01][S03].", ["4.8 GW", "4.9 GW"]),
    ("two sources' figures, each named by one word",
     "The industry's 4.9 GW stands against the fleet's 4.8 GW at end-2025 [S01][S03].", []),
    ("another item's figure, the item's own written without its currency (310m)",
     "Battery revenue was EUR 520m in 2024 [S17].", ["EUR 520m"]),
    ("the item's own figure, beside another written without its currency",
     "Total grid spend was EUR 520m in 2024 [S17].", []),
    ("a change written against its facts' years", "Battery revenue went from EUR 310m to EUR 95m [S02].",
     ["EUR 310m", "EUR 95m"]),
    ("a change written with its facts' years", "Battery revenue went from EUR 95m to EUR 310m [S02].", []),
    # (the second 1.4 GW is about net additions too, which the fact that states the first gives once)
    ("a change from a value to itself that no fact gives for two years (two facts give it once each)",
     "Net additions went from 1.4 GW to 1.4 GW [S01][S09].", ["1.4 GW"]),
    ("a chain of changes whose last step runs against its facts' years",
     "Battery revenue rose from EUR 95m to EUR 310m to EUR 180m [S02].", ["EUR 310m", "EUR 180m"]),
    ("a chain of changes with its facts' years",
     "Battery revenue rose from EUR 95m to EUR 180m to EUR 310m [S02].", []),
    ("a change written as an arrow, with its facts' years", "Battery revenue went EUR 95m → EUR 310m [S02].", []),
    ("a bracket's figure swapped with the number before it (demand peak (9.3 GW))",
     "| Month | Demand peak | Battery discharge |\n| --- | --- | --- |\n| January | 2.9 GW [S12] | 9.3 GW [S12] |\n",
     ["9.3 GW"]),  # (the 2.9 GW is the fact's `discharge peaked`: `peak` names both)
    ("a bracket's figure and the number before it",
     "| Month | Demand peak | Battery discharge |\n| --- | --- | --- |\n| January | 9.3 GW [S12] | 2.9 GW [S12] |\n", []),
    ("another fact's figure, the words right by the number those of a cited fact's other figure",
     "Batteries discharged up to 9.3 GW during the record peak [S12][S18].", ["9.3 GW"]),
    ("the figure the words right by the number are about",
     "Batteries discharged up to 2.9 GW during the record peak [S12][S18].", []),
    ("another fact's figure, the words right by the number naming nothing of the item with its value",
     "The only figures ahead are forward-looking: 3.9 GW under construction in 29 projects [S22].", ["3.9 GW"]),
    ("the figure the words right by the number are about, stated by both facts",
     "The only figures ahead are forward-looking: 2.3 GW under construction in 29 projects [S22].", []),
    ("a list's item, named by its own word, against an item whose words the claim shares more of",
     "The Southern Region held 1.3 GW at end-2025 [S01].", []),
    ("a figure whose only words by another figure name the source's publisher (NCPA's)",
     "NCPA's connector count rose from 60,200 to 71,500 in 2025 [S23].", []),
    ("a figure whose sentence opens on who reports it (`the note shows that`): not what it counts",
     "The Transport Office's data note shows that the larger figure also counts 38,100 rides by staff [S50].", []),
    ("a figure whose words after the reporting verb name another figure's item (customer rides)",
     "The data note shows that the Transport Office counts 38,100 customer rides [S50].", ["38,100"]),
    ("a count's noun and who made them (`rides by staff`): the count's own phrase",
     "The office's figure counts 38,100 rides by staff [S50].", []),
    ("a count's noun and who made another figure's (`rides by customers`)",
     "The office's figure counts 38,100 rides by customers [S50].", ["38,100"]),
    ("a figure given as a cited source's (`the blog's`, by its kind) that another cited source states",
     "The blog's 230,000 matches the bottom of the members' forecast range for 2026 [S51][S52].", ["230,000"]),
    ("a figure given as the cited source's that states it (for another year than the sentence's)",
     "The blog's 250,000 matches the top of the members' forecast range for 2026 [S51][S52].", []),
    ("a figure given as a cited source's (`NCPA's`, by its publisher) that another cited source states",
     "NCPA's 6,100 points compare with the registry's count [S23][S06].", ["6,100"]),
    ("a possessive that names no cited source by its kind's whole name (a review is no peer-reviewed source)",
     "The review's 230,000 matches the members' forecast for 2026 [S52][S53].", []),
    ("a figure given as the cited publisher's that states it",
     "NCPA's 71,500 connectors compare with the registry's 17,900 points [S23][S06].", []),
    ("a figure loosely for its year, against another year's figure that shares its words",
     "Figures for end-2025 differ. Only the 4.8 GW is a validated measurement of operational capacity [S24].",
     []),
    ("a list's later item is about what the list's first item is (another fact's total is not its figure)",
     "In the ancillary market, battery revenue more than tripled to EUR 520m in 2024 [S02].", ["EUR 520m"]),
    ("the list's own later item", "In the ancillary market, battery revenue more than tripled to EUR 310m in 2024 [S02].", []),
    ("a level, against a list of changes that shares its words",
     "In the fleet data, operational capacity was 4.8 GW at end-2025 [S24].", []),
    ("another figure of the fact, the words right by the number many facts' words, all of the other's",
     "At full operation the contracts imply roughly EUR 41m a year in availability payments [S25].", ["EUR 41m"]),
    ("the figure those words are about",
     "At full operation the contracts imply roughly EUR 135m a year in availability payments [S25].", []),
    ("a list's item in a cited list's order, another text's figure at its place (28% is the first year's)",
     "Battery operators' share rose from about 23% to 44% to 60% [S30].", ["23%"]),
    ("a list's item in a cited list's order, each at its place",
     "Battery operators' share rose from about 28% to 44% to 60% (totals of EUR 340m, 410m and 520m) [S30].", []),
    ("from a to b between two years, after single years of other numbers: the range's end, not the 2024 price",
     "Revenue rose from EUR 95m in 2022 to EUR 310m in 2024, and pack prices fell from 210 to 152 EUR/kWh "
     "between 2022 and 2025 [S31].", ["152 EUR"]),
    ("from a to b between two years: its ends",
     "Revenue rose from EUR 95m in 2022 to EUR 310m in 2024, and pack prices fell from 210 to 130 EUR/kWh "
     "between 2022 and 2025 [S31].", []),
    ("a table row's cell in a quoted row's order, another column's figure at its place",
     "| Year | All | AC | DC | HPC |\n| --- | --- | --- | --- | --- |\n"
     "| 2024 | 39,500 [S33] | 31,300 [S33] | 4,900 [S33] | 4,900 [S33] |\n", ["4,900"]),
    ("a table row's cells in a quoted row's order, each at its place",
     "| Year | All | AC | DC | HPC |\n| --- | --- | --- | --- | --- |\n"
     "| 2024 | 39,500 [S33] | 31,300 [S33] | 4,900 [S33] | 3,300 [S33] |\n", []),
    ("three numbers of one unit that are no list (each its own words), against a cited list",
     "| Date | Event | Impact | Source |\n| --- | --- | --- | --- |\n| 14 Nov 2022 | North Link trips while "
     "importing 1,050 MW, then Harlow Bay (410 MW) | ~1,600 MW load shed | [S35] |\n", []),
    ("a part's figure as the whole its words name (`the combined loss`), not rescued as a difference",
     "In the 14 Nov 2022 event, the combined loss of 410 MW (derived) exceeded the largest infeed loss secured "
     "against [S35].", ["410 MW"]),
    ("the whole's figure its words name",
     "In the 14 Nov 2022 event, the combined loss of 1,460 MW (derived) exceeded the largest infeed loss "
     "secured against [S35].", []),
    ("a part's figure as a difference its sentence writes out",
     "In the 14 Nov 2022 event, Harlow Bay's loss of 410 MW (derived: 1,460 MW less 1,050 MW) added to North "
     "Link's [S35].", []),
    ("a list that closes with its total, an item out of its place",
     "At end-2025, 2.3 GW in 29 projects was under construction and 3.1 GW in 47 projects was permitted, "
     "6.2 GW in total [S37].", ["3.1 GW"]),
    ("a list that closes with its total, each at its place",
     "At end-2025, 2.3 GW in 29 projects was under construction and 3.9 GW in 47 projects was permitted, "
     "6.2 GW in total [S37].", []),
    ("a derivation's input with no words of its own, another region's count",
     "The North had about a third of the Capital's density per resident (derived: 11,400 against 290) [S38].",
     ["11,400", "290"]),
    ("a derivation's inputs with no words of its own, the sentence's regions",
     "The North had about a third of the Capital's density per resident (derived: 105 against 290) [S38].", []),
    ("a net growth, stated only by a fall", "Batteries took almost all of the EUR 10m net growth in spending [S36].",
     ["EUR 10m"]),
    ("a net growth, stated by the net rise",
     "Batteries took almost all of the EUR 180m net growth in spending [S36].", []),
    ("a clause with no subject of its own, another unit's growth",
     "Growth in power peaked in 2023 and slowed to +51% in 2025 [S34].", ["51%"]),
    ("a clause with no subject of its own, its subject's growth",
     "Growth in power peaked in 2023 and slowed to +41% in 2025 [S34].", []),
    ("a total row, a part's figure",
     "| Round | Capacity | Projects |\n| --- | --- | --- |\n| Total | 1.0 GW [S32] | 16 [S32] |\n", ["1.0 GW", "16"]),
    ("a total row, the total", "| Round | Capacity | Projects |\n| --- | --- | --- |\n| 3 | 1.0 GW [S32] | - |\n"
     "| Total | 2.6 GW [S32] | 41 [S32] |\n", []),
    ("'add that' reports, it states no change",
     "Supporters would add that the fleet held 4.8 GW at end-2025 [S01].", []),
    ("the sentence before, referred to",
     "The fleet grew from 3.4 GW at end-2024 to 4.8 GW at end-2025 [S01]. That is a growth of 41% [S01].", []),
    ("a round's year", "Round 2 awarded 0.9 GW in May 2024 [S04].", []),
    ("another round's figure", "Round 1 awarded 0.9 GW in September 2023 [S04].", ["0.9 GW"]),
    ("right columns",
     "| Year | DC | HPC |\n| --- | --- | --- |\n| 2024 | 4,900 [S06] | 3,300 [S06] |\n", []),
    ("wrong column: the figures of two columns swapped",
     "| Year | DC | HPC |\n| --- | --- | --- |\n| 2024 | 3,300 [S06] | 4,900 [S06] |\n", ["3,300", "4,900"]),
    ("wrong column: a rate per resident as a count",
     "| Region | Points | Points per 100,000 residents |\n| --- | --- | --- |\n| North | 105 [S06] | 6,100 [S06] |\n",
     ["105", "6,100"]),
    ("right column of a list's later item",
     "| Region | Points | Points per 100,000 residents |\n| --- | --- | --- |\n| North | 6,100 [S06] | 105 [S06] |\n",
     []),
    ("a year is not a count", "NCPA members installed 2,030 new high-power connectors in 2025 [S06].", ["2,030"]),
    ("a rise that ends lower", "High-power points rose from 3,300 to 2,100 [S06].", ["3,300", "2,100"]),
    ("a change from one year's figure to another's, further apart than the sentence says (2023 to 2024)",
     "High-power points grew from 2,100 to 3,300 in three years [S06].", ["2,100", "3,300"]),
    ("a change over as many years as the sentence says (2021 to 2024)",
     "High-power points grew from 600 to 3,300 in three years [S06].", []),
    ("a ratio in words that the derivation's written inputs do not give (105 against a count)",
     "The North had about a third of the Capital's density per resident (derived: 105 against 6,100) [S06].",
     ["105", "6,100"]),
    ("a ratio in words that the derivation's written inputs give",
     "The North had about a third of the Capital's density per resident (derived: 105 against 290) [S06].", []),
    ("a range as its source gives it", "The industry expects 1.5-2.0 GW to be commissioned in 2026 [S03].", []),
    ("a range's upper end as its lower end",
     "The industry expects 2.0-2.0 GW to be commissioned in 2026 [S03].", ["2.0"]),
    ("a range's end as a number of its own", "The industry expects up to 2.0 GW in 2026 [S03].", []),
    ("a derivation whose written inputs do not give it",
     "DC points grew by 1,200 in 2024 (derived: 4,900 less 3,800) [S06].", ["1,200", "4,900", "3,800"]),
    ("a figure for another year than the one the sentence before names",
     "The fleet reached 4.8 GW at end-2025 [S01]. The 3.4 GW of the fleet is the bulletin's [S01].", ["3.4 GW"]),
    ("the figure for the year the sentence before names",
     "The fleet reached 4.8 GW at end-2025 [S01]. The 4.8 GW of the fleet is the bulletin's [S01].", []),
    ("a sentence placed against another time than the sentence before",
     "The fleet reached 4.8 GW at end-2025 [S01]. A year earlier it held 3.4 GW [S01].", []),
    ("a figure for another year than the one the sentence before names, of what its phrase names",
     "The fleet reached 4.8 GW at end-2025 [S01]. Distribution networks held 1.2 GW [S07][S08].", ["1.2 GW"]),
    ("the figure for the year the sentence before names, of what its phrase names",
     "The fleet reached 4.8 GW at end-2025 [S01]. Distribution networks held 1.7 GW [S07][S08].", []),
    ("a figure for another year than its sentence's other number",
     "The bulletin counts 61 installations in 2024 and a fleet of 4.8 GW [S01].", ["4.8 GW"]),
    ("the figure for the year of its sentence's other number",
     "The bulletin counts 61 installations in 2024 and a fleet of 3.4 GW [S01].", []),
    ("a figure placed against another time than its sentence's other number",
     "The fleet held 3.4 GW in 2024, against 4.8 GW a year later [S01].", []),
    ("a figure for another year than the one its sentence's other numbers are for",
     "The industry's 4.9 GW is close to the fleet's 3.4 GW [S01][S03].", ["3.4 GW"]),
    ("the figure for the year its sentence's other numbers are for",
     "The industry's 4.9 GW is close to the fleet's 4.8 GW [S01][S03].", []),
    ("a figure for another year, another clause of its sentence negating",
     "The industry's 4.9 GW is close to the fleet's 3.4 GW, not to the pipeline [S01][S03].", ["3.4 GW"]),
    ("a figure for another year in a clause that negates: it may say what the number is not",
     "The industry's 4.9 GW is not the fleet's 3.4 GW [S01][S03].", []),
    ("two years' figures of one thing in a sentence that names no year",
     "The fleet held 3.4 GW, and then grew to 4.8 GW [S01].", []),
    ("a scenario's figure is not a measured one",
     "Operational capacity was 4 GW at end-2025 [S19].", ["4 GW"]),
    ("the measured figure beside a scenario's",
     "Operational capacity was 4.8 GW at end-2025 [S19].", []),
    ("a scenario's figure given as one", "The outlook's low case was 4 GW for 2025 [S19].", []),
    ("a scenario's figure where nothing is said to be measured",
     "End-2025 figures in circulation range from 4 GW to 14 GW [S19].", []),
    ("a rounded figure whose words name another figure of its unit (the low case, 4 GW)",
     "The study's 5 GW low case assumed cheaper batteries [S21].", ["5 GW"]),
    ("the figure the words name", "The study's 4 GW low case assumed cheaper batteries [S21].", []),
    ("a figure rounded to its written precision (4.8 GW)", "The outturn was about 5 GW [S21].", []),
    ("a figure rounded, its words naming no other figure", "The fleet held about 5 GW at end-2025 [S01].", []),
    ("a thousands comma read as a decimal one, in a fact that writes decimal points (1,200 MW)",
     "The bulletin counts batteries of 1.2 MW or more [S10].", ["1.2 MW"]),
    ("a thousands comma read as one", "The fleet held 1,200 MW at end-2022 [S10].", []),
    ("a value written twice, the second time without its currency, which the cited fact states once",
     "Battery revenue figures are EUR 95m, 95m and 310m [S02].", ["95m"]),
    ("a list's values, each stated once", "Battery revenue figures are EUR 95m, 180m and 310m [S02].", []),
    ("a count that only a fact's reference gives (round 2)",
     "The ministry received 2 complaints about the auctions [S04].", ["2"]),
    ("a reference named by its word", "Auction rounds 1 and 2 awarded 0.7 GW and 0.9 GW [S04].", []),
    ("a reference named by its column's header",
     "| Round | Capacity awarded |\n| --- | --- |\n| 2 | 0.9 GW [S04] |\n", []),
    ("a reference's list goes on with labels, not counts (rounds 4 and 5)",
     "Later capacity is to come from auction rounds 4 and 5 [S04].", []),
    ("a count after a reference", "Round 2 and 3 other rounds awarded 0.9 GW [S04].", ["3"]),
    ("a level that only a fact's threshold gives (minimum 2-hour), its words another figure's",
     "Average duration rose from 1.8 to 2.0 hours, in line with the auctions [S20].", ["2.0 hours"]),
    ("the level its words name", "Average duration rose from 1.8 to 2.4 hours, in line with the auctions [S20].",
     []),
    ("a threshold named as one", "The auctions set a 2-hour minimum [S20].", []),
    ("a value written twice, which two cited facts state once each for the same thing (demand peak)",
     "The 9.3 GW demand peak came as batteries discharged up to 9.3 GW [S12][S18].", ["9.3 GW"]),
    ("two values, one of them stated by two facts",
     "The 9.3 GW demand peak came as batteries discharged up to 2.9 GW [S12][S18].", []),
    ("a change its words name, the difference of its sentence's two numbers",
     "Trips rose, while the network gained 24 stations, from 48 to 72 [S47].", []),
    ("a change its words name, no difference of its sentence's two numbers",
     "Trips rose, while the network gained 26 stations, from 48 to 72 [S47].", ["26"]),
    ("a bound stated only by a plain figure, where the evidence gives a bound for its words",
     "The base case assumed pack prices below 178 EUR/kWh by 2023 [S48].", ["178 EUR"]),
    ("the bound the evidence gives", "The base case assumed pack prices below 100 EUR/kWh by 2023 [S48].", []),
    ("a bound stated by a plain figure, where the evidence gives no bound",
     "The average pack price stayed below 178 EUR/kWh in 2023 [S49].", []),
    ("a derivation whose written inputs give it",
     "DC points grew by 1,100 in 2024 (derived: 4,900 less 3,800) [S06].", []),
    ("a margin that only a fact's figure gives (0.9 GW), not the conflict's weights",
     "The NSO's 4.8 GW is preferred by evidence weight (margin 0.90) [S01][S03].", ["0.90"]),
    ("a figure of another scenario than the one its words name (the base case's 10 GW as the low case)",
     "The institute's 10 GW low case assumed dear batteries [S40].", ["10 GW"]),
    ("the scenario's own figure", "The institute's 4 GW low case assumed dear batteries [S40].", []),
    ("a figure of another scenario, in a table row whose label names the scenario",
     "| Figure | Source |\n| --- | --- |\n| 4 GW | The institute's base case [S40] |\n", ["4 GW"]),
    ("the figure of the scenario the row's label names",
     "| Figure | Source |\n| --- | --- |\n| 10 GW | The institute's base case [S40] |\n", []),
    ("a scenario's figure, changed to the value of a number of no scenario (the 8 GW target)",
     "Its 8 GW base case assumed prices below 100 EUR/kWh by 2023 [S40].", ["8 GW"]),
    ("the scenario's figure its words name",
     "Its 10 GW base case assumed prices below 100 EUR/kWh by 2023 [S40].", []),
    ("the number of no scenario, its words naming none", "The target adopted in 2024 was 8 GW by 2030 [S40].", []),
    ("a party's figure stated only by a source the citation closing its clause does not cite",
     "The association's fleet was 3.4 GW at end-2024 [S41], and the office's 4.8 GW at end-2025 [S01].",
     ["3.4 GW"]),
    ("each party's figure, closed by its own citation",
     "The office's fleet was 3.4 GW at end-2024 [S01], and the association's 4.9 GW at end-2025 [S41].", []),
    ("one party's figure given as another's (the office's 4.8 GW as the industry's)",
     "The industry's 4.8 GW includes behind-the-meter systems [S41].", ["4.8 GW"]),
    ("the party's own figure", "The industry's 4.9 GW includes behind-the-meter systems [S41].", []),
    ("the other party's figure, named as its", "The association sets its 4.9 GW against NSO's 4.8 GW [S41].", []),
    ("another party's figure in a table row whose label cell names its own party by acronym",
     "| Figure for end-2025 | Source |\n| --- | --- |\n| 4.8 GW | NSO [S41] |\n| 4.8 GW | VSIA [S41] |\n", ["4.8 GW"]),
    ("each party's figure in the table row whose label cell names it",
     "| Figure for end-2025 | Source |\n| --- | --- |\n| 4.8 GW | NSO [S41] |\n| 4.9 GW | VSIA [S41] |\n", []),
    ("a range's upper end as the lower end of a range said to run from one value to another",
     "The 2025 figures in circulation range from 5.2 to 9.9 GW [S43].", ["5.2"]),
    ("the lower end of a range said to run so",
     "The 2025 figures in circulation range from 3.8 to 9.9 GW [S43].", []),
    ("a forecast row's range end that only a measured figure states",
     "| Figure for end-2025 | Source | What it is |\n| --- | --- | --- |\n"
     "| ~4.5 GW (range 3.8-4.8) [S43][S42] | A forecaster | Forecast |\n", ["4.8"]),
    ("a forecast row's range as the forecast gives it",
     "| Figure for end-2025 | Source | What it is |\n| --- | --- | --- |\n"
     "| ~4.5 GW (range 3.8-5.2) [S43][S42] | A forecaster | Forecast |\n", []),
    ("a measured row's figure, beside a forecast row",
     "| Figure for end-2025 | Source | What it is |\n| --- | --- | --- |\n"
     "| 4.8 GW [S42] | The office | Operational |\n| ~4.5 GW [S43] | A forecaster | Forecast |\n", []),
    ("a central value written as its own range's end: the range's end takes the range's end",
     "| Figure for end-2025 | Source | What it is |\n| --- | --- | --- |\n"
     "| ~3.8 GW (range 3.8-5.2) [S43] | An outlook of 2024 | Forecast |\n", ["3.8 GW"]),
    ("a level as a change, in a fact that says it gives no change",
     "Set against earlier estimates, it implies roughly 0.9 GW added across 2019-2021 combined [S44].",
     ["0.9 GW"]),
    ("the level, in a fact that says it gives no change", "The fleet was 0.9 GW at end-2021 [S44].", []),
    ("a level at one year-end as the amount for several years as a whole",
     "The ~0.9 GW implied for 2019-2021 combined is indicative only [S54].", ["0.9 GW"]),
    ("the amount a fact gives for the years as a whole",
     "The ~0.6 GW implied for 2019-2021 combined is indicative only [S54].", []),
    ("a gap column against the row its header names, not the row before",
     "| Figure for end-2025 | Source | Gap to NSO |\n| --- | --- | --- |\n| 4.8 GW [S42] | NSO | - |\n"
     "| 4.9 GW [S41] | VSIA | +0.1 GW |\n| 6.2 GW [S46] | A blog | +1.3 GW |\n", ["1.3 GW"]),
    ("a gap written after a bound sign, against the row its header names, not the row before",
     "| Figure for end-2025 | Source | Gap to NSO |\n| --- | --- | --- |\n| 4.8 GW [S42] | NSO | - |\n"
     "| 4.9 GW [S41] | VSIA | +0.1 GW |\n| ~4.5 GW [S43] | A forecaster | ≥ -0.4 GW (lower bound) |\n", ["0.4 GW"]),
    ("a gap written after a bound sign, against the row its header names",
     "| Figure for end-2025 | Source | Gap to NSO |\n| --- | --- | --- |\n| 4.8 GW [S42] | NSO | - |\n"
     "| 4.9 GW [S41] | VSIA | +0.1 GW |\n| ~4.5 GW [S43] | A forecaster | ≥ -0.3 GW (lower bound) |\n", []),
    ("a gap column against the row its header names",
     "| Figure for end-2025 | Source | Gap to NSO |\n| --- | --- | --- |\n| 4.8 GW [S42] | NSO | - |\n"
     "| 4.9 GW [S41] | VSIA | +0.1 GW |\n| 6.2 GW [S46] | A blog | +1.4 GW |\n", []),
    ("a measurement that only a unit's name gives (unit 2)",
     "Frequency fell to 2.00 Hz after Harlow Bay unit 2 tripped [S45].", ["2.00"]),
    ("the measurement, beside the unit's name", "Frequency fell to 48.85 Hz after Harlow Bay unit 2 tripped [S45].",
     []),
    ("a number of a cell's note that the words right by it give another figure for (under construction)",
     "| Figure for end-2025 | What it measures |\n| --- | --- |\n| 6.2 GW [S46][S01] | the pipeline (1.9 GW under "
     "construction + 3.9 GW permitted), misread as operating capacity |\n", ["1.9 GW"]),
    ("the figure of a cell's note that its words name",
     "| Figure for end-2025 | What it measures |\n| --- | --- |\n| 6.2 GW [S46][S01] | the pipeline (2.3 GW under "
     "construction + 3.9 GW permitted), misread as operating capacity |\n", []),
    ("a count of another figure's item (the 3.9 GW's 47 projects) beside the figure it is written with",
     "The only 2026 figures: 2.3 GW under construction in 47 projects at end-2025 [S22].", ["47"]),
    ("the count of the figure it is written with",
     "The only 2026 figures: 2.3 GW under construction in 29 projects at end-2025 [S22].", []),
    ("a number restated in brackets in another unit with another value",
     "| Year | Fleet |\n| --- | --- |\n| 2022 | 0.3 GW (1,200 MW) [S10] |\n", ["0.3 GW", "1,200 MW"]),
    ("a number restated in brackets in another unit", "| Year | Fleet |\n| --- | --- |\n| 2022 | 1.2 GW (1,200 MW) [S10] |\n",
     []),
    ("a number with another of its unit in brackets that is not a restatement",
     "Net additions were 1.4 GW in 2025 (1.3 GW in 2024) [S01].", []),
    ("a number in brackets after a name, not right after the number before",
     "North Link (1,050 MW) and Harlow Bay unit 2 (410 MW) tripped; frequency fell to 48.85 Hz [S45].", []),
    ("a figure whose words another number of its fact's clause has in its own phrase (bids totalling 2.9 GW)",
     "The third auction received 1.0 GW of bids [S55].", ["1.0 GW"]),
    ("the figure the words of its own phrase name", "The third auction received 2.9 GW of bids for 1.0 GW [S55].", []),
    ("a figure paired with another (2.9 GW of bids) that the evidence pairs with a third (1.0 GW), its own "
     "value written alone", "Round 3 received 2.9 GW of bids for 2.6 GW [S55].", ["2.6 GW"]),
    ("the figure the evidence pairs with the other", "Round 3 received 2.9 GW of bids for 1.0 GW [S55].", []),
    ("a figure its own phrase calls a bound (floor), stated only by a plain figure beside a bound",
     "The rounds' 2.6 GW exceeded the Act's 0.2 GW floor [S56].", ["0.2 GW"]),
    ("a figure its own phrase calls a bound, stated by a bound",
     "The rounds' 2.6 GW exceeded the Act's 2.4 GW floor [S56].", []),
    ("a change over its lead-in's years, from a later year's figure (a list item under 'over the same period')",
     "Battery revenue rose from EUR 95m (2022) to EUR 310m (2024) [S02]. Over the same period other providers' "
     "revenues moved as follows [S57]:\n\n- demand response rose from EUR 25m to EUR 30m [S57].\n", ["EUR 25m"]),
    ("a change over its lead-in's years, from the first year's figure to the last's",
     "Battery revenue rose from EUR 95m (2022) to EUR 310m (2024) [S02]. Over the same period other providers' "
     "revenues moved as follows [S57]:\n\n- demand response rose from EUR 15m to EUR 30m [S57].\n", []),
    ("a chain of changes over its context's years, each step a year",
     "Battery revenue rose from EUR 95m (2022) to EUR 310m (2024) [S02]. Demand response rose from EUR 15m to "
     "EUR 25m to EUR 30m [S57].", []),
    ("a change given overall after a series of years, another fall's figure for an earlier year",
     "The average pack price fell from 210 EUR/kWh (2022) to 130 EUR/kWh (2025), -19% overall [S58].", ["19%"]),
    ("a change given overall after a series of years, the fall over them",
     "The average pack price fell from 210 EUR/kWh (2022) to 130 EUR/kWh (2025), -38% overall [S58].", []),
    ("a change given overall in a sentence that names no years", "The clearing price fell 19% overall [S58].", []),
    ("one party's figure as another's, another source's citation closing the sentence",
     "The industry's 4.8 GW includes behind-the-meter systems [S41], and the fleet grew [S42].", ["4.8 GW"]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "report", "ungrounded"), TABLE, ids=[row[0] for row in TABLE])
def test_grounding_table(name: str, report: str, ungrounded: list[str]) -> None:
    assert _ungrounded(report) == ungrounded


def test_the_table_covers_what_the_rule_must_catch() -> None:
    names = " | ".join(row[0] for row in TABLE)
    for needed in (
        "wrong year", "wrong row", "wrong category", "wrong column", "signals", "does not signal", "row cites",
    ):  # fmt: skip
        assert needed in names


def test_a_failing_number_is_named_at_its_line_with_the_nearest_evidence(run: Run) -> None:
    report = "# R\n\n## Capacity\n\nNet additions were 1.4 GW in 2024 [S01].\n"
    [violation] = number_violations(body_blocks(report), _doc())
    assert violation.line == 5
    assert violation.message.startswith(
        "1.4 GW is not grounded in the facts of the sources cited where it is"
    )
    assert "Fact-001 states 1.4 GW for 2025, not 2024" in violation.message


def test_a_number_another_source_states_names_the_source_to_cite() -> None:
    [violation] = number_violations(body_blocks("Battery revenue reached EUR 310m in 2024 [S01].\n"), _doc())
    assert "Fact-006 states it: cite [S02] for it" in violation.message


def test_explain_shows_the_fact_or_the_derivation() -> None:
    report = "Battery revenue rose by EUR 215m between 2022 and 2024, from EUR 95m to EUR 310m [S02].\n"
    lines = [explanation(j) for j in judge_numbers(body_blocks(report), _doc())]
    assert lines[0] == (
        "1: EUR 215m ([S02]): derived: difference EUR 310m (this sentence) − EUR 95m (this sentence)"
    )
    assert lines[1] == '1: EUR 95m ([S02]): stated by Fact-006 ("EUR 95m")'


def test_an_unsupported_fact_is_not_evidence_and_the_hint_says_why() -> None:
    doc = _doc()
    fact = doc.fact("Fact-008")
    assert fact is not None
    fact.support, fact.support_reason = Support.UNSUPPORTED, "The quote gives no capacity."
    [violation] = number_violations(body_blocks("The industry counts 4.9 GW at end-2025 [S03].\n"), doc)
    assert (
        "Fact-008 states it, but the verifier judged Fact-008 unsupported by its quote" in violation.message
    )
    assert "(The quote gives no capacity.)" in violation.message


def test_invented_derived_and_uncited_numbers(run: Run) -> None:
    run.doc.facts.append(
        Fact("Fact-008", "14 million electric cars were sold in 2023.", ["S02"], verified=Verified.YES)
    )
    run.doc.conflicts.clear()
    report = (
        "# Electric cars\n\n## Market\n\nSales rose from 14 million in 2023 to 17 million in 2024 [S01][S02].\n"
        "That is a growth of 21% in one year [S01][S02].\n\nSales will reach 25 million in 2025 [S01].\n\n"
        "## Costs\n\nPack prices fell about 8% in 2024 [S03].\n\n"
        "1. Prices fell 20% to $115/kWh, see Section 3 and Figure 2 [S03].\n"
    )
    judged = [(j.line, j.bound.text, j.grounded) for j in judge_numbers(body_blocks(report), run.doc)]
    assert judged == [
        (5, "14 million", True),
        (5, "17 million", True),
        (6, "21%", True),  # derived: (17 - 14) / 14 = 21.4%, from the sentence before
        (8, "25 million", False),  # invented
        (12, "8%", False),  # stated by Fact-004, whose source is not cited here
        (14, "20%", True),
        (14, "$115", True),
    ]
    found = [v for v in check_report(report, run.doc, run.root) if v.kind == "ungrounded_number"]
    assert [v.line for v in found] == [8, 12]
    assert "Fact-004 states it: cite [S04] for it" in found[1].message


def test_a_partial_fact_lends_only_the_numbers_its_quote_states(run: Run) -> None:
    fact = run.doc.fact("Fact-001")
    assert fact is not None
    fact.quote, fact.verified = "Sales reached 17 million cars", Verified.PARTIAL
    fact.statement = "17 million electric cars were sold in 2024, 40% of them in China."
    run.doc.conflicts.clear()
    report = "# R\n\nSales were 17 million [S01]. China took 40% of them [S01].\n"
    found = [
        (v.line, v.message.split(" is not grounded")[0]) for v in check_report(report, run.doc, run.root)
    ]
    assert found == [(3, "40%")]
