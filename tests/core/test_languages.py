"""Languages by code: names and codes, the person's choice, and detection of a text's language."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.core.config import load_config
from deepresearch.core.errors import ConfigError
from deepresearch.core.langdetect import detect_language, script_of
from deepresearch.core.languages import describe, language_code, parse_choice

# (expected code, texts: search queries and sentences as an archive holds them)
SAMPLES: list[tuple[str, list[str]]] = [
    ("en", ["CATL market share Europe", "lithium price forecast", "E1 query 1.1",
            "The share of battery cells bought from Chinese manufacturers rose to 62% in 2024."]),
    ("de", ["Wärmepumpen Absatz Deutschland 2024", "Batteriezellen chinesische Hersteller Marktanteil",
            "Photovoltaik Zubau Deutschland", "Der Anteil der Zellen aus China stieg 2024 auf 4,8 GW."]),
    ("fr", ["ventes de pompes à chaleur en France 2024", "part de marché fabricants chinois",
            "Le marché des batteries a atteint 4,8 milliards d'euros."]),
    ("es", ["ventas de bombas de calor España", "cuota de mercado fabricantes chinos",
            "La producción alcanzó 4,8 millones de toneladas en 2024."]),
    ("it", ["vendite pompe di calore Italia", "La produzione è cresciuta del 12% nel 2024."]),
    ("pt", ["vendas de bombas de calor no Brasil", "A produção de energia solar cresceu em 2024."]),
    ("nl", ["verkoop warmtepompen Nederland", "De verkoop van warmtepompen is in 2024 gestegen."]),
    ("pl", ["sprzedaż pomp ciepła w Polsce"]),
    ("sv", ["försäljning av värmepumpar i Sverige"]),
    ("tr", ["ısı pompası satışları Türkiye"]),
    ("vi", ["thị trường pin xe điện Việt Nam"]),
    ("zh", ["动力电池 装机量 2024", "宁德时代 CATL 的市场份额为37%", "2024年中国动力电池出口量达到4.8吉瓦时。"]),
    ("ja", ["リチウムイオン電池 シェア", "2024年の電池の出荷量は4.8ギガワット時に達した。"]),
    ("ko", ["배터리 시장 점유율"]),
    ("ru", ["продажи тепловых насосов в России"]),
    ("uk", ["продаж теплових насосів в Україні"]),
    ("ar", ["مبيعات المضخات الحرارية"]),
    ("el", ["πωλήσεις αντλιών θερμότητας"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("code", "text"), [(code, text) for code, texts in SAMPLES for text in texts], ids=lambda v: str(v)[:30]
)
def test_detection(code: str, text: str) -> None:
    assert detect_language(text) == code


def test_a_page_in_one_script_naming_words_of_another_keeps_its_language() -> None:
    assert detect_language("CATL (宁德时代) supplies most of the cells used in Europe.") == "en"
    assert script_of("宁德时代 CATL 的市场份额") == "han"


def test_undecidable_text_is_unknown_unless_the_candidates_leave_one() -> None:
    assert detect_language("heat pumps") == ""  # no language's own words, letters or shapes
    assert detect_language("heat pumps", among=["en", "zh"]) == "en"  # the only Latin-script candidate
    assert detect_language("電池 市場", among=["ja", "en"]) == "ja"  # Han without kana, Chinese not planned
    assert detect_language("電池 市場") == "zh"
    assert detect_language("battery cells", among=["zh"]) == ""  # no candidate writes Latin script
    assert detect_language("12 345 %") == ""


def test_codes_and_names() -> None:
    assert [language_code(n) for n in ("de", "German", "Deutsch", "de-AT", "中文", "zh_TW", " ES ")] == [
        "de", "de", "de", "de", "zh", "zh", "es",
    ]  # fmt: skip
    assert describe("de") == "German (de)"
    with pytest.raises(ValueError, match=r"'Klingon' is not a known language \(known codes: en, zh, ja"):
        language_code("Klingon")


def test_the_persons_choice() -> None:
    assert parse_choice(["+de", "-fr"]).wanted(["en", "fr"]) == ["en", "de"]
    assert parse_choice(["en, zh"]).wanted(["en", "fr"]) == ["en", "zh"]  # exactly these
    assert parse_choice(["en zh +de"]).wanted(["fr"]) == ["en", "zh", "de"]
    assert parse_choice([]).empty and parse_choice([]).wanted(["en"]) == ["en"]
    assert parse_choice(["German", "+French"]).describe() == "de, +fr"
    with pytest.raises(ValueError, match="de is both asked for and removed"):
        parse_choice(["+de", "-de"])
    with pytest.raises(ValueError, match="'\\+' names no language"):
        parse_choice(["+"])


def test_languages_setting_in_config_and_environment(tmp_path: Path) -> None:
    (tmp_path / "deepresearch.yaml").write_text("languages: [en, +Deutsch]\n", encoding="utf-8")
    assert load_config(tmp_path, environ={}).languages == ["en", "+Deutsch"]
    env = {"DEEPRESEARCH_LANGUAGES": "zh -en"}
    assert load_config(tmp_path, environ=env).languages == ["zh", "-en"]
    (tmp_path / "deepresearch.yaml").write_text("languages: en, Klingon\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="languages: 'Klingon' is not a known language"):
        load_config(tmp_path, environ={})


def test_a_declared_language_wins_when_known() -> None:
    from deepresearch.sources.specialist_store import text_language

    english = "The share of battery cells bought from Chinese manufacturers rose to 62% in 2024."
    assert text_language("zh-Hans", english) == "zh"  # captions or an EPUB's dc:language
    assert text_language("", english) == "en"
    assert text_language("x-klingon", english) == "en"  # a declaration deepresearch cannot read
