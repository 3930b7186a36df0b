"""What the analyst and the chart planner write when a script plays them, and the default report
that follows the outline.

Used by the tests' fake agent CLI (`tests/fake_agent`) and scripted model server. Each builder
reads task.md as a model would (its pipe tables), and returns the text of the role's output file in the format its prompt asks for.

Scenario keys (all optional):
  analyst:     {analysis: TEXT, analysis_first: TEXT (first call only, not the repair)}
  charts:      {figures: LIST (written as given; [] for none),
                types: [bar, table, ...] (default [bar, table]: one figure per type from the facts),
                broken: [N, ...] (figures at these positions chart a number no fact states),
                broken_first: [N, ...] (the same, on the first call only: the repair fixes them)}
  synthesizer: {report, report_first} (see fake_agent); by default a report whose `##` headings are
               the outline's sections, referring to every figure its prompt lists; `append_first`: a
               paragraph added to the default report on the first call only (the repair drops it).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

_INDEX_FACT = re.compile(r"The (\w+) index reached (\d+) points")


def table(workdir: Path, section: str) -> list[list[str]]:
    """The body rows of one pipe table of task.md."""
    text = (workdir / "task.md").read_text(encoding="utf-8")
    match = re.search(rf"^## {section}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    rows = []
    for line in (match.group(1) if match else "").splitlines():
        if line.startswith("|") and not re.match(r"^\|\s*:?-", line):
            rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))])
    return rows[1:]


def records(workdir: Path, section: str) -> list[dict[str, str]]:
    """The rows of one pipe table of task.md as {column header: cell}."""
    text = (workdir / "task.md").read_text(encoding="utf-8")
    match = re.search(rf"^## {section}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    lines = [line for line in (match.group(1) if match else "").splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))] for line in lines]
    return [dict(zip(cells[0], row, strict=True)) for row in cells[2:]] if len(cells) > 1 else []


def _outline_facts(workdir: Path) -> set[str]:
    """The facts a report on the outline draws on: those of tasks (or naming dimensions) in its sections."""
    wanted = {d for row in records(workdir, "Outline") for d in _ids(row["Dimensions"])}
    tasks = {row["ID"]: set(_ids(row["Dimensions"])) for row in records(workdir, "Research DAG")}
    return {
        row["ID"]
        for row in records(workdir, "Facts")
        if (set(_ids(row.get("Dimensions", ""))) or tasks.get(row["Task"], set())) & wanted
    }


def _ids(cell: str) -> list[str]:
    return [part.strip() for part in cell.split(",") if part.strip() and part.strip() != "-"]


def _cites(cell: str) -> str:
    return "".join(f"[{s}]" for s in _ids(cell))


def analyst_output(spec: dict[str, Any], workdir: Path, repair: bool) -> str:
    """The critical analysis: scripted text, else one cited sentence per fact in each section."""
    if spec.get("analysis_first") and not repair:
        return str(spec["analysis_first"])
    if spec.get("analysis"):
        return str(spec["analysis"])
    facts = table(workdir, "Facts")
    lines = ["# Critical analysis", "", "## Perspectives", ""]
    lines += [f"Supporters would cite {row[0]}: {row[1].rstrip('.')} {_cites(row[2])}." for row in facts]
    lines += ["", "## Counter-evidence", ""]
    lines += [f"No fact contradicts {row[0]}, which rests on one source {_cites(row[2])}." for row in facts]
    lines += ["", "## Assumptions", ""]
    lines += [f"- That the source of {row[0]} is representative {_cites(row[2])}." for row in facts]
    lines += [
        "",
        "## Conclusions",
        "",
        f"The findings rest only on the facts recorded in task.md {_cites(facts[0][2])}.",
    ]
    return "\n".join(lines) + "\n"


def _index_points(workdir: Path) -> list[dict[str, Any]]:
    """One point per fact stating an index value: label, value and the fact it comes from."""
    points = []
    for row in table(workdir, "Facts"):
        match = _INDEX_FACT.search(row[1])
        if match:
            points.append({"label": match.group(1), "value": int(match.group(2)), "fact": row[0]})
    return points


def _figure(kind: str, points: list[dict[str, Any]], broken: bool) -> dict[str, Any]:
    if broken:  # a number that no fact states: grounding must reject it
        points = [{**points[0], "value": points[0]["value"] + 1000}, *points[1:]]
    return {
        "type": kind,
        "title": f"Index values in 2025 ({kind})",
        "x_label": "Index",
        "y_label": "Value",
        "unit": "points",
        "caption": "Each index as its bulletin reported it.",
        "points": points,
    }


def charts_output(spec: dict[str, Any], workdir: Path, repair: bool) -> str:
    """The chart specs: scripted figures, else one figure per type drawn from the index facts."""
    if "figures" in spec:
        figures = spec["figures"] or []
    else:
        points = _index_points(workdir)
        broken = set(spec.get("broken") or []) | (set() if repair else set(spec.get("broken_first") or []))
        kinds = spec.get("types") or ["bar", "table"]
        figures = [_figure(kind, points, n in broken) for n, kind in enumerate(kinds, 1)] if points else []
    body = yaml.safe_dump({"figures": figures}, allow_unicode=True, sort_keys=False)
    return f"# Charts\n\n```yaml\n{body}```\n"


def _prompt_figures(prompt: str) -> list[tuple[str, str]]:
    """(label, first source) of each figure the synthesizer prompt lists."""
    block = prompt.split("## Figures", 1)[1].split("\n## ", 1)[0] if "## Figures" in prompt else ""
    return re.findall(r"^- (Figure \d+|图 \d+): .*?\(data from \[(S\d+)\]", block, re.M)


def _offered(prompt: str, facts: list[list[str]]) -> list[list[str]]:
    """The Facts rows the synthesizer's prompt offers (all of them when it lists none)."""
    if "## The facts you may use" not in prompt:
        return facts
    section = prompt.split("## The facts you may use", 1)[1].split("\n## ", 1)[0]
    offered = set(re.findall(r"^- (Fact-\d+) ", section, re.M))
    return [row for row in facts if row[0] in offered]


