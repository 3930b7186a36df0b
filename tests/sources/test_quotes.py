"""Quote verification: normalised, slightly fuzzy for long quotes, never fooled by numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deepresearch.core.workspace import Workspace
from deepresearch.sources.quotes import quote_in_text, quote_parts, verify_fact_quote
from deepresearch.sources.record import SourceRecord
from deepresearch.state.model import Verified

SOURCE = """# Solar report

- URL: https://example.org/solar

---

The agency said that installed **solar capacity** grew by 24 percent in 2023 — the fastest
rise on record, according to its [annual report](https://example.org/report.pdf "PDF").
Officials called it “a turning point for the grid’s future.” It is not expected to slow down
before 2030, although grid operators warn of curtailment in sunny regions… and elsewhere.
東京の電力需要は2023年に3パーセント増加した。
"""


@pytest.mark.parametrize(
    "quote",
    [
        "installed solar capacity grew by 24 percent in 2023",  # exact (emphasis stripped)
        "installed solar capacity grew by 24 percent in\n   2023 — the fastest rise on record",  # re-wrapped
        "INSTALLED SOLAR CAPACITY GREW",  # case
        '"a turning point for the grid\'s future."',  # straight vs curly quotes
        "in 2023 - the fastest rise",  # hyphen for an em dash
        "in 2023 -- the fastest rise",
        "in 2023 – the fastest rise",  # en dash
        "according to its annual report",  # markdown link syntax
        "curtailment in sunny regions... and elsewhere",  # three dots for an ellipsis character
        "The agency said ... the fastest rise on record",  # an elision inside the quote
        "The agency said [...] according to its annual report",
        "東京の電力需要は2023年に3パーセント",  # no spaces to split on
        "ｉｎｓｔａｌｌｅｄ solar",  # full-width letters (NFKC)
    ],
)
def test_verified(quote: str) -> None:
    assert quote_in_text(quote, SOURCE)


@pytest.mark.parametrize(
    "quote",
    [
        "installed wind capacity grew by 24 percent in 2023",  # a short quote must match exactly
        "installed solar capacity grew by 42 percent in 2023 — the fastest rise on record",  # a number
        "It is expected to slow down before 2030, although grid operators warn of curtailment",  # negation
        "The ministry reported that hydropower output fell sharply during the dry summer months.",
        "the fastest rise on record ... The agency said",  # parts out of order
        "",
        "...",
    ],
)
def test_not_verified(quote: str) -> None:
    assert not quote_in_text(quote, SOURCE)


def test_one_typo_in_a_long_quote_is_tolerated() -> None:
    quote = "installed solar capacity grew by 24 percent in 2023 - the fastets rise on record"
    assert quote_in_text(quote, SOURCE)


def test_a_dropped_word_in_a_long_quote_is_tolerated() -> None:
    quote = "It is not expected to slow down before 2030, although operators warn of curtailment"
    assert quote_in_text(quote, SOURCE)


def test_a_different_sentence_of_similar_words_is_not_verified() -> None:
    quote = "The agency said that installed wind capacity fell by 24 percent in 2023, the slowest on record"
    assert not quote_in_text(quote, SOURCE)


def test_quote_parts() -> None:
    assert quote_parts('"A b c … d e f"') == ["A b c", "d e f"]
    assert quote_parts("…") == []


WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöü", min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS, min_size=12, max_size=60), st.data())
def test_any_run_of_words_is_found_however_it_is_wrapped(words: list[str], data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(words) - 3))
    end = data.draw(st.integers(start + 1, min(len(words), start + 15)))
    text = " ".join(words)
    separators = data.draw(st.lists(st.sampled_from([" ", "\n", "  ", " \n  "]), min_size=end - start))
    quote = "".join(w + s for w, s in zip(words[start:end], separators, strict=False)).strip()
    assert quote_in_text(quote.upper(), text)


def test_verify_fact_quote_reads_the_archive(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    archive = tmp_path / "assets" / "web" / "S01-example-org.md"
    archive.parent.mkdir(parents=True)
    archive.write_text(SOURCE, encoding="utf-8")
    record = SourceRecord(url="https://example.org/solar", id="S01", archive="assets/web/S01-example-org.md")
    assert verify_fact_quote(workspace, record, "grew by 24 percent").verified is Verified.YES
    assert verify_fact_quote(workspace, record, "grew by 25 percent").verified is Verified.NO
    assert verify_fact_quote(workspace, record.archive, "grew by 24 percent").verified is Verified.YES
    assert verify_fact_quote(workspace, record, "   ").verified is Verified.NO
    gone = SourceRecord(url="https://example.org/gone", id="S02", archive="assets/web/S02-gone.md")
    assert verify_fact_quote(workspace, gone, "anything").verified is Verified.UNCHECKED
    failed = SourceRecord.failure("https://example.org/x", "timeout", "slow")
    check = verify_fact_quote(workspace, failed, "anything")
    assert check.verified is Verified.UNCHECKED and "timeout" in check.detail
