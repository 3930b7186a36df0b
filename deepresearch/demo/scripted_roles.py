"""What each role writes when a script plays it: the output files of a scripted agent, shared by
`deepresearch demo`'s agent (`demo/agent.py`), the tests' fake agent CLI (`tests/fake_agent`) and
their scripted model server (`tests/model_server.py`).

Every builder returns the text of the role's output file (the formats defined by `prompts/*.md.j2`),
computed from the rendered prompt and the workspace, exactly as a well-behaved model would write it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml


def header(prompt: str, name: str) -> str:
    """A `Name: value` line of a rendered prompt's header (Role, Task, Round, Output file)."""
    match = re.search(rf"^{name}:\s*(.+)$", prompt, re.M)
    return match.group(1).strip() if match else ""


def archive_command(prompt: str) -> list[str] | None:
    """The archive command an executor prompt names ("- Archive: `<command> [--batch N] URL`"),
    without the batch option (callers add `--batch <number>` themselves)."""
    match = re.search(r"- Archive: `([^`]+?)(?: --batch N)?(?: URL)?`", prompt)
    return shlex.split(match.group(1)) if match else None


def search_command(prompt: str) -> tuple[list[str], int] | None:
    """The search command an executor prompt names, without `--batch N`, and its `-k`."""
    match = re.search(r'- Search: `(.+?)(?: --batch N)? -k (\d+) "short query"`', prompt)
    return (shlex.split(match.group(1)), int(match.group(2))) if match else None


def batch_plan(prompt: str) -> dict[str, int]:
    """What an executor prompt asks of this call: first and last batch, the stop rule, the call."""
    span = re.search(r"^Batches: from (\d+) to (\d+)$", prompt, re.M)
    rule = re.search(
        r"saturated after (\d+) batch(?:es)? in a row with nothing new, at least (\d+) batch", prompt
    )
    call = re.search(r"^Call: (\d+)", prompt, re.M)
    first = int(span.group(1)) if span else 1
    return {
        "first": first,
        "last": int(span.group(2)) if span else first,
        "threshold": int(rule.group(1)) if rule else 1,
        "min_batches": int(rule.group(2)) if rule else 1,
        "call": int(call.group(1)) if call else 1,
    }


def dump(data: dict[str, Any]) -> str:
    """YAML front matter (the output-file format of every structured role)."""
    return "---\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False) + "---\n"


def task_rows(workdir: Path, section: str) -> list[list[str]]:
    """The body rows of one pipe table of task.md."""
    text = (workdir / "task.md").read_text(encoding="utf-8")
    match = re.search(rf"^## {section}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    rows = []
    for line in (match.group(1) if match else "").splitlines():
        if line.startswith("|") and not re.match(r"^\|\s*:?-", line):
            rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))])
    return rows[1:]  # drop the header row


DEFAULT_PLAN: dict[str, Any] = {
    "complexity": "comparison",
    "language": "en",
    "languages": [{"code": "en", "reason": "the language of the question"}],
    "dimensions": [
        {"id": "D1", "name": "Facts", "description": "The core facts."},
        {"id": "D2", "name": "Context", "description": "Background and context."},
    ],
    "outline": [
        {"section": "Core facts", "dimensions": ["D1"], "questions": "What are the facts?"},
        {"section": "Context", "dimensions": ["D2"], "questions": "What is the context?"},
    ],
    "tasks": [
        {"id": "E1", "task": "Research the core facts", "dimensions": ["D1"], "priority": "high", "depends": []},
        {"id": "E2", "task": "Research the context", "dimensions": ["D2"], "priority": "medium", "depends": []},
    ],
}  # fmt: skip


# A follow-up's default plan: the known facts answer it (no new dimension, no task).
FOLLOW_UP_PLAN: dict[str, Any] = {
    "complexity": "simple",
    "language": "en",
    "languages": [{"code": "en", "reason": "the language of the question"}],
    "dimensions": [],
    "outline": [{"section": "What is known", "dimensions": ["D1"], "questions": "What do the facts say?"}],
    "tasks": [],
}


def plan_output(spec: dict[str, Any], prompt: str = "") -> str:
    """The planner's plan: the default two-task plan (a follow-up's: nothing new) with `spec`'s keys
    replacing its parts."""
    base = FOLLOW_UP_PLAN if "## What this workspace already knows" in prompt else DEFAULT_PLAN
    return dump({key: spec.get(key, value) for key, value in base.items()})


