"""An executor's output: the sources it relied on, the facts it extracted (with quotes), and the log
of the Top-K batches it ran inside the call (`batches:`), which code checks against the search log
and the source registry (pipeline/batchcheck.py) before it believes any of it."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.contracts.yamlfile import id_list, read_yaml_output, text_list
from deepresearch.state.model import Confidence, Fact, Source

_URL = re.compile(r"^(?:https?://|file:///)\S+$", re.I)  # file://: a local or provided document
SOURCE_TYPES = ("official", "peer-reviewed", "industry", "news", "blog", "forum", "social", "unknown")


@dataclass(frozen=True)
class BatchEntry:
    """One Top-K batch as the executor logged it."""

    number: int
    queries: list[str] = field(default_factory=list)
    k: int | None = None
    sources: list[str] = field(default_factory=list)  # IDs the archive command printed in this batch
    facts: list[str] = field(default_factory=list)  # labels of the facts this batch added
    new: bool | None = None  # the executor's own judgement: did it bring new relevant information?
    reason: str = ""
    contradictions: list[str] = field(default_factory=list)


@dataclass
class ExecutorOutput:
    sources: list[Source] = field(default_factory=list)  # id = archive ID (S07) or a local label
    facts: list[Fact] = field(default_factory=list)  # id = the fact's label; sources cite IDs / labels
    assessment: str = ""
    complete: bool = True
    contradictions: list[str] = field(default_factory=list)  # findings that contradict known facts
    batches: list[BatchEntry] = field(default_factory=list)  # empty when the file has no batch log


def _source(item: Any, n: int, problems: list[str], known: Mapping[str, Source]) -> Source | None:
    if not isinstance(item, dict):
        problems.append(f"sources item {n}: expected a mapping with id, url, title")
        return None
    label = str(item.get("id") or item.get("label") or "").strip()
    url = str(item.get("url", "")).strip()
    if label in known and not url:  # a known source cited by its ID alone
        return dataclasses.replace(known[label])
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


def _fact(
    item: Any, n: int, labels: set[str], task_id: str, dims: set[str] | None, problems: list[str]
) -> Fact | None:
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
    served = id_list(item.get("dimensions"))
    stray = [d for d in served if dims is not None and d not in dims]
    if stray:
        problems.append(f"{where}: dimensions {', '.join(stray)} are not dimensions of the plan")
    if not statement or not quote or not cited or unknown or stray:
        return None
    label = str(item.get("id") or f"F{n}").strip()
    return Fact(
        id=label, statement=statement, sources=cited, confidence=confidence, quote=quote, task=task_id,
        dimensions=served,
    )  # fmt: skip


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _batch(item: Any, n: int, fact_labels: set[str], problems: list[str]) -> BatchEntry | None:
    where = f"batches item {n}"
    if not isinstance(item, dict):
        problems.append(f"{where}: expected a mapping with batch, queries, k, sources, facts, new, reason")
        return None
    number = _count(item.get("batch"))
    if number is None:
        problems.append(f"{where}: batch must be the batch number (1, 2, ...)")
        return None
    facts = id_list(item.get("facts"))
    unknown = [f for f in facts if f not in fact_labels]
    if unknown:
        problems.append(f"{where}: facts {', '.join(unknown)} are not ids of your facts list")
    new = item.get("new")
    if not isinstance(new, bool):
        problems.append(
            f"{where}: new must be true or false (did this batch bring new relevant information?)"
        )
    return BatchEntry(
        number=number,
        queries=text_list(item.get("queries")),
        k=_count(item.get("k")),
        sources=id_list(item.get("sources")),
        facts=[f for f in facts if f in fact_labels],
        new=new if isinstance(new, bool) else None,
        reason=str(item.get("reason") or "").strip(),
        contradictions=text_list(item.get("contradictions")),
    )


def _batches(raw: Any, facts: list[Fact], problems: list[str]) -> list[BatchEntry]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append("batches must be a YAML list, one item per batch")
        return []
    labels = [f.id for f in facts]
    if len(set(labels)) != len(labels):
        problems.append("facts: two facts have the same id; give each fact its own id (F1, F2, ...)")
    entries = [b for n, item in enumerate(raw, 1) if (b := _batch(item, n, set(labels), problems))]
    numbers = [b.number for b in entries]
    if numbers != sorted(set(numbers)):
        problems.append(f"batches: numbers must increase, each once; found {numbers}")
    listed = [label for b in entries for label in b.facts]
    twice = sorted({label for label in listed if listed.count(label) > 1})
    if twice:
        problems.append(f"batches: facts {', '.join(twice)} are listed in more than one batch")
    return entries


def parse_executor(
    path: Path,
    task_id: str,
    dimensions: Iterable[str] | None = None,
    known: Mapping[str, Source] | None = None,
) -> tuple[ExecutorOutput | None, list[str]]:
    """The executor's findings, or None and the problems to send back. `dimensions`: the plan's
    dimension IDs, which a fact may name (None: not checked); `known`: the sources task.md holds,
    which a fact may cite by ID without listing them (they are added to the sources)."""
    known = known or {}
    data, notes, problems = read_yaml_output(path)
    if data is None:
        return None, problems
    if str(data.get("task", task_id)).strip() != task_id:
        problems.append(f"task: this file is for {task_id}, not {data.get('task')}")
    raw_sources = data.get("sources") or []
    raw_facts = data.get("facts") or []
    if not isinstance(raw_sources, list) or not isinstance(raw_facts, list):
        return None, ["sources and facts must be YAML lists"]
    sources = [s for n, item in enumerate(raw_sources, 1) if (s := _source(item, n, problems, known))]
    labels = {s.id for s in sources}
    cited = {c for item in raw_facts if isinstance(item, dict) for c in id_list(item.get("sources"))}
    for source_id in sorted(cited - labels, key=str):
        if source_id in known:  # cited by ID, not listed: the source task.md knows under that ID
            sources.append(dataclasses.replace(known[source_id]))
            labels.add(source_id)
    dims = set(dimensions) if dimensions is not None else None
    facts = [
        f for n, item in enumerate(raw_facts, 1) if (f := _fact(item, n, labels, task_id, dims, problems))
    ]
    batches = _batches(data.get("batches"), facts, problems)
    if problems:
        return None, problems
    assessment = str(data.get("assessment") or notes or "").strip()
    contradictions = text_list(data.get("contradictions"))
    complete = bool(data.get("complete", True))
    return ExecutorOutput(sources, facts, assessment, complete, contradictions, batches), []
