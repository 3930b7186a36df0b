"""The real `python -m deepresearch search` subprocess against the local provider server."""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from deepresearch.core.budget import Budget
from deepresearch.core.config import Config
from deepresearch.core.errors import ExitCode
from deepresearch.core.workspace import Workspace
from tests.search.search_mock_server import MockProviders

RunCli = Callable[..., subprocess.CompletedProcess[str]]


def test_plain_output_is_a_numbered_list(server: MockProviders, run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli("search", "heat pumps", "-k", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "1. serper result 1",
        "   https://example.org/serper/1",
        "   about 1",
        "",
        "2. serper result 2",
        "   https://example.org/serper/2",
        "   about 2",
    ]
    assert "2 results via serper; searches used: 1" in done.stderr
    assert Workspace(tmp_path).search_log.is_file()


def test_json_output_carries_provider_and_rank(server: MockProviders, run_cli: RunCli) -> None:
    server.script("serper", "429")
    server.script("tavily", "hang")
    done = run_cli("search", "heat pumps", "-k", "3", "--json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert [(r["provider"], r["rank"]) for r in results] == [("exa", 1), ("exa", 2), ("exa", 3)]
    assert set(results[0]) == {"title", "url", "snippet", "provider", "rank"}
    assert "skipped serper: rate limited (HTTP 429)" in done.stderr
    assert "skipped tavily: timed out" in done.stderr


def test_the_budget_ends_searching_with_its_own_exit_code(
    server: MockProviders, run_cli: RunCli, tmp_path: Path
) -> None:
    budget = {"DEEPRESEARCH_MAX_SEARCHES": "1"}
    assert run_cli("search", "first", extra_env=budget).returncode == 0
    done = run_cli("search", "second", extra_env=budget)
    assert done.returncode == ExitCode.BUDGET
    assert "search budget spent: 1 of 1" in done.stderr
    assert "stop searching and work with what you have" in done.stderr
    assert done.stdout == ""
    assert server.total_hits() == 1
    again = run_cli("search", "first", extra_env=budget)  # a cached query costs nothing
    assert again.returncode == 0
    assert "from the cache (no search spent); searches used: 1 of 1" in again.stderr
    assert server.total_hits() == 1
    assert Budget(Workspace(tmp_path), Config()).searches_used() == 1


def test_no_provider_answering_names_each_failure_and_the_keys(
    server: MockProviders, run_cli: RunCli
) -> None:
    server.script("serper", "500")
    server.script("duckduckgo", "429")
    without = {"TAVILY_API_KEY": "", "EXA_API_KEY": "", "BRAVE_API_KEY": ""}
    done = run_cli("search", "anything", extra_env=without)
    assert done.returncode == ExitCode.NETWORK
    assert "no search provider answered for 'anything'" in done.stderr
    assert "serper: server error (HTTP 500" in done.stderr
    assert "duckduckgo: rate limited (HTTP 429)" in done.stderr
    assert "TAVILY_API_KEY, EXA_API_KEY, BRAVE_API_KEY" in done.stderr


def test_workdir_from_flag_or_environment(server: MockProviders, run_cli: RunCli, tmp_path: Path) -> None:
    flagged, env_given = tmp_path / "run-a", tmp_path / "run-b"
    flagged.mkdir()
    env_given.mkdir()
    assert run_cli("search", "q", "--workdir", str(flagged)).returncode == 0
    assert run_cli("search", "q", extra_env={"DEEPRESEARCH_WORKDIR": str(env_given)}).returncode == 0
    assert Budget(Workspace(flagged), Config()).searches_used() == 1
    assert Budget(Workspace(env_given), Config()).searches_used() == 1
    assert not Workspace(tmp_path).search_log.exists()


def test_the_workspace_config_file_is_honoured(
    server: MockProviders, run_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "deepresearch.yaml").write_text("search_strategy: batch\nsearch_providers: [brave, exa]\n")
    done = run_cli("search", "q", "--json", "-k", "4")
    assert done.returncode == 0, done.stderr
    assert [r["provider"] for r in json.loads(done.stdout)] == ["brave", "exa", "brave", "exa"]
    assert (server.hits["brave"], server.hits["exa"], server.hits["serper"]) == (1, 1, 0)


def test_bad_arguments_are_usage_errors(server: MockProviders, run_cli: RunCli) -> None:
    assert run_cli("search", "q", "-k", "50").returncode == ExitCode.USAGE
    assert run_cli("search", "   ").returncode == ExitCode.USAGE
    assert server.total_hits() == 0


def lock_waiters(path: Path, procs: list[subprocess.Popen[bytes]]) -> int:
    """How many of `procs` have `path` open: waiting for its lock, which the test holds (file_lock
    polls for a lock, so a waiter has the file open without being blocked in flock())."""
    waiting = 0
    for proc in procs:
        try:
            fds = list(Path(f"/proc/{proc.pid}/fd").iterdir())
        except OSError:
            continue
        waiting += any(_points_at(fd, path) for fd in fds)
    return waiting


def _points_at(fd: Path, path: Path) -> bool:
    try:
        return fd.readlink() == path
    except OSError:
        return False


def test_concurrent_searches_never_exceed_the_budget(
    server: MockProviders, cli_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**cli_env, "DEEPRESEARCH_MAX_SEARCHES": "2"}
    argv = [sys.executable, "-m", "deepresearch", "search", "-k", "2", "--workdir", str(tmp_path)]
    lock = tmp_path / ".deepresearch" / "locks" / "searches.lock"
    lock.parent.mkdir(parents=True)
    with lock.open("a+b") as held:
        # Hold the budget lock so that all four processes reach it and then contend at the same moment.
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        procs = [
            subprocess.Popen([*argv, f"query {i}"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for i in range(4)
        ]
        for _ in range(600):
            if lock_waiters(lock, procs) == len(procs) or any(p.poll() is not None for p in procs):
                break
            time.sleep(0.05)
        assert lock_waiters(lock, procs) == len(procs)
        fcntl.flock(held.fileno(), fcntl.LOCK_UN)
    codes = sorted(p.wait(timeout=60) for p in procs)
    for proc in procs:
        proc.communicate()
    assert codes == [0, 0, ExitCode.BUDGET, ExitCode.BUDGET]
    assert server.total_hits() == 2
    assert Budget(Workspace(tmp_path), Config()).searches_used() == 2
    lines = Workspace(tmp_path).search_log.read_text().splitlines()
    assert len(lines) == 4 and all(json.loads(line)["cached"] is False for line in lines)


def test_an_executors_search_names_its_task_batch_and_k_even_when_it_finds_nothing(
    server: MockProviders, run_cli: RunCli, tmp_path: Path
) -> None:
    task = {"DEEPRESEARCH_TASK": "E3"}
    assert run_cli("search", "heat pumps", "-k", "2", "--batch", "2", extra_env=task).returncode == 0
    assert (
        run_cli("search", "heat pumps", "-k", "2", extra_env={**task, "DEEPRESEARCH_BATCH": "3"}).returncode
        == 0
    )
    assert run_cli("search", "by hand", "-k", "1").returncode == 0  # a person's search: no attribution
    for provider in ("serper", "tavily", "exa", "brave", "duckduckgo"):
        server.script(provider, "empty")
    assert run_cli("search", "nothing at all", "-k", "5", "--batch", "3", extra_env=task).returncode == 0
    lines = [json.loads(line) for line in Workspace(tmp_path).search_log.read_text().splitlines()]
    tagged = [
        (ln["query"], ln["task"], ln["batch"], ln["k"], ln["rank"], ln["cached"])
        for ln in lines
        if "task" in ln
    ]
    assert tagged == [
        ("heat pumps", "E3", 2, 2, 1, False),
        ("heat pumps", "E3", 2, 2, 2, False),
        ("heat pumps", "E3", 3, 2, 1, True),  # from the cache, still this batch's query
        ("heat pumps", "E3", 3, 2, 2, True),
        ("nothing at all", "E3", 3, 5, 0, False),  # no result: one line says the query was made
    ]
    assert [ln["query"] for ln in lines if "task" not in ln] == ["by hand"]


def test_an_executors_search_that_no_provider_answers_is_logged_as_made(
    server: MockProviders, run_cli: RunCli, tmp_path: Path
) -> None:
    # An outage is not a lie: the batch log that lists this query is borne out by the search log.
    for provider in ("serper", "tavily", "exa", "brave", "duckduckgo"):
        server.script(provider, "500")
    proc = run_cli("search", "down", "-k", "3", "--batch", "1", extra_env={"DEEPRESEARCH_TASK": "E2"})
    assert proc.returncode != 0 and "no search provider answered" in proc.stderr
    assert run_cli("search", "down by hand", "-k", "3").returncode != 0  # a person's: not logged
    lines = [json.loads(line) for line in Workspace(tmp_path).search_log.read_text().splitlines()]
    assert [(ln["query"], ln["task"], ln["batch"], ln["failed"]) for ln in lines] == [
        ("down", "E2", 1, "no provider answered")
    ]
    assert Budget(Workspace(tmp_path), Config()).searches_used() == 0  # not counted
