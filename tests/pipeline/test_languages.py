"""Languages in the plan, the briefs, the saturation rules and the report's method note, rule by rule."""

from __future__ import annotations

from pathlib import Path

from deepresearch.contracts.plan import parse_plan
from deepresearch.contracts.supervise import Brief, parse_briefs
from deepresearch.core.config import Config
from deepresearch.core.effort import Saturation
from deepresearch.core.languages import parse_choice
from deepresearch.pipeline.languages import PERSON, QUESTION, apply_choice, settle, statement_language
from deepresearch.pipeline.saturation import decide, missing_languages
from deepresearch.pipeline.taskledger import TaskProgress
from deepresearch.report.references import render_references
from deepresearch.search.searchlog import query_languages
from deepresearch.state.model import (
    Dimension,
    Fact,
    FrontMatter,
    PlannedLanguage,
    Source,
    Task,
    TaskDoc,
    Verified,
)
from tests.pipeline.test_contracts import PLAN, write

ZH = PlannedLanguage("zh", "most cells are made by Chinese manufacturers")


def test_the_plan_names_languages_each_with_a_reason(tmp_path: Path) -> None:
    plan, problems = parse_plan(write(tmp_path, PLAN), max_tasks=6)
    assert problems == [] and plan is not None
    assert plan.languages == [PlannedLanguage("en", "the language of the question")]
    bad = PLAN.replace(
        "  - {code: en, reason: the language of the question}\n",
        "  - {code: en}\n  - {code: Elvish, reason: x}\n  - {code: German, reason: suppliers}\n"
        "  - {code: de, reason: again}\n  - just text\n",
    )
    assert parse_plan(write(tmp_path, bad), max_tasks=6)[1] == [
        "languages item 1 (en): give the reason it is worth searching in",
        "languages item 2: 'Elvish' is not a known language (known codes: en, zh, ja, ko, de, fr, es, it, pt, "
        "nl, pl, sv, da, no, fi, cs, hu, ro, tr, id, vi, ru, uk, el, he, ar, fa, hi, th)",
        "languages item 4: de is listed twice",
        "languages item 5: expected a mapping with code (such as de) and reason",
    ]
    none = PLAN.replace("  - {code: en, reason: the language of the question}\n", "").replace(
        "languages:\n", ""
    )
    assert parse_plan(write(tmp_path, none), max_tasks=6)[1] == [
        "languages: expected a non-empty list of {code, reason}: the languages worth searching in, the "
        "question's first"
    ]


def test_code_adds_the_questions_language_and_applies_the_persons_choice() -> None:
    question = "How many battery cells does Europe buy from China?"
    assert settle([ZH], question, parse_choice([])) == [PlannedLanguage("en", QUESTION), ZH]
    assert settle([ZH], question, parse_choice(["+de", "-en"])) == [ZH, PlannedLanguage("de", PERSON)]
    assert settle([ZH], question, parse_choice(["zh", "ja"])) == [ZH, PlannedLanguage("ja", PERSON)]
    assert settle([ZH], "欧洲从中国购买多少电池？", parse_choice([])) == [ZH]  # already the question's
    doc = TaskDoc(FrontMatter("t", "q", languages=[PlannedLanguage("en", QUESTION), ZH]))
    assert apply_choice(doc, ["-zh +German"]) == [
        PlannedLanguage("en", QUESTION),
        PlannedLanguage("de", PERSON),
    ]
    assert doc.front.languages[1].code == "de"
    for entries in (["-en -de"], ["+xx"]):
        try:
            apply_choice(doc, entries)
        except ValueError as exc:
            assert "no language" in str(exc) or "not a known language" in str(exc)
        else:
            raise AssertionError(entries)
    assert [p.code for p in doc.front.languages] == ["en", "de"]  # a refused change changes nothing


def test_statements_are_in_the_report_language() -> None:
    assert (
        statement_language(None, "Wie viele Wärmepumpen wurden 2024 in Deutschland verkauft?")
        == "German (de)"
    )
    assert statement_language("English", "Wie viele Wärmepumpen?") == "English"


BRIEFS = """---
briefs:
  - task: E1
    brief: Goal - find the share of cells bought from Chinese manufacturers.
    queries:
      en: [EU battery cell imports China share]
      zh: 欧洲 电池 进口 份额
"""


def test_briefs_give_queries_in_each_planned_language_written_in_it(tmp_path: Path) -> None:
    briefs, problems = parse_briefs(write(tmp_path, BRIEFS + "---\n"), ["E1"], ["en", "zh"])
    assert problems == [] and briefs is not None
    assert briefs["E1"].queries == {
        "en": ["EU battery cell imports China share"],
        "zh": ["欧洲 电池 进口 份额"],
    }
    assert (
        briefs["E1"]
        .render()
        .endswith(
            "\n\nQueries to start from, by language:\n- English (en): EU battery cell imports China share\n"
            "- Chinese (zh): 欧洲 电池 进口 份额\n"
        )
    )
    wrong = (
        BRIEFS.replace("欧洲 电池 进口 份额", "battery imports Europe")
        + "      de: [Batteriezellen Import]\n"
    )
    assert parse_briefs(write(tmp_path, wrong + "---\n"), ["E1"], ["en", "zh", "ja"])[1] == [
        "brief for E1: the query 'battery imports Europe' is not written in Chinese (zh)",
        "brief for E1: queries in de, which is not a planned language (en, zh, ja)",
        "brief for E1: no query in Japanese (ja); give at least one query in each planned language",
    ]
    assert parse_briefs(write(tmp_path, BRIEFS + "---\n"), ["E1"])[0] == {  # no languages planned: none asked
        "E1": Brief("Goal - find the share of cells bought from Chinese manufacturers.")
    }


