"""The self-check tool's work: the orchestrator's own checks, run on an agent's output file while
its call is still running, so the agent fixes what they find instead of being called again.

An agent runs its `deepresearch-check` script (core/commands.py); the run's tool service hands the
request to `SelfCheck` with who asks (the task, the call). It reads that caller's output file and
task.md as they are now and runs what the orchestrator runs when the call ends. Nothing it says
binds anyone: the orchestrator's checks stay authoritative and its repair call remains.

- executor: the output contract; each fact's quote against the archive of its source (a source not
  archived yet is noted: the orchestrator archives it when the call ends); the numbers of each
  statement against its quote (the check whose violations cost a repair call); the batch log against
  the search log and the registry; then, batch by batch, whether code counts the batch as new
  (merged into a copy of task.md, measured by pipeline/novelty.py) and whether the task would then
  count as saturated (pipeline/saturation.py), and which batch to run next if it would not;
- analyst: the contract and the analysis checks; synthesizer: the contract and the report's code
  checks with the figures drawn (the verifier's judgement of its sentences is not run here).
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from deepresearch.contracts.execute import ExecutorOutput, parse_executor
from deepresearch.contracts.report import parse_analysis, parse_report
from deepresearch.core.clock import utc_now
from deepresearch.core.config import Config
from deepresearch.core.effort import saturation
from deepresearch.core.errors import StateError
from deepresearch.core.workspace import Workspace
from deepresearch.figures import load_figures
from deepresearch.pipeline.batchcheck import Records, check_batches
from deepresearch.pipeline.batches import Part, split
from deepresearch.pipeline.checks import check_analysis, check_draft
from deepresearch.pipeline.evidence import source_row
from deepresearch.pipeline.fact_grounding import findings_check, ground_fact, registered
from deepresearch.pipeline.languages import task_languages
from deepresearch.pipeline.novelty import known, measure
from deepresearch.pipeline.saturation import IN_CALL, decide
from deepresearch.pipeline.taskledger import TaskLedger, TaskProgress
from deepresearch.report.violation import format_violation
from deepresearch.search.searchlog import read_search_log
from deepresearch.sources.registry import SourceRegistry
from deepresearch.state.merge import merge_task_result
from deepresearch.state.model import Source, Task, TaskDoc, Verified, format_source_id, id_number
from deepresearch.state.store import StateStore

_BATCH_LINE = re.compile(r"^\s*-?\s*batch:\s*(\d+)\s*$")


@dataclass
class Findings:
    """What the self-check prints: problems to fix (with lines), then what code would decide."""

    file: str
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The answer the tool service sends back."""
        return {"file": self.file, "problems": self.problems, "notes": self.notes}


