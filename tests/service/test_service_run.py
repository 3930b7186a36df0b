"""The tool service inside real runs (`deepresearch -p` with the fake agent): the service dies
mid-run and the run completes with nothing lost; two runs at once never share a service."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from deepresearch.core.workspace import Workspace
from deepresearch.sources.registry import SourceRegistry
from deepresearch.state.model import RunStatus
from deepresearch.state.store import StateStore
from tests.helpers import PageServer, write_scenario, write_workspace_config

QUESTION = "What do the E1 and E2 bulletins say?"


def start(work: Path, scenario: Path, env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "deepresearch", "-p", QUESTION, "-o", str(work)],
        env={**env, "FAKE_AGENT_SCENARIO": str(scenario)}, cwd=cwd, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def tools_log(work: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (work / "logs" / "tools.jsonl").read_text().splitlines()]


def test_the_service_dies_mid_run_and_the_run_completes_with_nothing_lost(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work, concurrency=1, analysis="never", max_figures=0)
    scenario = write_scenario(
        tmp_path / "s.yaml", {"page_base": pages.base_url, "executor": {"E1": {"drop_service": True}}}
    )
    proc = start(work, scenario, clean_env, tmp_path)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, out[-3000:] + err[-3000:]
    doc = StateStore(Workspace(work)).load()
    assert doc.front.status is RunStatus.COMPLETED and len(doc.facts) == 2
    assert {f.verified.value for f in doc.facts} == {"yes"}
    # E1's archive found no service and archived by itself, into the same registry.
    e1 = (work / "logs" / "E1.log").read_text()
    assert "the run's tool service is not answering" in e1 and "archiving here" in e1
    assert sorted(r.id for r in SourceRegistry(Workspace(work)).archived()) == ["S01", "S02"]
    # The next agent found a service again: the orchestrator restarted it.
    events = (work / "logs" / "events.jsonl").read_text()
    assert "the tool service had stopped answering; restarted it" in events
    assert [
        e["task"] for e in tools_log(work) if e.get("op") == "archive" and e.get("call") != "orchestrator"
    ] == ["E2"]
    assert not (work / ".deepresearch" / "tools.sock").exists()  # removed when the run ended


def test_two_runs_at_once_in_two_workspaces_use_their_own_services(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    runs = {}
    with PageServer() as pages_a, PageServer() as pages_b:
        for name, pages in (("a", pages_a), ("b", pages_b)):
            work = tmp_path / name
            work.mkdir()
            write_workspace_config(work, analysis="never", max_figures=0)
            scenario = write_scenario(tmp_path / f"{name}.yaml", {"page_base": pages.base_url, "sleep": 0.5})
            runs[name] = (work, pages, start(work, scenario, clean_env, tmp_path))
        for _, _, proc in runs.values():
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, out[-3000:] + err[-3000:]
    for work, pages, _ in runs.values():
        archived = [r.url for r in SourceRegistry(Workspace(work)).archived()]
        assert len(archived) == 2 and all(url.startswith(pages.base_url) for url in archived)
        logged = [url for e in tools_log(work) if e.get("op") == "archive" for url in e["urls"]]  # type: ignore[union-attr]
        assert logged and all(url.startswith(pages.base_url) for url in logged)
