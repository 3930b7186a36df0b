"""The reflector's quality assessment: scores, gaps, conflicts, hallucinations, new tasks."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepresearch.contracts.yamlfile import id_list, read_yaml_output, text_list
from deepresearch.state.model import Priority, Severity

SUB_SCORES = ("completeness", "depth", "reliability", "actionability")
COVERAGE = ("none", "partial", "good")


@dataclass
class ConflictClaim:
    facts: list[str]
    topic: str
    severity: Severity
    suggested_wording: str = ""


@dataclass
class NewTask:
    task: str
    dimensions: list[str]
    priority: Priority = Priority.MEDIUM
    depends: list[str] = field(default_factory=list)


@dataclass
class Assessment:
    score: float
    sub_scores: dict[str, float] = field(default_factory=dict)
    reasoning: str = ""
    knowledge_gaps: list[str] = field(default_factory=list)
    suggested_directions: list[str] = field(default_factory=list)
    conflicts: list[ConflictClaim] = field(default_factory=list)
    hallucinations: list[str] = field(default_factory=list)
    new_tasks: list[NewTask] = field(default_factory=list)
    coverage: dict[str, str] = field(default_factory=dict)  # dimension ID -> none|partial|good
    section_coverage: dict[str, str] = field(default_factory=dict)  # outline section -> none|partial|good
    recommendation: str = "continue"
    fallback: bool = False  # True when the assessment could not be read


def fallback_assessment() -> Assessment:
    """What the run uses when the reflector's file cannot be read even after a repair."""
    return Assessment(score=5.0, knowledge_gaps=["assessment could not be read"], fallback=True)


def _score(data: dict[str, Any], key: str, problems: list[str], required: bool) -> float | None:
    value = data.get(key)
    if value is None:
        if required:
            problems.append(f"{key}: missing; give a number from 1 to 10")
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        problems.append(f"{key}: must be a number from 1 to 10, got {value!r}")
        return None
    if not 1 <= number <= 10:
        problems.append(f"{key}: must be between 1 and 10, got {number}")
        return None
    return number


def _conflicts(raw: Any, fact_ids: set[str], problems: list[str]) -> list[ConflictClaim]:
    claims: list[ConflictClaim] = []
    for n, item in enumerate(raw or [], 1):
        if not isinstance(item, dict):
            problems.append(f"conflicts item {n}: expected a mapping with facts, topic, severity")
            continue
        facts = id_list(item.get("facts"))
        unknown = [f for f in facts if f not in fact_ids]
        if len(facts) < 2 or unknown:
            problems.append(
                f"conflicts item {n}: facts must list at least two existing fact IDs"
                + (f"; unknown: {', '.join(unknown)}" if unknown else "")
            )
            continue
        try:
            severity = Severity(str(item.get("severity") or "medium").strip().lower())
        except ValueError:
            problems.append(f"conflicts item {n}: severity must be high, medium or low")
            continue
        wording = str(item.get("suggested_wording") or "").strip()
        claims.append(ConflictClaim(facts, str(item.get("topic") or "").strip(), severity, wording))
    return claims


def _new_tasks(raw: Any, dim_ids: set[str], problems: list[str]) -> list[NewTask]:
    tasks: list[NewTask] = []
    for n, item in enumerate(raw or [], 1):
        if isinstance(item, str):
            item = {"task": item}
        if not isinstance(item, dict) or not str(item.get("task", "")).strip():
            problems.append(f"new_tasks item {n}: expected a mapping with task, dimensions, priority")
            continue
        dims = [d for d in id_list(item.get("dimensions")) if d in dim_ids]
        try:
            priority = Priority(str(item.get("priority") or "medium").strip().lower())
        except ValueError:
            priority = Priority.MEDIUM
        tasks.append(NewTask(str(item["task"]).strip(), dims, priority, id_list(item.get("depends"))))
    return tasks


def parse_assessment(
    path: Path, fact_ids: set[str], dim_ids: set[str]
) -> tuple[Assessment | None, list[str]]:
    """The reflector's assessment, or None and the problems to send back."""
    data, notes, problems = read_yaml_output(path)
    if data is None:
        return None, problems
    score = _score(data, "score", problems, required=True)
    subs = {k: v for k in SUB_SCORES if (v := _score(data, k, problems, required=False)) is not None}
    coverage_raw = data.get("coverage") or {}
    coverage = {}
    if isinstance(coverage_raw, dict):
        for dim, level in coverage_raw.items():
            if str(dim) in dim_ids and str(level).lower() in COVERAGE:
                coverage[str(dim)] = str(level).lower()
    sections_raw = data.get("section_coverage") or {}
    section_coverage = {}
    if isinstance(sections_raw, dict):
        section_coverage = {
            str(name): str(level).lower()
            for name, level in sections_raw.items()
            if str(level).lower() in COVERAGE
        }
    recommendation = str(data.get("recommendation") or "continue").strip().lower()
    assessment = Assessment(
        score=score or 0.0,
        sub_scores=subs,
        reasoning=str(data.get("reasoning") or notes or "").strip(),
        knowledge_gaps=text_list(data.get("knowledge_gaps")),
        suggested_directions=text_list(data.get("suggested_directions")),
        conflicts=_conflicts(data.get("conflicts"), fact_ids, problems),
        hallucinations=[h for h in id_list(data.get("hallucinations")) if h in fact_ids],
        new_tasks=_new_tasks(data.get("new_tasks"), dim_ids, problems),
        coverage=coverage,
        section_coverage=section_coverage,
        recommendation="stop" if recommendation.startswith("stop") else "continue",
    )
    return (None, problems) if problems or score is None else (assessment, [])