def doc_with(languages: list[PlannedLanguage]) -> TaskDoc:
    """E1 covered and backed, so that only the languages rule can keep it open."""
    return TaskDoc(
        FrontMatter("t", "How many cells does Europe buy from China?", languages=languages),
        dimensions=[Dimension("D1", "Imports")],
        tasks=[Task("E1", "Cell imports", ["D1"])],
        sources=[Source("S01", "Stats", "https://stats.example/a", "official", authority=1.0)],
        facts=[Fact("Fact-001", "Imports rose.", ["S01"], verified=Verified.YES, task="E1")],
    )


SAT = Saturation(
    k_initial=5, k_expand=10, min_batches=1, max_batches=10, saturation_threshold=1, min_tier1_sources=1
)


def test_a_task_with_no_query_in_a_planned_language_is_not_saturated() -> None:
    doc = doc_with([PlannedLanguage("en", QUESTION), ZH])
    progress = TaskProgress("E1", calls=1, numbered=1, batches=2, streak=1)
    task = doc.tasks[0]
    verdict = decide(progress, doc, task, SAT, Config(), [], {"en": 3})
    gap = "no query yet in Chinese (zh), planned because: most cells are made by Chinese manufacturers"
    assert verdict.more and verdict.missing == [gap] and verdict.reason == gap
    assert not decide(progress, doc, task, SAT, Config(), [], {"en": 3, "zh": 1}).more
    # the last allowed call: the task ends, and says what it still lacks
    spent = TaskProgress("E1", calls=2, numbered=2, batches=3, streak=1)
    final = decide(spent, doc, task, SAT, Config(), [], {"en": 3})
    assert not final.more and final.reason == f"max_calls_per_task (2) used; still missing: {gap}"
    assert not decide(progress, doc, task, SAT, Config(), []).more  # languages not checked


def test_the_language_rule_on_its_own() -> None:
    planned = [PlannedLanguage("en", QUESTION), ZH, PlannedLanguage("de", "")]
    assert missing_languages(planned, {"en": 2, "": 1}) == [
        "no query yet in Chinese (zh), planned because: most cells are made by Chinese manufacturers",
        "no query yet in German (de)",
    ]
    assert missing_languages(planned, {}) == []  # no search at all: the other rules speak for it
    assert missing_languages([], {"en": 1}) == []


def test_queries_are_counted_once_per_language_and_read_again_among_the_planned() -> None:
    lines = [
        {"query": "電池 市場", "task": "E1", "language": "zh", "rank": 1},
        {"query": "電池 市場", "task": "E1", "language": "zh", "rank": 2},  # one query, two results
        {"query": "heat pumps", "task": "E1", "language": "", "rank": 1},
        {"query": "Wärmepumpen Absatz", "task": "E1", "rank": 1},  # an older log: no language field
        {"query": "other task", "task": "E2", "language": "en", "rank": 1},
    ]
    assert query_languages(lines, ["ja", "en"], "E1") == {"ja": 1, "en": 1, "de": 1}
    assert query_languages(lines) == {"zh": 1, "": 1, "de": 1, "en": 1}


def test_the_method_note_counts_queries_and_sources_per_language(tmp_path: Path) -> None:
    doc = doc_with([PlannedLanguage("en", QUESTION), ZH, PlannedLanguage("de", "suppliers")])
    doc.sources = [
        Source("S01", "Stats", "https://stats.example/a", "official", language="en"),
        Source("S02", "海关统计", "https://stats.example.cn/b", "official", language="zh"),
        Source("S03", "Rapport", "https://example.fr/c", "news", language="fr"),
        Source("S04", "Old row", "https://example.org/d", "news"),
    ]
    (tmp_path / "logs").mkdir()
    log = [
        '{"query": "EU cell imports", "language": "en"}',
        '{"query": "欧洲 电池 进口", "language": "zh"}',
        '{"query": "欧洲 电池 进口", "language": "zh"}',
    ]
    (tmp_path / "logs" / "search_results.jsonl").write_text("\n".join(log) + "\n")
    references = render_references("Imports rose [S02]. See also [S03].\n", doc, tmp_path)
    [row] = [line for line in references.splitlines() if line.startswith("| Languages searched |")]
    assert row == (
        "| Languages searched | English (en): 1 query, 1 source (0 cited) · Chinese (zh): 1 query, 1 source "
        "(1 cited) · German (de): 0 queries, 0 sources (0 cited) · French (fr): 0 queries, 1 source (1 cited) "
        "· language unknown: 1 source (0 cited) |"
    )
