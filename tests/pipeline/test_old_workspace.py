"""A workspace made before the source registry moved to SQLite resumes and passes `deepresearch check`."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from deepresearch.core.workspace import Workspace
from deepresearch.sources.registry import SourceRegistry
from deepresearch.state.model import RunStatus, TaskStatus
from tests.helpers import PageServer, write_scenario, write_workspace_config
from tests.inprocess import run_in_process
from tests.pipeline.test_resume import FOUR_TASKS, kill_agents, load, start_cli, started, wait_for


def as_an_older_version_left_it(work: Path) -> str:
    """Replace the registry with what a version before the database wrote — `sources.jsonl` (one
    record a line, each with the task that archived it) and `sketches.jsonl` — and return it."""
    registry = SourceRegistry(Workspace(work))
    lines = [json.dumps(record.to_dict()) for record in registry.records()]
    with registry.db.reading() as db:
        sketches = db.execute("SELECT id, shingles, hashes FROM sketches ORDER BY rowid").fetchall()
    registry.close()
    private = work / ".deepresearch"
    (private / "sources.jsonl").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    (private / "sketches.jsonl").write_text(
        "".join(json.dumps({"id": i, "hashes": json.loads(h), "shingles": n}) + "\n" for i, n, h in sketches),
        encoding="utf-8",
    )
    for leftover in private.glob("sources.db*"):
        leftover.unlink()
    return (private / "sources.jsonl").read_text(encoding="utf-8")


def test_a_workspace_with_the_old_registry_resumes_and_passes_check(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work, concurrency=2, analysis="never", max_figures=0)
    release = tmp_path / "release"
    two = {**FOUR_TASKS, "tasks": FOUR_TASKS["tasks"][:2]}
    executor = {"E2": {"after": ["E1"], "wait_for": str(release)}}
    scenario = write_scenario(
        tmp_path / "s.yaml", {"planner": two, "executor": executor, "page_base": pages.base_url}
    )
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}
    question = ["-p", "What are the two index values?", "-o", str(work)]

    first = start_cli(question, env, tmp_path)
    wait_for(lambda: (doc := load(work)) is not None and doc.task("E1").status is TaskStatus.DONE)
    wait_for(lambda: "E2" in started(work))
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    kill_agents(work)
    legacy = as_an_older_version_left_it(work)
    assert '"id": "S01"' in legacy and not (work / ".deepresearch" / "sources.db").exists()

    release.touch()
    resumed = run_in_process(question, env, tmp_path)  # the same entry point, without a new interpreter
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "resuming" in resumed.stdout
    doc = load(work)
    assert doc is not None and doc.front.status is RunStatus.COMPLETED
    ids = [s.id for s in doc.sources]
    assert ids == ["S01", "S02"]  # E1's source kept its ID; E2's took the next one
    registry = SourceRegistry(Workspace(work))  # migrated into sources.db on first open
    assert [r.id for r in registry.archived()] == ids and registry.get("S01").task == "E1"  # type: ignore[union-attr]
    assert (work / ".deepresearch" / "sources.jsonl").read_text(encoding="utf-8") == legacy  # kept as it was

    check = run_in_process(["check", str(work)], env, tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
