"""The real claude, gemini, codex, copilot, opencode and qwen binaries run through `deepresearch -p`
against the scripted model server (tests/model_server.py): a complete verified run per CLI, every role including
the verifier (with a 429 and a 500 retried by our backoff on the way), 401 as a login error without retries, a 500 that never stops,
and a server that never answers.

The CLIs come from `.ci/install-agent-clis` (or PATH); a missing one skips with that reason, or fails
with REQUIRE_AGENT_CLI_TESTS=1 (set by .ci/run, which installs them).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from deepresearch.agents.registry import BUILTIN
from deepresearch.core.errors import ExitCode
from deepresearch.core.workspace import Workspace
from deepresearch.state.model import RunStatus, TaskStatus
from deepresearch.state.store import StateStore
from tests.helpers import PageServer
from tests.integration.harness import (
    CLIS,
    attempts,
    cli_env,
    events,
    leftovers,
    require_cli,
    run_deepresearch,
    write_config,
)
from tests.model_server import Fault, ModelServer, Script
from tests.model_tools import SHELL_TOOLS

pytestmark = pytest.mark.integration

QUESTION = "What do the E1 and E2 bulletins report for 2025?"
# Requests one CLI process makes for one prompt answered 401 (its own retries, seen with the
# pinned versions): more would mean deepresearch retried.
REQUESTS_PER_401 = {"claude": 2, "gemini": 1, "codex": 1, "copilot": 3, "opencode": 1, "qwen": 1}
# How long one CLI call spends retrying a 429 or 5xx itself before it gives up, where that is long: qwen
# retries 7 times over ~80 s (not configurable in 0.15.10, nor in 0.24). "500 forever" leaves such a CLI
# out: its complete run shows its 500 read as "overloaded" and retried by our backoff (E2), and giving
# up after our last retry, and how that reads, do not depend on the CLI (the other five show it).
OWN_5XX_RETRY_SECONDS = {"qwen": 80.0}
# How long one whole run may take.
RUN_TIMEOUT = {cli: 240.0 + 3 * seconds for cli, seconds in OWN_5XX_RETRY_SECONDS.items()}
# agent_timeout for a server that never answers: long enough for the CLI to start and send its
# request (opencode takes ~5 s to start on an idle machine, 20 s on a loaded one).
HANG_TIMEOUT = {"opencode": 45, "qwen": 30}


ALL_CLIS = [pytest.param(name, id=name) for name in CLIS]  # each test starts with require_cli


@dataclass
class Research:
    """One finished `deepresearch -p` run and what the model server saw."""

    proc: subprocess.CompletedProcess[str]
    work: Path
    server: ModelServer

    @property
    def said(self) -> str:
        return f"exit {self.proc.returncode}\n{self.proc.stdout[-3000:]}\n{self.proc.stderr[-3000:]}"


RunResearch = Callable[..., Research]


@pytest.fixture
def research(tmp_path: Path, clean_env: dict[str, str]) -> RunResearch:
    """A function that runs one research with a real CLI against a scripted model server."""

    def run(cli: str, faults: list[Fault], **settings: object) -> Research:
        require_cli(cli)
        work, home = tmp_path / "ws", tmp_path / "home"
        home.mkdir(exist_ok=True)
        with PageServer() as pages, ModelServer(Script(work, pages.base_url, faults)) as server:
            write_config(work, cli, server.base_url, **settings)
            env = cli_env(cli, server.base_url, home, clean_env)
            timeout = RUN_TIMEOUT.get(cli, 240.0)
            proc = run_deepresearch(["-p", QUESTION, "-o", str(work)], env, tmp_path, timeout)
        return Research(proc, work, server)

    return run


def failures(work: Path, who: str) -> list[str | None]:
    """The failure kind of each attempt of a role, or of one call by its label (None: it succeeded)."""
    return [e.get("failure") for e in attempts(work, who)]


def retries(work: Path, who: str) -> list[float]:
    """The backoff delays deepresearch logged for a role, or for one call by its label."""
    return [
        e["delay"] for e in events(work) if e["event"] == "agent_retry" and who in (e["role"], e["label"])
    ]


@pytest.mark.parametrize("cli", ALL_CLIS)
def test_complete_run_ends_with_a_verified_report(research: RunResearch, cli: str) -> None:
    # The two executors run at once, so the CLI's own retries of the 429 and of the 500 (qwen's
    # take ~80 s each) overlap instead of adding up.
    run = research(
        cli,
        [Fault(429, label="E1", until_retried=True), Fault(500, label="E2", until_retried=True)],
        concurrency=2,
    )
    assert run.proc.returncode == 0, run.said
    check = subprocess.run(
        [sys.executable, "-m", "deepresearch", "check", str(run.work)],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr

    doc = StateStore(Workspace(run.work)).load()
    assert doc.front.status is RunStatus.COMPLETED
    assert [t.status for t in doc.tasks] == [TaskStatus.DONE, TaskStatus.DONE]
    assert {f.verified.value for f in doc.facts} == {"yes"} and len(doc.facts) == 2
    assert all((run.work / s.archive).is_file() for s in doc.sources) and len(doc.sources) == 2
    report = (run.work / "report.md").read_text(encoding="utf-8")
    assert "[S01]" in report

    # The verifier role ran through this CLI: once on the round's facts, once on the report's
    # cited sentences; every claim it judged is supported.
    assert failures(run.work, "verifier") == [None, None], run.said
    assert {f.support.value for f in doc.facts} == {"supported"}
    last = report.rstrip().splitlines()[-1]
    assert last.startswith("| Claims supported | ") and "(100%)" in last, last

    # The 429 and the 500 failed one whole CLI call each; our backoff retried it.
    assert failures(run.work, "E1") == ["rate_limited", None], run.said
    assert failures(run.work, "E2") == ["overloaded", None], run.said
    assert retries(run.work, "E1") == retries(run.work, "E2") == [0.2]
    # Executors archived their page through the CLI's own shell tool, then wrote their file.
    for label in ("E1", "E2"):
        moves = [s.answer for s in run.server.seen(label=label) if s.status == 200]
        assert moves[0] in SHELL_TOOLS and moves[-1] == "text" and len(moves) >= 3, moves


@pytest.mark.parametrize("cli", ALL_CLIS)
def test_401_is_a_login_error_without_retries(research: RunResearch, cli: str) -> None:
    run = research(cli, [Fault(401)])
    assert run.proc.returncode == ExitCode.NO_AGENT, run.said
    assert f"{cli} is not logged in" in run.proc.stderr
    assert BUILTIN[cli]().login_hint in run.proc.stderr
    assert failures(run.work, "planner") == ["not_logged_in"]
    assert retries(run.work, "planner") == []
    assert len(run.server.seen()) == REQUESTS_PER_401[cli], run.server.seen()


@pytest.mark.parametrize("cli", [name for name in ALL_CLIS if name.values[0] not in OWN_5XX_RETRY_SECONDS])
def test_500_forever_fails_clearly_after_our_retries(research: RunResearch, cli: str) -> None:
    run = research(cli, [Fault(500)], retries=1, backoff_base=0.1)
    assert run.proc.returncode == ExitCode.AGENT, run.said
    assert f"{cli}: the API is overloaded or failing" in run.proc.stderr
    assert failures(run.work, "planner") == ["overloaded"] * 2
    assert retries(run.work, "planner") == [0.1]


@pytest.mark.parametrize("cli", ALL_CLIS)
def test_server_that_never_answers_is_stopped_with_the_whole_process_group(
    research: RunResearch, cli: str
) -> None:
    timeout = HANG_TIMEOUT.get(cli, 8)
    run = research(cli, [Fault(None)], retries=0, agent_timeout=timeout)
    assert run.proc.returncode == ExitCode.AGENT, run.said
    assert f"{cli} did not finish within {timeout}s" in run.proc.stderr
    assert failures(run.work, "planner") == ["timeout"]
    assert [s.status for s in run.server.seen()] == [0], "the CLI should have been waiting for the server"
    started = [e["pid"] for e in events(run.work) if e["event"] == "agent_started"]
    assert leftovers(run.work, set(started)) == []