def report_output(spec: dict[str, Any], workdir: Path, repair: bool, prompt: str) -> str:
    """The report: scripted text, else a summary, one `##` section per outline row, and limitations."""
    if spec.get("report_first") and not repair:
        return str(spec["report_first"])
    if spec.get("report"):
        return str(spec["report"])
    question = re.search(r"^question:\s*(.+)$", (workdir / "task.md").read_text(encoding="utf-8"), re.M)
    title = question.group(1).strip().strip("'\"") if question else "Research report"
    facts = _offered(prompt, table(workdir, "Facts"))
    dims = {row[0]: set(_ids(row[2])) for row in table(workdir, "Research DAG")}
    sentence = {row[0]: f"{row[1].rstrip('.')} {_cites(row[2])}." for row in facts}
    if spec.get("outline_only"):  # a follow-up's report: only what its outline draws on
        wanted = _outline_facts(workdir)
        facts = [row for row in facts if row[0] in wanted]
        sentence = {k: v for k, v in sentence.items() if k in wanted}
    lines = [f"# Report: {title}", "", "## Executive summary", "", *sentence.values()]
    figures = [
        line
        for label, source in _prompt_figures(prompt)
        for line in ("", f"{label} charts these values [{source}].")
    ]
    outline = table(workdir, "Outline")
    lines += [] if outline else figures
    for n, (section, section_dims, _questions) in enumerate(outline):
        wanted = set(_ids(section_dims))
        mine = [sentence[row[0]] for row in facts if dims.get(row[-1], set()) & wanted]  # Task: last column
        lines += ["", f"## {section}", "", *mine, *(figures if n == 0 else [])]
    if facts:
        lines += [
            "",
            "## Limitations",
            "",
            f"This report rests only on the facts recorded in task.md {_cites(facts[0][2])}.",
        ]
    if spec.get("append_first") and not repair:
        lines += ["", str(spec["append_first"])]
    return "\n".join(lines) + "\n"
