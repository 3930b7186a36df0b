"""Resume after a hard kill, and people editing task.md while a run goes on."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from deepresearch.core.errors import StateError
from deepresearch.core.workspace import Workspace
from deepresearch.state.model import RunStatus, TaskDoc, TaskStatus
from deepresearch.state.store import StateStore
from deepresearch.state.writer import render_task_md
from tests.helpers import PageServer, page_value, write_scenario, write_workspace_config
from tests.inprocess import run_in_process
from tests.pipeline.test_end_to_end import run_cli

FOUR_TASKS = {
    "complexity": "comparison",
    "dimensions": [{"id": "D1", "name": "Indexes", "description": "Index values"}],
    "outline": [{"section": "Indexes", "dimensions": ["D1"], "questions": "What values?"}],
    "tasks": [
        {
            "id": f"E{n}",
            "task": f"Research index {n}",
            "dimensions": ["D1"],
            "priority": "high",
            "depends": [],
        }
        for n in range(1, 5)
    ],
}


def in_order(release: Path) -> dict[str, dict[str, object]]:
    """Each task starts its work when the one before it is done (so the completion order, and every
    ID, is the same in every run); E3 and E4 also wait for `release` (a run killed before it exists
    has two tasks done and two running)."""
    return {
        "E1": {},
        "E2": {"after": ["E1"]},
        "E3": {"after": ["E2"], "wait_for": str(release)},
        "E4": {"after": ["E3"], "wait_for": str(release)},
    }


def start_cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "deepresearch", *args],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip


def load(work: Path) -> TaskDoc | None:
    try:
        return StateStore(Workspace(work)).load()
    except (StateError, OSError):
        return None


def wait_for(condition: object, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for the run to reach the expected point")


def fake_agent_pids(work: Path) -> list[int]:
    """Live (not zombie) fake-agent processes working in this workspace."""
    alive = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            state = (proc / "stat").read_text().split()[2]
        except OSError:
            continue
        if "fake_agent" in cmdline and str(work) in cmdline and state != "Z":
            alive.append(int(proc.name))
    return alive


def kill_agents(work: Path) -> None:
    """Power loss: every fake agent working in this workspace dies too."""
    for pid in fake_agent_pids(work):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


def comparable(doc: TaskDoc) -> str:
    """task.md without what differs between any two runs (run ID, clock times, archive hashes)."""
    doc.front.id = doc.front.created = doc.front.updated = ""
    for source in doc.sources:
        source.accessed = source.sha256 = ""  # the archive header records the fetch time
    for question in doc.questions:
        question.asked = ""
    return render_task_md(doc)


def calls(log: Path, work: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        key = entry["task"] or entry["role"]
        counts[key] = counts.get(key, 0) + 1
    return counts


def started(work: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in (work / "logs" / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["event"] == "agent_started":
            counts[event["label"]] = counts.get(event["label"], 0) + 1
    return counts


def test_sigkill_during_execute_then_resume_redoes_nothing_finished(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    reference, work = tmp_path / "reference", tmp_path / "ws"
    for folder in (reference, work):
        folder.mkdir()
        write_workspace_config(folder, concurrency=2)
    question = ["-p", "What are the four index values?"]
    opened, release = tmp_path / "open", tmp_path / "release"
    opened.touch()
    scenario = {"planner": FOUR_TASKS, "page_base": pages.base_url}
    ref_scenario = write_scenario(
        tmp_path / "ref.yaml",
        {**scenario, "executor": in_order(opened), "calls_log": str(tmp_path / "ref.jsonl")},
    )
    # The reference only has to exist: it runs in this process (tests/inprocess.py).
    proc = run_in_process(
        [*question, "-o", str(reference)], {**clean_env, "FAKE_AGENT_SCENARIO": str(ref_scenario)}, tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

    log = tmp_path / "calls.jsonl"
    ours = {**scenario, "executor": in_order(release), "calls_log": str(log)}
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "s.yaml", ours))}
    first = start_cli([*question, "-o", str(work)], env, tmp_path)

    def two_done_two_running() -> bool:
        doc = load(work)
        states = [t.status for t in doc.tasks] if doc else []
        return states.count(TaskStatus.DONE) == 2 and states.count(TaskStatus.RUNNING) == 2

    wait_for(two_done_two_running)
    wait_for(lambda: {"E3", "E4"} <= set(started(work)))  # both agents started: blocked at `release`
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    kill_agents(work)
    release.touch()

    second = run_cli([*question, "-o", str(work)], env, tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "took over a stale lock" in second.stdout
    assert "resuming: E3, E4 were running and will run again" in second.stdout

    done = calls(log, work)
    once = ("planner", "supervisor", "E1", "E2", "reflector", "synthesizer")
    assert {k: done[k] for k in once} == dict.fromkeys(once, 1), done
    assert done["E3"] == done["E4"] == 1  # killed before they wrote anything: they finished once
    runs = started(work)
    assert runs["planner"] == runs["E1"] == runs["E2"] == 1, runs
    # E3 and E4 were killed while running and ran again to the end in the second run.
    assert runs["E3"] == runs["E4"] == 2, runs

    final, expected = load(work), load(reference)
    assert final is not None and expected is not None
    assert final.front.status is RunStatus.COMPLETED
    assert comparable(final) == comparable(expected)


def _add_task_row(work: Path, row: str) -> None:
    """What a person does in an editor: one more row at the end of the Research DAG table."""
    path = work / "task.md"
    lines = path.read_text().splitlines()
    start = lines.index("## Research DAG")
    end = next(i for i in range(start + 3, len(lines)) if not lines[i].startswith("|"))
    lines.insert(end, row)
    path.write_text("\n".join(lines) + "\n")


def _two_rounds(pages: PageServer, log: Path, edited: Path) -> dict[str, object]:
    """Two rounds; the reflector waits for `edited` (the test's edit of task.md) before answering."""
    return {
        "page_base": pages.base_url,
        "calls_log": str(log),
        "reflector": {
            "wait_for": str(edited),
            "rounds": {1: {"score": 5, "knowledge_gaps": ["gamma index"], "recommendation": "continue"}},
        },
    }


def _reflecting(work: Path) -> bool:
    doc = load(work)
    return doc is not None and doc.front.status is RunStatus.REFLECTING and doc.front.round == 1


def test_a_task_added_by_hand_between_rounds_is_executed(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    log, edited = tmp_path / "calls.jsonl", tmp_path / "edited"
    env = {
        **clean_env,
        "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "s.yaml", _two_rounds(pages, log, edited))),
    }
    run = start_cli(["-p", "Index values, in two rounds", "-o", str(work)], env, tmp_path)
    wait_for(lambda: _reflecting(work))
    _add_task_row(work, "| E7 | Research the delta index by hand | D1 | high | - | pending | 2 |")
    edited.touch()
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, out + err
    assert "picked up your edit of task.md" in out
    doc = load(work)
    assert doc is not None and doc.task("E7") is not None
    assert doc.task("E7").status is TaskStatus.DONE and doc.task("E7").round == 2
    assert any(f.task == "E7" for f in doc.facts)
    assert [t.id for t in doc.tasks] == ["E1", "E2", "E7", "E8"]  # the gap's task comes after the person's
    assert calls(log, work)["E7"] == 1


def test_an_invalid_edit_pauses_the_run_and_a_fix_resumes_it(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    log, edited = tmp_path / "calls.jsonl", tmp_path / "edited"
    env = {
        **clean_env,
        "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "s.yaml", _two_rounds(pages, log, edited))),
    }
    args = ["-p", "Index values, edited badly", "-o", str(work)]
    run = start_cli(args, env, tmp_path)
    wait_for(lambda: _reflecting(work))
    _add_task_row(work, "| E7 | Research delta | D1 | high | E99 | pending | 2 |")
    edited.touch()
    out, err = run.communicate(timeout=120)
    assert run.returncode == 4, out + err
    line = (work / "task.md").read_text().splitlines().index(
        "| E7 | Research delta | D1 | high | E99 | pending | 2 |"
    ) + 1
    assert f"task.md:{line}:" in err and "E99" in err and "the run is paused" in err
    assert "last good version is .deepresearch/snapshots/" in err

    text = (work / "task.md").read_text().replace("| high | E99 |", "| high | E1 |")
    (work / "task.md").write_text(text)
    resumed = run_cli(args, env, tmp_path)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    doc = load(work)
    assert doc is not None and doc.front.status is RunStatus.COMPLETED
    assert doc.task("E7").status is TaskStatus.DONE


def test_ctrl_c_stops_every_agent_and_leaves_the_run_resumable(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work, concurrency=2)
    scenario = {"page_base": pages.base_url, "executor": {"default": {"sleep": 30}}}
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "s.yaml", scenario))}
    args = ["-p", "Index values, interrupted", "-o", str(work)]
    run = start_cli(args, env, tmp_path)

    def both_running() -> bool:
        doc = load(work)
        return doc is not None and [t.status for t in doc.tasks] == [TaskStatus.RUNNING] * 2

    wait_for(both_running)
    wait_for(lambda: len(fake_agent_pids(work)) == 2)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, out + err
    assert "interrupted; the workspace is saved and resumable" in err
    assert fake_agent_pids(work) == []
    doc = load(work)
    assert doc is not None and [t.status for t in doc.tasks] == [TaskStatus.PENDING] * 2
    assert not (work / ".deepresearch" / "lock").exists()

    fast = {
        **env,
        "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "fast.yaml", {"page_base": pages.base_url})),
    }
    resumed = run_cli(args, fast, tmp_path)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "resuming" in resumed.stdout
    final = load(work)
    assert final is not None and final.front.status is RunStatus.COMPLETED


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def test_sigkill_mid_batch_then_resume_repeats_no_finished_batch_and_leaves_no_agent_behind(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    # E1 runs its batches inside one call: batches 1-4 find new pages, 5 and 6 only restate, then it
    # is saturated. Its first call stops in the middle of batch 3 (after its archive) until killed.
    # E2 is quick and done before the kill.
    two = {**FOUR_TASKS, "tasks": FOUR_TASKS["tasks"][:2]}
    executor = {
        "E1": {"finds": 4, "restates": True, "hang_at_batch": 3, "calls": {2: {"hang_at_batch": None}}}
    }
    work = tmp_path / "ws"
    work.mkdir()
    settings = {"max_batches": None, "min_tier1_sources": 1, "analysis": "never", "max_figures": 0}
    write_workspace_config(work, concurrency=2, **settings)
    question = ["-p", "What are the two index values?"]
    calls_log, batches_log = tmp_path / "calls.jsonl", tmp_path / "batches.jsonl"
    scenario = {"planner": two, "executor": executor, "page_base": pages.base_url}
    scenario.update(calls_log=str(calls_log), batches_log=str(batches_log))
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "s.yaml", scenario))}
    first = start_cli([*question, "-o", str(work)], env, tmp_path)
    wait_for(lambda: [b["batch"] for b in _lines(batches_log) if b["task"] == "E1"] == [1, 2])
    wait_for(lambda: (doc := load(work)) is not None and doc.task("E2").status is TaskStatus.DONE)
    killed = fake_agent_pids(work)
    assert killed, "E1's agent is in the middle of batch 3"
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    wait_for(lambda: not set(killed) & set(fake_agent_pids(work)), timeout=5)  # they died with it

    second = run_cli([*question, "-o", str(work)], env, tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "E1: kept 2 batches that the interrupted call had finished" in second.stdout

    # Each batch ran once: 1-2 in the killed call, 3-6 in the next one, which started at batch 3.
    batches = [(b["call"], b["batch"]) for b in _lines(batches_log) if b["task"] == "E1"]
    assert batches == [(1, 1), (1, 2), (2, 3), (2, 4), (2, 5), (2, 6)]
    prompt = (work / "logs" / "prompts" / "E1.call2.md").read_text()
    assert "Call: 2 of at most 2 for this task" in prompt and "Batches: from 3 to 10" in prompt
    # No agent of the killed run was alive when the new run started E1's next call.
    (resumed,) = [c for c in _lines(calls_log) if c["task"] == "E1"]
    assert resumed["call"] == 2 and not set(killed) & set(resumed["peers"])  # type: ignore[arg-type]
    assert [c["task"] for c in _lines(calls_log) if c["role"] == "executor"] == ["E2", "E1"]

    final = load(work)
    assert final is not None and final.front.status is RunStatus.COMPLETED
    # Every page's fact once, and E1's restatement (batches 5 and 6 restate the same) once.
    pages_read = ["E1", "E1b2", "E1b3", "E1b4", "E2"]
    expected = [f"The {name} index reached {page_value(name)} points in 2025." for name in pages_read]
    restated = (
        f"According to the bureau's annual survey, the E1 index stood at {page_value('E1')} points in 2025."
    )
    assert sorted(f.statement for f in final.facts) == sorted([*expected, restated])
