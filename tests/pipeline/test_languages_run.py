"""A run that must search in two languages, through the real command and the fake agent: the key
figure is only on a German page, the question is in English.

The planner plans English and German; the briefs give queries in both; the executor's first call
searches in English only, so code keeps the task open ("no query yet in German") and the second
call, told so, searches in German and archives the German page. Its fact quotes the German text
("4,8 GW") and states the figure in English ("4.8 GW"): the quote check and the number grounding
pass across the two, and the Sources table and the report's method note show both languages.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.pipeline.test_adaptive import run
from tests.search.search_mock_server import MockProviders

PAGES = {
    "/en/bulletin.html": (
        "en",
        "Heat pump market bulletin 2024",
        "<p>The national heat pump association publishes this bulletin every spring for installers and "
        "the public.</p><p>In 2024 installers fitted 310,000 heat pumps across the country, the "
        "association said in its annual market report.</p><p>The association does not publish the "
        "capacity of the installed units; the grid operator collects those figures.</p>",
    ),
    "/de/bericht.html": (
        "de",
        "Bericht des Netzbetreibers 2024",
        "<p>Der Netzbetreiber veröffentlicht jedes Jahr einen Bericht über die angeschlossenen "
        "Wärmepumpen.</p><p>Die installierte Leistung der Wärmepumpen erreichte 2024 insgesamt 4,8 GW, "
        "wie der Netzbetreiber in seinem Jahresbericht mitteilte.</p><p>Die Zahlen beruhen auf den "
        "Meldungen der Verteilnetzbetreiber und werden jedes Jahr im März aktualisiert.</p>",
    ),
}
GERMAN_REASON = "the grid operator publishes the installed capacity only in German"


class TwoLanguageSite:
    """An English and a German page on 127.0.0.1."""

    def __init__(self) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path not in PAGES:
                    self.send_error(404)
                    return
                lang, title, body = PAGES[self.path]
                html = (
                    f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>'
                    f"</head><body><article><h1>{title}</h1>{body}</article></body></html>"
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(html)))
                self.end_headers()
                self.wfile.write(html)

            def log_message(self, *args: object) -> None:
                return None

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def scenario(base: str) -> dict[str, Any]:
    english = {"id": "A", "url": f"{base}/en/bulletin.html", "title": "Bulletin", "archive": True}
    german = {"id": "B", "url": f"{base}/de/bericht.html", "title": "Bericht", "archive": True}
    return {
        "planner": {
            "languages": [
                {"code": "en", "reason": "the language of the question"},
                {"code": "de", "reason": GERMAN_REASON},
            ],
            "dimensions": [{"id": "D1", "name": "Installations", "description": "Units and capacity"}],
            "outline": [{"section": "Installations", "dimensions": ["D1"], "questions": "How many, how much?"}],
            "tasks": [{"id": "E1", "task": "Heat pumps installed in 2024", "dimensions": ["D1"], "priority": "high"}],
        },
        "executor": {
            "E1": {
                # call 1: English queries and the English page only
                "queries": 1,
                "sources": [english],
                "facts": [{"statement": "Installers fitted 310,000 heat pumps in 2024.", "sources": ["A"],
                           "quote": "In 2024 installers fitted 310,000 heat pumps across the country",
                           "confidence": "high", "dimensions": ["D1"]}],
                # call 2: the brief's queries (English and German), and the German page
                "calls": {2: {
                    "queries": 0, "brief_queries": True, "finds": [3], "sources": [german],
                    "facts": [{"statement": "The installed heat-pump capacity reached 4.8 GW in 2024.",
                               "sources": ["B"], "confidence": "high", "dimensions": ["D1"],
                               "quote": "Die installierte Leistung der Wärmepumpen erreichte 2024 insgesamt 4,8 GW"}],
                }},
            },
        },
    }  # fmt: skip


@pytest.fixture(scope="module")
def language_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One run shared by the tests below (they read it, none changes it)."""
    import os

    from tests.helpers import REPO

    tmp_path = tmp_path_factory.mktemp("languages")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPRESEARCH_", "FAKE_AGENT"))}
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "PYTHONPATH": str(REPO)}
    site, providers = TwoLanguageSite(), MockProviders().start()
    try:
        settings = {
            "min_batches": 1, "saturation_threshold": 1, "min_tier1_sources": 0, "max_batches": 10,
            "analysis": "never", "max_figures": 0, "max_rounds": 1,
        }  # fmt: skip
        code, out, doc, events = run(
            tmp_path, {**env, **providers.env(("serper",))}, scenario(site.base), **settings
        )
    finally:
        providers.stop()
        site.close()
    yield {"code": code, "out": out, "doc": doc, "events": events, "work": tmp_path / "ws"}


