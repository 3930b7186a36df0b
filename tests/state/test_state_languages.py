"""task.md's languages: the front matter's planned languages and the Sources table's Language column."""

from __future__ import annotations

import pytest

from deepresearch.core.errors import StateError
from deepresearch.state import model as m
from deepresearch.state.parser import parse_task_md
from deepresearch.state.writer import render_task_md
from tests.state.test_state_malformed import BASE

SOURCES_HEADER = (
    "| ID | Title | URL | Type | Published | Accessed | Authority | Archive | SHA-256 | Copy of | Flags |"
)


def older(text: str) -> str:
    """The same document as written before languages were recorded."""
    text = text.replace("languages: {}\n", "")
    text = text.replace(SOURCES_HEADER + " Language |", SOURCES_HEADER).replace(
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    )
    return text.replace("| - | - | - |\n\n## Conflicts", "| - | - |\n\n## Conflicts")


def test_an_older_task_md_without_languages_still_parses_and_is_written_with_them() -> None:
    text = older(BASE)
    assert "languages" not in text and "Language |" not in text
    doc = parse_task_md(text)
    assert doc.front.languages == [] and doc.sources[0].language == ""
    assert render_task_md(doc) == BASE


def test_languages_with_reasons_round_trip_in_order() -> None:
    doc = parse_task_md(BASE)
    doc.front.languages = [
        m.PlannedLanguage("zh", "most cells are made in China"),
        m.PlannedLanguage("no", ""),
    ]
    doc.sources[0].language = "de"
    text = render_task_md(doc)
    assert "languages:\n  zh: most cells are made in China\n  'no': ''\n" in text
    assert "| assets/web/S01.md | - | - | - | de |" in text
    assert parse_task_md(text) == doc


def test_a_person_may_write_names_or_a_plain_list() -> None:
    doc = parse_task_md(BASE.replace("languages: {}", "languages: [English, Deutsch]"))
    assert doc.front.languages == [m.PlannedLanguage("en"), m.PlannedLanguage("de")]
    doc = parse_task_md(BASE.replace("| - | - | - |\n\n## Conflicts", "| - | - | German |\n\n## Conflicts"))
    assert doc.sources[0].language == "de"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("languages: {}", "languages: {en: question, xx: nothing}",
         "task.md:11: front matter: languages 'xx' is not a known language (known codes: en, zh"),
        ("languages: {}", "languages: [en, English]", "task.md:11: front matter: languages lists en twice"),
        ("languages: {}", "languages: German", "task.md:11: front matter: languages must be a mapping"),
        ("| - | - | - |\n\n## Conflicts", "| - | - | Elvish |\n\n## Conflicts",
         "task.md:57: Sources row S01: Language 'Elvish' is not a known language"),
    ],
)  # fmt: skip
def test_a_bad_language_names_its_line(old: str, new: str, message: str) -> None:
    with pytest.raises(StateError) as caught:
        parse_task_md(BASE.replace(old, new))
    assert str(caught.value).startswith(message)
