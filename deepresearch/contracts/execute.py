"""An executor's output: the sources it relied on and the facts it extracted, with quotes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.contracts.yamlfile import id_list, read_yaml_output, text_list
from deepresearch.state.model import Confidence, Fact, Source

_URL = re.compile(r"^(?:https?://|file:///)\S+$", re.I)  # file://: a local or provided document
SOURCE_TYPES = ("official", "peer-reviewed", "industry", "news", "blog", "forum", "social", "unknown")


@dataclass
class ExecutorOutput:
    sources: list[Source] = field(default_factory=list)  # id = archive ID (S07) or a local label
    facts: list[Fact] = field(default_factory=list)  # sources cite those IDs / labels
    assessment: str = ""
    complete: bool = True
    contradictions: list[str] = field(default_factory=list)  # findings that contradict known facts


def _source(item: Any, n: int, problems: list[str]) -> Source | None:
    if not isinstance(item, dict):
        problems.append(f"sources item {n}: expected a mapping with id, url, title")
        return None
    label = str(item.get("id") or item.get("label") or "").strip()
    url = str(item.get("url", "")).strip()
    if not label:
        problems.append(f"sources item {n}: id is missing (use the ID printed by the archive command)")
    if not _URL.match(url):
        problems.append(f"sources item {n}: url must be an http(s) (or file://) URL, got {url!r}")
    kind = str(item.get("type") or "unknown").strip().lower()
    if kind not in SOURCE_TYPES:
        kind = "unknown"
    if not label or not _URL.match(url):
        return None
    return Source(
        id=label,
        title=str(item.get("title") or url).strip(),
        url=url,
        type=kind,
        published=str(item.get("published") or "").strip(),
    )


def _fact(item: Any, n: int, labels: set[str], task_id: str, problems: list[str]) -> Fact | None:
    if not isinstance(item, dict):
        problems.append(f"facts item {n}: expected a mapping with statement, sources, quote, confidence")
        return None
    statement = str(item.get("statement", "")).strip()
    quote = str(item.get("quote", "")).strip()
    cited = id_list(item.get("sources"))
    where = f"facts item {n}"
    if not statement:
        problems.append(f"{where}: statement is empty")
    if not quote:
        problems.append(f"{where}: quote is empty; copy a short verbatim excerpt of the source")
    if not cited:
        problems.append(f"{where}: sources is empty; cite the id of the source the quote comes from")
    unknown = [c for c in cited if c not in labels]
    if unknown:
        problems.append(f"{where}: cites {', '.join(unknown)}, which is not in your sources list")
    try:
        confidence = Confidence(str(item.get("confidence") or "medium").strip().lower())
    except ValueError:
        problems.append(f"{where}: confidence must be high, medium or low")
        confidence = Confidence.MEDIUM
    if not statement or not quote or not cited or unknown:
        return None
    return Fact(
        id=f"new-{n}", statement=statement, sources=cited, confidence=confidence, quote=quote, task=task_id
    )


def parse_executor(path: Path, task_id: str) -> tuple[ExecutorOutput | None, list[str]]:
    """The executor's findings, or None and the problems to send back."""
    data, notes, problems = read_yaml_output(path)
    if data is None:
        return None, problems
    if str(data.get("task", task_id)).strip() != task_id:
        problems.append(f"task: this file is for {task_id}, not {data.get('task')}")
    raw_sources = data.get("sources") or []
    raw_facts = data.get("facts") or []
    if not isinstance(raw_sources, list) or not isinstance(raw_facts, list):
        return None, ["sources and facts must be YAML lists"]
    sources = [s for n, item in enumerate(raw_sources, 1) if (s := _source(item, n, problems))]
    labels = {s.id for s in sources}
    facts = [f for n, item in enumerate(raw_facts, 1) if (f := _fact(item, n, labels, task_id, problems))]
    if problems:
        return None, problems
    assessment = str(data.get("assessment") or notes or "").strip()
    contradictions = text_list(data.get("contradictions"))
    return ExecutorOutput(sources, facts, assessment, bool(data.get("complete", True)), contradictions), []