class SelfCheck:
    """Runs the orchestrator's checks for one caller (see the module docstring)."""

    def __init__(self, workspace: Workspace, config: Config) -> None:
        self.workspace = workspace
        self.config = config

    def __call__(self, task: str, call: str) -> dict[str, Any]:
        """The findings for the caller's own output file: an executor's (its task), else the role
        named by the call (synthesizer, analyst)."""
        doc = self._doc()
        role = "executor" if task else call.split(".", 1)[0]
        if role == "executor":
            return self._executor(doc, task).to_dict()
        if role in ("synthesizer", "analyst"):
            return self._writer(doc, role).to_dict()
        return Findings("", notes=[f"no self-check for this call ({call or 'unnamed'})"]).to_dict()

    def _doc(self) -> TaskDoc:
        try:
            return StateStore(self.workspace).load()
        except StateError as exc:  # a person halfway through an edit: say so, check nothing
            raise StateError(f"task.md cannot be read just now ({exc.detail}); run the check again") from exc

    # --- writers -----------------------------------------------------------------------------------

    def _writer(self, doc: TaskDoc, role: str) -> Findings:
        path = self.workspace.result_file(role)
        found = Findings(self.workspace.relative(path))
        parse = parse_report if role == "synthesizer" else parse_analysis
        text, problems = parse(path)
        if text is None:
            found.problems = problems
            return found
        if role == "synthesizer":
            figures = load_figures(self.workspace.root)
            result = check_draft(text, doc, self.workspace.root, figures)
            if figures:
                found.notes.append(
                    "line numbers count the figure blocks the orchestrator places after the paragraph that "
                    "first refers to each figure"
                )
        else:
            result = check_analysis(text, doc, self.workspace.root)
        found.problems = [format_violation(v, found.file) for v in result.violations]
        return found

    # --- executors ---------------------------------------------------------------------------------

    def _executor(self, doc: TaskDoc, task_id: str) -> Findings:
        path = self.workspace.result_file(task_id)
        found = Findings(self.workspace.relative(path))
        task = doc.task(task_id)
        if task is None:
            found.notes.append(f"task.md has no task {task_id}")
            return found
        output, problems = parse_executor(path, task_id, [d.id for d in doc.dimensions])
        if output is None:
            found.problems = problems
            return found
        registry = SourceRegistry(self.workspace)
        found.problems += self._facts(output, path, registry)
        found.problems += [
            format_violation(v, found.file) for v in findings_check(self.workspace, path)(output).violations
        ]
        notes, untrusted = self._batches(doc, task, output, registry)
        lines = _batch_lines(path)
        found.problems += [
            f"{found.file}:{lines.get(number, 1)}: batch_log: {problem}" for number, problem in untrusted
        ]
        found.notes += notes
        return found

    def _facts(self, output: ExecutorOutput, path: Path, registry: SourceRegistry) -> list[str]:
        """Facts whose quote is not in the archive of any source they cite (with its line)."""
        lines = _statement_lines(path)
        problems = []
        for n, fact in enumerate(output.facts, 1):
            records = [r for s in output.sources if s.id in fact.sources and (r := registered(registry, s))]
            if records and ground_fact(self.workspace, fact, records).verified is Verified.NO:
                line = lines[n - 1] if n <= len(lines) else 1
                archives = ", ".join(r.archive for r in records)
                problems.append(
                    f"{self.workspace.relative(path)}:{line}: quote_not_found: facts item {n}'s quote is not in "
                    f"{archives}; copy it exactly from the archived text, or cite the source it is in"
                )
        return problems

    def _batches(
        self, doc: TaskDoc, task: Task, output: ExecutorOutput, registry: SourceRegistry
    ) -> tuple[list[str], list[tuple[int, str]]]:
        """Per batch: new or not by code's rules, then the task's verdict; and the batch-log
        problems that keep a batch from counting (batch number, problem)."""
        progress = TaskLedger(self.workspace).progress(task.id)
        opened = progress.open_call
        first = opened.first_batch if opened is not None else progress.batches + 1
        started = opened.started if opened is not None else utc_now()
        in_call = self.config.batch_calls == IN_CALL
        parts = split(output, first, in_call)
        notes = [f"not archived yet: {s.id} ({s.url}); the orchestrator archives it when your call ends and "
                 "checks its facts then" for s in output.sources if registered(registry, s) is None]  # fmt: skip
        checks = self._checks(task.id, started, parts, first, registry) if in_call else {}
        state, after = copy.deepcopy(doc), dataclasses.replace(progress)
        untrusted: list[tuple[int, str]] = []
        for part in parts:
            problems = checks.get(part.number, [])
            untrusted += [(part.number, problem) for problem in problems]
            novelty = self._merged(state, task.id, part, registry)
            after.apply_batch(part.number, not problems, novelty.anything)
            what = (
                "new: " + "; ".join(novelty.reasons()) if novelty.anything else "nothing new by code's rules"
            )
            trust = " (not trusted: its log is not borne out, see above)" if problems else ""
            notes.append(f"batch {part.number}: {what}{trust}")
        last = parts[-1].number if parts else first
        searched = task_languages(self.workspace, doc, task.id)
        notes.append(_verdict(after, state, task, self.config, [p for _, p in untrusted], last, searched))
        return notes, untrusted

    def _checks(
        self, task_id: str, started: datetime, parts: list[Part], first: int, registry: SourceRegistry
    ) -> dict[int, list[str]]:
        entries = [part.entry for part in parts if part.entry is not None]
        if not entries:
            return {parts[0].number: ["the output has no batch log (`batches:`)"]} if parts else {}
        archived = {record.id for record in registry.archived()}
        records = Records.since(
            task_id, started, read_search_log(self.workspace), registry.uses(task_id), archived
        )
        sat = saturation(self.config)
        return {
            c.number: c.problems
            for c in check_batches(entries, first, records, (sat.k_initial, sat.k_expand))
        }

    def _merged(self, doc: TaskDoc, task_id: str, part: Part, registry: SourceRegistry) -> Any:
        """Merge one batch into `doc` (a copy) as the orchestrator would; its novelty."""
        before = known(doc)
        highest = max(
            [id_number(s.id) for s in doc.sources] + [id_number(r.id) for r in registry.archived()] + [0]
        )
        sources: list[Source] = []
        renamed: dict[str, str] = {}
        records = {}
        for source in part.sources:
            record = registered(registry, source)
            if record is not None:
                row = source_row(record, source)
                records[row.id] = record
            else:
                highest += 1
                row = dataclasses.replace(source, id=format_source_id(highest))
            renamed[source.id] = row.id
            sources.append(row)
        facts = []
        for fact in part.facts:
            cited = [renamed.get(s, s) for s in fact.sources]
            grounding = ground_fact(self.workspace, fact, [records[s] for s in cited if s in records])
            facts.append(dataclasses.replace(fact, sources=cited, verified=grounding.verified))
        merged = merge_task_result(doc, task_id, sources, facts)
        return measure(doc, before, merged.new_fact_ids, part.contradictions)


def _statement_lines(path: Path) -> list[int]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    return [n for n, line in enumerate(lines, 1) if line.lstrip(" -").startswith("statement:")]


def _batch_lines(path: Path) -> dict[int, int]:
    """The line of each batch's `batch: N` in the executor's file, by batch number."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    found: dict[int, int] = {}
    for n, line in enumerate(lines, 1):
        match = _BATCH_LINE.match(line)
        if match:
            found.setdefault(int(match.group(1)), n)
    return found


def _verdict(
    progress: TaskProgress,
    doc: TaskDoc,
    task: Task,
    config: Config,
    untrusted: list[str],
    last: int,
    searched: Mapping[str, int],
) -> str:
    """What code would decide if the call ended now, and what to do about it."""
    sat = saturation(config)
    verdict = decide(progress, doc, task, sat, config, untrusted, searched)
    if not verdict.more and not verdict.missing:
        return f"task {task.id}: if your call ended now, code would end the task: {verdict.reason}"
    if not verdict.more and last < sat.max_batches:  # the task's last call: what it ends without
        return (
            f"task {task.id}: this is its last call ({verdict.reason}); run batch {last + 1} now if it can "
            "find what is missing"
        )
    if verdict.more and last < sat.max_batches:
        return (
            f"task {task.id}: NOT saturated by code's rules yet ({verdict.reason}); run batch {last + 1} now, "
            "in this call, instead of ending it: ending now costs another call"
        )
    return f"task {task.id}: not saturated ({verdict.reason}), and no batch is left"