def test_the_run_completes(language_run: dict[str, Any]) -> None:
    assert language_run["code"] == 0, language_run["out"]


def test_the_planned_languages_reach_task_md_the_briefs_and_the_executor_prompts(
    language_run: dict[str, Any],
) -> None:
    doc, work = language_run["doc"], language_run["work"]
    assert [(p.code, p.reason) for p in doc.front.languages] == [
        ("en", "the language of the question"),
        ("de", GERMAN_REASON),
    ]
    assert (
        f"languages:\n  en: the language of the question\n  de: {GERMAN_REASON}\n"
        in (work / "task.md").read_text()
    )
    supervisor = (work / "logs" / "prompts" / "supervisor.md").read_text()
    assert (
        f"## Languages to search\n- English (en): the language of the question\n- German (de): {GERMAN_REASON}"
        in supervisor
    )
    brief = (work / "logs" / "briefs" / "E1.md").read_text()
    assert (
        "Queries to start from, by language:\n- English (en): E1 market share\n- German (de): E1 Marktanteil Deutschland"
        in brief
    )
    for name in ("E1.md", "E1.call2.md"):
        prompt = (work / "logs" / "prompts" / name).read_text()
        assert f"- German (de): {GERMAN_REASON}" in prompt.split("## Languages to search", 1)[1]
        assert (
            "The quote stays in the source's own language" in prompt and "written in English (en)" in prompt
        )


def test_a_task_with_no_query_in_a_planned_language_gets_another_call_naming_it(
    language_run: dict[str, Any],
) -> None:
    decided = [e for e in language_run["events"] if e["event"] == "task_decided"]
    gap = f"no query yet in German (de), planned because: {GERMAN_REASON}"
    assert [(e["calls"], e["more"], e["missing"]) for e in decided] == [(1, True, [gap]), (2, False, [])]
    second = (language_run["work"] / "logs" / "prompts" / "E1.call2.md").read_text()
    assert (
        f"## Still missing (checked by the orchestrator after your task's earlier calls)\n- {gap}" in second
    )
    assert f"↻ E1 needs another call: {gap}" in language_run["out"]


def test_the_search_log_shows_each_query_in_its_language(language_run: dict[str, Any]) -> None:
    lines = (language_run["work"] / "logs" / "search_results.jsonl").read_text().splitlines()
    queries = {(line["query"], line["language"]) for line in map(json.loads, lines)}
    assert queries == {
        ("E1 query 1.1", "en"),
        ("E1 query 2.1", "en"),
        ("E1 market share", "en"),
        ("E1 Marktanteil Deutschland", "de"),
    }


def test_a_german_quote_grounds_an_english_statement_and_sources_show_their_language(
    language_run: dict[str, Any],
) -> None:
    doc, work = language_run["doc"], language_run["work"]
    [fact] = [f for f in doc.facts if "4.8 GW" in f.statement]
    assert fact.quote.endswith("insgesamt 4,8 GW") and fact.verified.value == "yes"
    assert {s.url.split("/", 3)[-1]: s.language for s in doc.sources} == {
        "en/bulletin.html": "en",
        "de/bericht.html": "de",
    }
    table = (work / "task.md").read_text().split("## Sources", 1)[1].split("## Conflicts", 1)[0]
    assert "| Copy of | Flags | Language |" in table and table.count(" | de |") == 1


def test_the_report_states_the_german_figure_and_its_method_note_counts_each_language(
    language_run: dict[str, Any],
) -> None:
    doc, work = language_run["doc"], language_run["work"]
    german = next(s.id for s in doc.sources if s.language == "de")
    report = (work / "report.md").read_text()
    assert f"4.8 GW in 2024 [{german}]" in report
    assert "## Verification" not in report  # every check passed, the number check included
    assert (
        "| Languages searched | English (en): 3 queries, 1 source (1 cited) · "
        "German (de): 1 query, 1 source (1 cited) |"
    ) in report