def clarify_output(spec: dict[str, Any]) -> str:
    """The planner's clarifying questions."""
    return dump({"questions": spec.get("questions", ["Which time range?"])})


# Words to start a query with, per language (a query under `zh` must be written in Chinese).
QUERY_WORDS = {"en": "market share", "de": "Marktanteil Deutschland", "fr": "part de marché",
               "es": "cuota de mercado", "zh": "市场份额", "ja": "市場シェア"}  # fmt: skip


def brief_queries(prompt: str) -> list[str]:
    """The queries the brief in an executor prompt gives, in every language ("- German (de): a; b")."""
    if "Queries to start from, by language:" not in prompt:
        return []
    block = prompt.split("Queries to start from, by language:", 1)[1].split("\n\n", 1)[0]
    return [q.strip() for line in re.findall(r"^- [^:\n]+: (.+)$", block, re.M) for q in line.split("; ")]


def briefs_output(prompt: str) -> str:
    """The supervisor's briefs: one per task listed under "## Tasks to brief", with a query in each
    language listed under "## Languages to search"."""
    block = prompt.split("## Tasks to brief", 1)[1].split("\n## ", 1)[0]
    ids = re.findall(r"^- ((?:E|C)\d+) ", block, re.M)
    listed = (
        prompt.split("## Languages to search", 1)[1].split("\n## ", 1)[0]
        if "## Languages to search" in prompt
        else ""
    )
    codes = re.findall(r"^- [^\n(]*\((\w+)\)", listed, re.M)
    briefs = [
        {"task": t, "brief": f"Goal: answer task {t} from primary sources; stop when done.",
         "queries": {code: [f"{t} {QUERY_WORDS.get(code, code)}"] for code in codes}}
        for t in ids
    ]  # fmt: skip
    return dump({"briefs": briefs})


def page_value(task: str) -> int:
    """The number the test page server (tests.helpers.PageServer) states for `task`."""
    return 10 + sum(ord(c) for c in task) % 80


def finds_in(batch: int, spec: dict[str, Any]) -> bool:
    """Whether a scripted executor finds something new in `batch`: batches 1..`finds` do (default
    1; `finds` may also list the batch numbers), every batch does with `keeps_finding`."""
    finds = spec.get("finds", 1)
    if isinstance(finds, list):
        return batch in finds
    return bool(spec.get("keeps_finding")) or batch <= int(finds)


def batch_dimensions(batch: int, spec: dict[str, Any]) -> list[str]:
    """The dimensions a scripted executor's facts name in `batch`: `dimensions`, changed from batch
    N on by `batch_dimensions: {N: [...]}`."""
    dims = list(spec.get("dimensions") or [])
    for start, later in sorted((int(k), v) for k, v in (spec.get("batch_dimensions") or {}).items()):
        if batch >= start:
            dims = list(later)
    return dims


