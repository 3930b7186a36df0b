"""What each role writes in tests: the output files of a scripted agent, shared by the fake agent CLI
(`tests/fake_agent`) and the scripted model server (`tests/model_server.py`).

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
    """The archive command an executor prompt names ("- Archive: `<command> URL`", or the URL
    outside the backticks)."""
    match = re.search(r"- Archive: `([^`]+?)(?: URL)?`", prompt)
    return shlex.split(match.group(1)) if match else None


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


def plan_output(spec: dict[str, Any]) -> str:
    """The planner's plan: the default two-task plan with `spec`'s keys replacing its parts."""
    return dump({key: spec.get(key, value) for key, value in DEFAULT_PLAN.items()})


def clarify_output(spec: dict[str, Any]) -> str:
    """The planner's clarifying questions."""
    return dump({"questions": spec.get("questions", ["Which time range?"])})


def briefs_output(prompt: str) -> str:
    """The supervisor's briefs: one per task listed under "## Tasks to brief"."""
    block = prompt.split("## Tasks to brief", 1)[1].split("\n## ", 1)[0]
    ids = re.findall(r"^- ((?:E|C)\d+) ", block, re.M)
    briefs = [
        {"task": t, "brief": f"Goal: answer task {t} from primary sources; stop when done."} for t in ids
    ]
    return dump({"briefs": briefs})


def page_value(task: str) -> int:
    """The number the test page server (tests.helpers.PageServer) states for `task`."""
    return 10 + sum(ord(c) for c in task) % 80


def default_findings(
    task: str, page_base: str, batch: int = 1, spec: dict[str, Any] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One page to archive per task (`<page_base>/<TASK>.html`) and one fact quoting it.

    Later batches read page <TASK>b<N> when the task's spec sets `keeps_finding` (a new source and a
    new verified fact each batch), else page <TASK> again (nothing new). `source_type` sets the type."""
    spec = spec or {}
    name = f"{task}b{batch}" if batch > 1 and spec.get("keeps_finding") else task
    value = page_value(name)
    sources = [
        {
            "id": "A",
            "url": f"{page_base}/{name}.html",
            "title": f"{name} bulletin",
            "type": spec.get("source_type", "official"),
            "archive": True,
        }
    ]
    facts = [
        {
            "statement": f"The {name} index reached {value} points in 2025.",
            "sources": ["A"],
            "quote": f"In 2025 the {name} index reached {value} points",
            "confidence": "high",
        }
    ]
    return sources, facts


def executor_document(
    task: str,
    sources: list[dict[str, Any]],
    facts: list[dict[str, Any]],
    labels: dict[str, str],
    assessment: str = "Done.",
    contradictions: list[str] | None = None,
) -> str:
    """The executor's findings; `labels` maps a source's local label to the ID the archive printed."""
    out_sources = []
    for n, src in enumerate(sources, 1):
        entry = {k: v for k, v in src.items() if k != "archive"}
        entry.setdefault("id", f"L{n}")
        entry["id"] = labels.get(entry["id"], entry["id"])
        out_sources.append(entry)
    facts = [{**f, "sources": [labels.get(s, s) for s in f["sources"]]} for f in facts]
    data = {"task": task, "sources": out_sources, "facts": facts, "assessment": assessment, "complete": True}
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
