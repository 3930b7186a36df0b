"""The unit tables' matcher (two alternations, one shared end-of-word lookahead) matches exactly what
one alternation of every word with its own lookahead matches: the longest word, a word that ends in
a letter only at a word's end (or before CJK text)."""

from __future__ import annotations

import re

import pytest

from deepresearch.evidence.units import _CJK, _TABLES, _words_re

NEXT = ["", " ", "s", "x", "だ", "万", "2", ".", "-", "²", "É", "ß"]


def one_alternation(words: list[str], flags: re.RegexFlag) -> re.Pattern[str]:
    def end(word: str) -> str:
        needs = not _CJK.search(word) and word[-1].isalpha()
        return r"(?-i:(?![^\W\d_\u3040-\u30ff\u3400-\u9fff]))" if needs else ""

    return re.compile("|".join(re.escape(w) + end(w) for w in sorted(words, key=len, reverse=True)), flags)


@pytest.mark.parametrize("table", sorted(_TABLES))
def test_each_word_before_each_kind_of_character_matches_as_one_alternation_would(table: str) -> None:
    words, flags = _TABLES[table]
    reference, matcher = one_alternation(list(words), flags), _words_re(table)
    texts = [f"{form}{after}" for w in words for form in (w, w.upper(), w.title()) for after in NEXT]
    text = "\n".join(["480万kWだった", "5 GWh", "4.8 percentage points", "12 Mio. Euro", *texts])
    for pos in range(len(text)):
        want, got = reference.match(text, pos), matcher.match(text, pos)
        assert (want and want.span()) == (got and got.span()), (table, text[pos : pos + 20])
