"""A job on a node that cannot see the batch folder: the workspace goes there packed and comes back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deepresearch.batch.launch import JobLaunch, prepare_workspace
from deepresearch.batch.packing import pack, unpack
from deepresearch.batch.ray_task import run_job_task
from tests.batch.helpers import batch_folder, events, scenario_env
from tests.helpers import PageServer


def test_a_job_runs_off_site_from_its_packed_workspace_and_returns_it(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = batch_folder(tmp_path)
    workdir = prepare_workspace(folder, "j1")
    launch = JobLaunch("j1", "Index alpha?", str(workdir), str(folder / "logs" / "j1.log"))
    env = scenario_env(clean_env, tmp_path / "s.yaml", {"page_base": pages.base_url})
    for key in [k for k in os.environ if k.startswith(("DEEPRESEARCH_", "FAKE_AGENT"))]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)  # a node's own environment
    probe = folder / ".batch" / "probe"
    probe.parent.mkdir(parents=True)
    probe.write_text("another-token")  # what a node without the shared folder sees: not our token

    assert run_job_task(launch.to_dict(), str(probe), "our-token", None) == {"need_workspace": True}
    result = run_job_task(launch.to_dict(), str(probe), "our-token", pack(workdir))
    assert result["outcome"]["exit_code"] == 0, result
    assert not (workdir / "task.md").exists()  # it ran elsewhere: nothing was written here
    unpack(result["packed"], workdir)
    assert (workdir / "report.md").is_file() and (workdir / "deepresearch.yaml").is_file()
    assert [e["event"] for e in events(workdir)][-1] == "run_finished"
    assert "research completed" in result["log"]
    run_dir = next(e["workdir"] for e in events(workdir) if e["event"] == "run_started")
    assert run_dir != str(workdir) and not Path(run_dir).exists()  # a scratch folder, removed after
