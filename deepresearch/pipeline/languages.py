"""The run's languages: the planned ones with the person's say applied, and which a task searched in.

The planner names the languages worth searching, each with a reason; code adds the question's own
language when the planner left it out, then applies the person's choice (`languages:` in input.md
or a config file, or the plan review): exactly these, `+de` added, `-fr` removed. task.md's front
matter keeps the result. A task's searched languages come from the search log, where each query's
language was detected by code when it was made.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from deepresearch.core.langdetect import detect_language
from deepresearch.core.languages import LanguageChoice, describe, parse_choice
from deepresearch.core.workspace import Workspace
from deepresearch.search.searchlog import query_languages, read_search_log
from deepresearch.state.model import PlannedLanguage, TaskDoc

QUESTION = "the language of the question"
PERSON = "asked for by the person"


def question_language(request: str) -> str:
    """The code of the language the request is written in ("" when code cannot tell)."""
    return detect_language(request)


def settle(planned: Sequence[PlannedLanguage], request: str, choice: LanguageChoice) -> list[PlannedLanguage]:
    """The languages to search: the planner's, the question's own first when missing, then the
    person's choice applied (a language the person adds keeps the planner's reason when it had one)."""
    reasons = {p.code: p.reason for p in planned}
    order = [p.code for p in planned]
    own = question_language(request)
    if own and own not in reasons:
        reasons[own] = QUESTION
        order.insert(0, own)
    return [PlannedLanguage(code, reasons.get(code) or PERSON) for code in choice.wanted(order)]


def apply_choice(doc: TaskDoc, entries: Iterable[str]) -> list[PlannedLanguage]:
    """Apply the person's entries (`en zh`, `+de`, `-fr`) to the document's languages and return
    them; raises ValueError naming a bad entry, and refuses to leave no language at all."""
    wanted = settle(doc.front.languages, "", parse_choice(entries))
    if not wanted:
        raise ValueError("that leaves no language to search in; name at least one")
    doc.front.languages = wanted
    return wanted


def task_languages(workspace: Workspace, doc: TaskDoc, task_id: str) -> Counter[str]:
    """The task's queries per language, read from logs/search_results.jsonl."""
    planned = [p.code for p in doc.front.languages]
    return query_languages(read_search_log(workspace), planned, task_id)


def language_lines(languages: Sequence[PlannedLanguage]) -> list[str]:
    """One line per planned language for a prompt: `German (de): why it is searched`."""
    return [f"{describe(p.code)}: {p.reason}" if p.reason else describe(p.code) for p in languages]


def statement_language(configured: str | None, request: str) -> str:
    """The language facts and the report are written in: the configured one, else the question's."""
    if configured:
        return configured
    own = question_language(request)
    return describe(own) if own else "the language of the research question"
