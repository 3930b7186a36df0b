"""Interactive mode driven in a real pseudo-terminal: questions, clarification, edit, approve, run."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pexpect

from deepresearch.core.workspace import Workspace
from deepresearch.state.model import RunStatus, TaskStatus
from deepresearch.state.store import StateStore
from tests.helpers import PageServer, write_scenario, write_workspace_config

EDITOR_SCRIPT = Path(__file__).with_name("editor_script.py")
QUESTIONS = [
    "Which time range should the research cover?",
    "Is the report for a technical or a general audience?",
    "Which geography matters most?",
]
MENU = r"or quit \(q\)\?"


def spawn(args: list[str], env: dict[str, str], cwd: Path) -> pexpect.spawn:
    """`python -m deepresearch ARGS` in a pseudo-terminal (a real terminal as far as it can tell)."""
    return pexpect.spawn(
        sys.executable,
        ["-m", "deepresearch", *args],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        dimensions=(50, 200),
        timeout=60,
    )


def interactive_env(tmp_path: Path, clean_env: dict[str, str], pages: PageServer) -> dict[str, str]:
    scenario = write_scenario(
        tmp_path / "scenario.yaml", {"planner": {"questions": QUESTIONS}, "page_base": pages.base_url}
    )
    counter = tmp_path / "editor-calls"
    editor = shlex.join([sys.executable, str(EDITOR_SCRIPT), str(counter)])
    return {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario), "EDITOR": editor, "TERM": "xterm"}


def test_clarify_edit_with_an_error_then_approve_and_run(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    env = interactive_env(tmp_path, clean_env, pages)
    child = spawn(["-o", str(work)], env, tmp_path)
    child.expect("What should be researched")
    child.sendline("How do alpha and beta compare?")
    child.expect("3 questions")
    child.expect("1/3")
    child.sendline("2020 to 2025")
    child.expect("2/3")
    child.sendline("")  # skipped
    child.expect("3/3")
    child.sendline("Northern Europe")
    child.expect("Research DAG")
    child.expect(MENU)
    child.sendline("e")
    child.expect("does not validate")
    child.expect(r"task\.md:(\d+)")
    bad_line = int(child.match.group(1))
    child.expect("Press Enter")  # the editor's invalid version is on disk until we answer
    invalid = (work / "task.md").read_text(encoding="utf-8").splitlines()
    assert "| E9 |" in invalid[bad_line - 1], "the message should name the edited line"
    child.sendline("")  # the editor re-opens; this time the script fixes the row
    child.expect("Your edit of task.md is taken")
    child.expect(MENU)
    child.sendline("a")
    child.expect("research completed", timeout=120)
    child.expect("Ask a follow-up question")
    child.sendline("And what is alpha, in short?")  # the known facts answer it (the scripted planner)
    for n in (1, 2, 3):
        child.expect(f"{n}/3")
        child.sendline("")
    child.expect("No new research: the report will be written from what the workspace knows")
    child.expect(MENU)
    child.sendline("a")
    child.expect("research completed", timeout=120)
    child.expect("Ask a follow-up question")
    child.sendline("")  # none: done
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    doc = StateStore(Workspace(work)).load()
    assert len(doc.questions) == 2 and doc.front.status is RunStatus.COMPLETED
    assert "no new research" in doc.front.termination_reason and [t.id for t in doc.tasks] == ["E1", "E2"]
    assert (work / doc.questions[0].report).is_file() and (work / "report.md").is_file()
    executors = [
        line for line in (work / "logs" / "events.jsonl").read_text().splitlines() if '"E1.call2"' in line
    ]
    assert executors == []

    assert int((tmp_path / "editor-calls").read_text()) == 2
    assert "## What this workspace already knows" in (work / "logs" / "prompts" / "planner.md").read_text()
    prompt = (work / "logs" / "Q1" / "prompts" / "planner.md").read_text(encoding="utf-8")  # kept
    assert f"Q: {QUESTIONS[0]}\n  A: 2020 to 2025" in prompt
    assert f"Q: {QUESTIONS[2]}\n  A: Northern Europe" in prompt
    assert QUESTIONS[1] not in prompt, "a skipped question is not passed on"
    doc = StateStore(Workspace(work)).load()
    assert doc.front.status is RunStatus.COMPLETED
    edited = doc.task("E2")
    assert edited is not None and edited.title == "Research the context in Europe only"
    assert edited.status is TaskStatus.DONE and edited.depends == []


def test_quit_keeps_the_plan_unapproved_and_the_next_run_asks_again(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    env = interactive_env(tmp_path, clean_env, pages)
    child = spawn(["-p", "What is alpha?", "-o", str(work), "--interactive"], env, tmp_path)
    for n in (1, 2, 3):
        child.expect(f"{n}/3")
        child.sendline("")
    child.expect(MENU)
    child.sendline("q")
    child.expect("status planning")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    doc = StateStore(Workspace(work)).load()
    assert doc.front.status is RunStatus.PLANNING and [t.id for t in doc.tasks] == ["E1", "E2"]
    assert "Clarifications" not in (work / "logs" / "prompts" / "planner.md").read_text(encoding="utf-8")

    again = spawn(["-o", str(work)], env, tmp_path)  # resumes: no new question, no clarification
    again.expect(MENU)
    again.sendline("r")
    again.expect("What should the planner change")
    again.sendline("Drop the context task.")
    again.expect(MENU)
    again.sendline("a")
    again.expect("research completed", timeout=120)
    again.expect("Ask a follow-up question")
    again.sendeof()  # Ctrl-D: none
    again.expect(pexpect.EOF)
    again.close()
    assert again.exitstatus == 0, again.before
    prompt = (work / "logs" / "prompts" / "planner.md").read_text(encoding="utf-8")
    assert "Drop the context task." in prompt
    assert StateStore(Workspace(work)).load().front.status is RunStatus.COMPLETED


def test_yes_approves_without_asking_but_interactive_still_clarifies(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    env = interactive_env(tmp_path, clean_env, pages)
    child = spawn(["-p", "What is alpha?", "-o", str(work), "--interactive", "--yes"], env, tmp_path)
    child.expect("1/3")
    child.sendline("Only 2024")
    for n in (2, 3):
        child.expect(f"{n}/3")
        child.sendline("")
    index = child.expect([MENU, "research completed"], timeout=120)
    assert index == 1, "--yes must not ask for approval"
    assert "A: Only 2024" in (work / "logs" / "prompts" / "planner.md").read_text(encoding="utf-8")
    # After a finished run, interactive mode offers a follow-up in the same workspace.
    child.expect("Ask a follow-up question")
    child.sendline("And how did alpha compare with beta?")
    for n in (1, 2, 3):
        child.expect(f"{n}/3")
        child.sendline("")
    child.expect("follow-up Q2|research completed", timeout=120)
    child.expect("this question \\(Q2\\)", timeout=120)
    child.expect("Ask a follow-up question")
    child.sendline("")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    doc = StateStore(Workspace(work)).load()
    assert [q.question for q in doc.questions] == ["What is alpha?", "And how did alpha compare with beta?"]
    assert doc.front.status is RunStatus.COMPLETED and (work / doc.questions[0].report).is_file()
    assert [t.id for t in doc.tasks] == ["E1", "E2"], "the known facts answered it: no new task"


def test_without_a_terminal_there_is_no_asking(tmp_path: Path, clean_env: dict[str, str]) -> None:
    def run(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "deepresearch", *args],
            cwd=tmp_path, env=clean_env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    bare = run(["-o", "ws", "--agent", "custom"])
    assert bare.returncode == 2 and 'use -p "question" or -f input.md' in bare.stderr
    forced = run(["-p", "What is alpha?", "-o", "ws", "--agent", "custom", "--interactive"])
    assert forced.returncode == 2 and "--interactive needs a terminal" in forced.stderr
    assert not (tmp_path / "ws" / "task.md").exists()


def test_the_person_changes_the_languages_and_a_revised_plan_keeps_the_change(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    env = interactive_env(tmp_path, clean_env, pages)
    child = spawn(["-p", "What is alpha?", "-o", str(work), "--interactive"], env, tmp_path)
    for n in (1, 2, 3):
        child.expect(f"{n}/3")
        child.sendline("")
    child.expect("Languages to search")  # the plan's languages, shown with the plan
    child.expect(MENU)
    child.sendline("l")
    child.expect(r"\+de adds German")
    child.sendline("+Klingon")
    child.expect("'Klingon' is not a known language")
    child.sendline("+de -en")
    child.expect(r"German\s+│\s+asked for by the person")
    child.expect(MENU)
    child.sendline("r")
    child.expect("What should the planner change")
    child.sendline("Shorter task titles.")
    child.expect(MENU)
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    doc = StateStore(Workspace(work)).load()
    assert [(p.code, p.reason) for p in doc.front.languages] == [("de", "asked for by the person")]
