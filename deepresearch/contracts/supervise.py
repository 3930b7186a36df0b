"""The research supervisor's output: one self-contained brief per pending task, with the queries to
start from in each planned language."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.contracts.yamlfile import read_yaml_output
from deepresearch.core.langdetect import detect_language
from deepresearch.core.languages import describe, language_code


@dataclass(frozen=True)
class Brief:
    """A task's brief and its starting queries by language code."""

    text: str
    queries: dict[str, list[str]] = field(default_factory=dict)

    def render(self) -> str:
        """The brief as the executor reads it (logs/briefs/<task>.md): the text, then the queries."""
        lines = [self.text.rstrip()]
        if self.queries:
            lines += ["", "Queries to start from, by language:"]
            lines += [f"- {describe(code)}: " + "; ".join(qs) for code, qs in self.queries.items()]
        return "\n".join(lines) + "\n"


def _queries(raw: Any, task_id: str, languages: Sequence[str], problems: list[str]) -> dict[str, list[str]]:
    """The brief's queries by language: at least one in each planned language, each written in it."""
    if not languages:
        return {}
    if not isinstance(raw, dict):
        problems.append(
            f"brief for {task_id}: queries must map each planned language ({', '.join(languages)}) to a "
            "list of queries written in it"
        )
        return {}
    out: dict[str, list[str]] = {}
    for key, value in raw.items():
        try:
            code = language_code(str(key))
        except ValueError as exc:
            problems.append(f"brief for {task_id}: queries: {exc}")
            continue
        if code not in languages:
            problems.append(
                f"brief for {task_id}: queries in {code}, which is not a planned language ({', '.join(languages)})"
            )
            continue
        items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        queries = [" ".join(str(q).split()) for q in items if str(q).strip()]
        for query in queries:
            if detect_language(query, among=[code]) != code:  # another script: not written in it
                problems.append(
                    f"brief for {task_id}: the query '{query}' is not written in {describe(code)}"
                )
        out[code] = queries
    missing = [code for code in languages if not out.get(code)]
    if missing:
        problems.append(
            f"brief for {task_id}: no query in {', '.join(map(describe, missing))}; give at least one "
            "query in each planned language"
        )
    return {code: out[code] for code in languages if out.get(code)}


def parse_briefs(
    path: Path, expected: list[str], languages: Sequence[str] = ()
) -> tuple[dict[str, Brief] | None, list[str]]:
    """Briefs by task ID for every task in `expected` (with queries in each of `languages`), or
    None and the problems."""
    data, _notes, problems = read_yaml_output(path)
    if data is None:
        return None, problems
    raw = data.get("briefs")
    if not isinstance(raw, list):
        return None, ["briefs: expected a list of {task, brief, queries}"]
    briefs: dict[str, Brief] = {}
    for n, item in enumerate(raw, 1):
        if not isinstance(item, dict) or not str(item.get("task", "")).strip():
            problems.append(f"briefs item {n}: expected a mapping with task, brief and queries")
            continue
        task_id = str(item["task"]).strip()
        brief = str(item.get("brief", "")).strip()
        if task_id not in expected:
            problems.append(
                f"briefs item {n}: task {task_id} is not one of the tasks to brief ({', '.join(expected)})"
            )
        elif len(brief) < 20:
            problems.append(
                f"brief for {task_id}: too short; state the goal, questions, scope and when to stop"
            )
        else:
            briefs[task_id] = Brief(brief, _queries(item.get("queries"), task_id, languages, problems))
    missing = [t for t in expected if t not in briefs]
    if missing:
        problems.append(f"no brief for {', '.join(missing)}: write one brief per task listed")
    return (None, problems) if problems else (briefs, [])