def default_findings(
    task: str, page_base: str, batch: int = 1, spec: dict[str, Any] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The pages a scripted executor archives in `batch` and one fact quoting each.

    A batch that finds something reads new pages: `<TASK>` in batch 1 and `<TASK>b<N>` later (with
    `pages: P`, P pages `<TASK>p<i>` / `<TASK>b<N>p<i>` each). A batch that finds nothing reads the
    task's first page again (`<TASK>` or `<TASK>p1`) and states its fact again (reworded with `restates`, so that it is merged as a new fact holding
    known numbers). `source_type` sets the type, `dimensions` the dimensions the facts name."""
    spec = spec or {}
    fresh, pages = finds_in(batch, spec), int(spec.get("pages", 1))
    base = task if batch == 1 or not fresh else f"{task}b{batch}"
    names = [f"{base}p{i}" for i in range(1, pages + 1)] if pages > 1 else [base]
    if not fresh:
        names = names[:1]  # the first page read, read again
    restated = not fresh and bool(spec.get("restates"))
    sources, facts = [], []
    for n, name in enumerate(names, 1):
        label = f"A{n}" if len(names) > 1 else "A"
        value = page_value(name)
        sources.append(
            {"id": label, "url": f"{page_base}/{name}.html", "title": f"{name} bulletin",
             "type": spec.get("source_type", "official"), "archive": True}
        )  # fmt: skip
        statement = (
            f"According to the bureau's annual survey, the {name} index stood at {value} points in 2025."
            if restated
            else f"The {name} index reached {value} points in 2025."
        )
        fact = {"statement": statement, "sources": [label], "confidence": "high",
                "quote": f"In 2025 the {name} index reached {value} points"}  # fmt: skip
        if batch_dimensions(batch, spec):
            fact["dimensions"] = batch_dimensions(batch, spec)
        facts.append(fact)
    return sources, facts


def executor_document(
    task: str,
    sources: list[dict[str, Any]],
    facts: list[dict[str, Any]],
    labels: dict[str, str],
    assessment: str = "Done.",
    contradictions: list[str] | None = None,
    batches: list[dict[str, Any]] | None = None,
) -> str:
    """The executor's findings; `labels` maps a source's local label to the ID the archive printed.
    Facts get ids F1, F2... when they have none; without `batches`, one batch holds them all."""
    out_sources = []
    for n, src in enumerate(sources, 1):
        entry = {k: v for k, v in src.items() if k != "archive"}
        entry.setdefault("id", f"L{n}")
        entry["id"] = labels.get(entry["id"], entry["id"])
        out_sources.append(entry)
    facts = [
        {"id": f.get("id", f"F{n}"), **{k: v for k, v in f.items() if k != "id"},
         "sources": [labels.get(s, s) for s in f["sources"]]}
        for n, f in enumerate(facts, 1)
    ]  # fmt: skip
    if batches is None:
        archived = [labels[s["id"]] for s in sources if s.get("id") in labels]
        batches = [{"batch": 1, "queries": [], "sources": archived, "facts": [f["id"] for f in facts],
                    "new": True, "reason": "first findings"}]  # fmt: skip
    data = {"task": task, "sources": out_sources, "facts": facts, "batches": batches,
            "assessment": assessment, "complete": True}  # fmt: skip
    if contradictions:
        data["contradictions"] = contradictions
    return dump(data)


def reflector_output(spec: dict[str, Any], round_no: int) -> str:
    """The reflector's assessment: `spec.default` (score 8, stop) updated by `spec.rounds[round]`."""
    data = dict(spec.get("default") or {"score": 8, "knowledge_gaps": [], "recommendation": "stop"})
    data.update((spec.get("rounds") or {}).get(round_no) or {})
    return dump(data)


def synthesizer_output(spec: dict[str, Any], workdir: Path, repair: bool) -> str:
    """The report: `spec.report` when scripted, else one cited sentence per fact of task.md."""
    if spec.get("report_first") and not repair:
        return str(spec["report_first"])
    if spec.get("report"):
        return str(spec["report"])
    question = header((workdir / "task.md").read_text(encoding="utf-8"), "question")
    lines = [f"# Report: {question.strip(chr(39) + chr(34))}", "", "## Executive summary", ""]
    facts = task_rows(workdir, "Facts")
    for row in facts:
        cites = "".join(f"[{s.strip()}]" for s in row[2].split(",") if s.strip())
        lines.append(f"{row[1].rstrip('.')} {cites}.")
    if facts:
        first = facts[0][2].split(",")[0].strip()
        lines += [
            "",
            "## Limitations",
            "",
            f"This report rests only on the facts recorded in task.md [{first}].",
        ]
    return "\n".join(lines) + "\n"


def verifier_items(prompt: str) -> list[tuple[str, str]]:
    """(ID, text) of each item under the verifier prompt's "## Items to judge"."""
    block = (
        prompt.split("## Items to judge", 1)[1].split("\n## ", 1)[0] if "## Items to judge" in prompt else ""
    )
    return re.findall(r"^### (\S+)\n(.*?)(?=^### |\Z)", block, re.M | re.S)


def verifier_output(spec: dict[str, Any], prompt: str) -> str:
    """The verifier's verdicts: supported, unless an item's text holds a phrase listed under
    `spec.unsupported` or `spec.partial`."""
    verdicts = []
    for item_id, text in verifier_items(prompt):
        support, reason = "supported", "The evidence states it."
        for level in ("partial", "unsupported"):
            phrase = next((p for p in spec.get(level) or [] if p in text), None)
            if phrase is not None:
                support, reason = level, f"The cited evidence does not say '{phrase}'."
        verdicts.append({"id": item_id, "support": support, "reason": reason})
    return dump({"verdicts": verdicts})
