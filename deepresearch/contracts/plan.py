"""The planner's output: complexity, dimensions, report outline and the first research tasks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.contracts.yamlfile import id_list, read_yaml_output
from deepresearch.core.languages import language_code
from deepresearch.state.model import Dimension, OutlineSection, PlannedLanguage, Priority, Task

COMPLEXITIES = ("simple", "comparison", "analytical")
_TASK_ID = re.compile(r"^E\d+$")
_DIM_ID = re.compile(r"^D\d+$")


@dataclass
class PlanOutput:
    complexity: str
    dimensions: list[Dimension] = field(default_factory=list)
    outline: list[OutlineSection] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    language: str = ""
    languages: list[PlannedLanguage] = field(default_factory=list)  # to search in, with reasons


@dataclass(frozen=True)
class KnownPlan:
    """A follow-up's planner starts from a knowledge base: the dimensions (ID → name) and task IDs
    it holds. Its plan lists only new dimensions and tasks (IDs not in use); known dimensions are
    named by ID; a follow-up that needs no new research has no tasks at all."""

    dimensions: dict[str, str] = field(default_factory=dict)
    tasks: frozenset[str] = frozenset()

    def next_id(self, prefix: str) -> str:
        """The first free ID of a family (D or E)."""
        ids = [i for i in (self.dimensions if prefix == "D" else self.tasks) if i.startswith(prefix)]
        return f"{prefix}{max((int(i[1:]) for i in ids if i[1:].isdigit()), default=0) + 1}"


@dataclass
class ClarifyOutput:
    questions: list[str] = field(default_factory=list)


def _priority(value: Any, where: str, problems: list[str]) -> Priority:
    try:
        return Priority(str(value or "medium").strip().lower())
    except ValueError:
        problems.append(f"{where}: priority must be high, medium or low, got {value!r}")
        return Priority.MEDIUM


def _dimensions(raw: Any, problems: list[str], known: KnownPlan | None = None) -> list[Dimension]:
    if known is not None and raw in (None, []):
        return []  # a follow-up may need no new dimension
    if not isinstance(raw, list) or not raw:
        problems.append("dimensions: expected a non-empty list of {id, name, description}")
        return []
    dims: list[Dimension] = []
    for n, item in enumerate(raw, 1):
        if not isinstance(item, dict) or not str(item.get("name", "")).strip():
            problems.append(f"dimensions item {n}: expected a mapping with id, name and description")
            continue
        dim_id = str(item.get("id") or f"D{n}").strip()
        if not _DIM_ID.match(dim_id):
            problems.append(f"dimensions item {n}: id must look like D1, D2 ..., got {dim_id!r}")
        elif known is not None and dim_id in known.dimensions:
            problems.append(
                f"dimensions item {n}: {dim_id} is already a dimension ({known.dimensions[dim_id]}); list only "
                f"new dimensions, numbered from {known.next_id('D')}, and name known ones by their ID"
            )
        dims.append(Dimension(dim_id, str(item["name"]).strip(), str(item.get("description", "")).strip()))
    return dims


def _outline(raw: Any, dim_ids: set[str], problems: list[str]) -> list[OutlineSection]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append("outline: expected a list of {section, dimensions, questions}")
        return []
    sections: list[OutlineSection] = []
    for n, item in enumerate(raw, 1):
        if not isinstance(item, dict) or not str(item.get("section", "")).strip():
            problems.append(f"outline item {n}: expected a mapping with section, dimensions and questions")
            continue
        dims = id_list(item.get("dimensions"))
        for d in dims:
            if d not in dim_ids:
                problems.append(f"outline item {n}: dimension {d} is not one of the dimensions you listed")
        questions = item.get("questions", "")
        if isinstance(questions, list):
            questions = " ".join(str(q).strip() for q in questions)
        sections.append(OutlineSection(str(item["section"]).strip(), dims, str(questions).strip()))
    return sections


def _languages(raw: Any, problems: list[str]) -> list[PlannedLanguage]:
    """The languages worth searching, each with its reason."""
    if not isinstance(raw, list) or not raw:
        problems.append(
            "languages: expected a non-empty list of {code, reason}: the languages worth searching in, "
            "the question's first"
        )
        return []
    out: list[PlannedLanguage] = []
    for n, item in enumerate(raw, 1):
        if not isinstance(item, dict) or not str(item.get("code") or "").strip():
            problems.append(f"languages item {n}: expected a mapping with code (such as de) and reason")
            continue
        try:
            code = language_code(str(item["code"]))
        except ValueError as exc:
            problems.append(f"languages item {n}: {exc}")
            continue
        reason = " ".join(str(item.get("reason") or "").split())
        if not reason:
            problems.append(f"languages item {n} ({code}): give the reason it is worth searching in")
        elif any(p.code == code for p in out):
            problems.append(f"languages item {n}: {code} is listed twice")
        else:
            out.append(PlannedLanguage(code, reason))
    return out


def _tasks(
    raw: Any, dim_ids: set[str], max_tasks: int, problems: list[str], known: KnownPlan | None = None
) -> list[Task]:
    if known is not None and raw in (None, []):
        return []  # everything the follow-up needs is known: no new research
    if not isinstance(raw, list) or not raw:
        problems.append("tasks: expected a non-empty list of {id, task, dimensions, priority, depends}")
        return []
    if len(raw) > max_tasks:
        problems.append(f"tasks: at most {max_tasks} tasks are allowed, you listed {len(raw)}; merge some")
    tasks: list[Task] = []
    for n, item in enumerate(raw, 1):
        if not isinstance(item, dict) or not str(item.get("task", "")).strip():
            problems.append(
                f"tasks item {n}: expected a mapping with id, task, dimensions, priority, depends"
            )
            continue
        task_id = str(item.get("id") or f"E{n}").strip()
        where = f"task {task_id}"
        if not _TASK_ID.match(task_id):
            problems.append(f"tasks item {n}: id must look like E1, E2 ..., got {task_id!r}")
        elif known is not None and task_id in known.tasks:
            problems.append(
                f"tasks item {n}: {task_id} is a task of an earlier question; number new tasks from "
                f"{known.next_id('E')}"
            )
        dims = id_list(item.get("dimensions"))
        if not dims:
            problems.append(f"{where}: dimensions must name at least one of the dimensions")
        for d in dims:
            if d not in dim_ids:
                problems.append(f"{where}: dimension {d} is not one of the dimensions you listed")
        task = Task(
            task_id, str(item["task"]).strip(), dims, _priority(item.get("priority"), where, problems)
        )
        task.depends = id_list(item.get("depends"))
        tasks.append(task)
    ids = [t.id for t in tasks]
    done = known.tasks if known is not None else frozenset()
    for task in tasks:
        if ids.count(task.id) > 1:
            problems.append(f"task {task.id}: the id is used more than once")
        for dep in task.depends:
            if (dep not in ids and dep not in done) or dep == task.id:
                problems.append(f"task {task.id}: depends on {dep}, which is not another task in the list")
    return tasks


def parse_plan(
    path: Path, max_tasks: int, known: KnownPlan | None = None
) -> tuple[PlanOutput | None, list[str]]:
    """The plan in the planner's output file, or None and the problems to send back; `known`: the
    knowledge base a follow-up's plan adds to (see `KnownPlan`)."""
    data, _notes, problems = read_yaml_output(path)
    if data is None:
        return None, problems
    complexity = str(data.get("complexity", "")).strip().lower()
    if complexity not in COMPLEXITIES:
        problems.append(
            f"complexity: must be one of {', '.join(COMPLEXITIES)}, got {data.get('complexity')!r}"
        )
    dims = _dimensions(data.get("dimensions"), problems, known)
    dim_ids = {d.id for d in dims} | set(known.dimensions if known is not None else ())
    outline = _outline(data.get("outline"), dim_ids, problems)
    tasks = _tasks(data.get("tasks"), dim_ids, max_tasks, problems, known)
    languages = _languages(data.get("languages"), problems)
    if problems:
        return None, problems
    language = str(data.get("language", "")).strip()
    return PlanOutput(complexity, dims, outline, tasks, language, languages), []


def parse_clarify(path: Path) -> tuple[ClarifyOutput | None, list[str]]:
    """The clarifying questions in the planner's clarify-mode output file (at most five)."""
    data, _notes, problems = read_yaml_output(path)
    if data is None:
        return None, problems
    raw = data.get("questions")
    if not isinstance(raw, list):
        return None, ["questions: expected a list of questions (strings), at most five"]
    questions = [str(q).strip() for q in raw if str(q).strip()]
    if len(questions) > 5:
        return None, [f"questions: at most five questions, you wrote {len(questions)}"]
    return ClarifyOutput(questions), []
