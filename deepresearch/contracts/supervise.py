"""The research supervisor's output: one self-contained brief per pending task."""

from __future__ import annotations

from pathlib import Path

from deepresearch.contracts.yamlfile import read_yaml_output


def parse_briefs(path: Path, expected: list[str]) -> tuple[dict[str, str] | None, list[str]]:
    """Briefs by task ID for every task in `expected`, or None and the problems."""
    data, _notes, problems = read_yaml_output(path)
    if data is None:
        return None, problems
    raw = data.get("briefs")
    if not isinstance(raw, list):
        return None, ["briefs: expected a list of {task, brief}"]
    briefs: dict[str, str] = {}
    for n, item in enumerate(raw, 1):
        if not isinstance(item, dict) or not str(item.get("task", "")).strip():
            problems.append(f"briefs item {n}: expected a mapping with task and brief")
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
            briefs[task_id] = brief
    missing = [t for t in expected if t not in briefs]
    if missing:
        problems.append(f"no brief for {', '.join(missing)}: write one brief per task listed")
    return (None, problems) if problems else (briefs, [])
