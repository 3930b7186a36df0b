"""A whole `deepresearch -p` run with `sandbox: bwrap` and an agent CLI that has no rules of its own:
the custom backend running tests/security/attacker.sh, whose executors try what a hijacked agent
would (after archiving a page that tells AI agents what to do) before working normally.

The OS sandbox and the agent environment are then the only walls: writes outside the workspace and
to task.md or the archives fail, the planted SSH key and the search key are not there, the
orchestrator's process cannot be signalled, and the run still completes with a verified report. The
network stays open (the CLI must reach its model): a local port is reachable from a shell that no
CLI rule confines — the README's Security model says so, and this test pins it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from deepresearch.core.workspace import Workspace
from deepresearch.state.model import RunStatus
from deepresearch.state.store import StateStore
from tests.helpers import (
    FAKE_AGENT,
    FAKE_AGENT_ENV,
    LOCAL_HOSTS,
    PageServer,
    importable_in_sandbox,
    skip_without_sandbox,
)

ATTACKER = Path(__file__).with_name("attacker.sh")
SECRET = "serper-secret-never-in-agents"
KEY = "-----BEGIN FAKE PRIVATE KEY----- planted by the test"


class Canary:
    """A local HTTP port that records whoever reaches it."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        canary = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                canary.hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", "6")
                self.end_headers()
                self.wfile.write(b"CANARY")

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def __enter__(self) -> Canary:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def attacks(log: str) -> dict[str, str]:
    """`ATTACK name: outcome` lines of an agent log."""
    return dict(re.findall(r"^ATTACK ([\w-]+): (.*)$", log, re.M))


def test_a_rule_less_agent_in_bubblewrap_cannot_reach_secrets_or_state(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    skip_without_sandbox()
    work, home = tmp_path / "ws", tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY + "\n")
    work.mkdir()
    outside = tmp_path / "outside-the-workspace.txt"
    config = {
        "agent": "custom",
        "custom_command": [
            "bash",
            str(ATTACKER),
            sys.executable,
            str(FAKE_AGENT),
            "{prompt_file}",
            "{workdir}",
            # The scripted agent imports deepresearch's demo builders and yaml (attacker.sh ignores these).
            *importable_in_sandbox(),
        ],
        "sandbox": "bwrap",
        "agent_env": [*FAKE_AGENT_ENV, "ATTACK_*"],  # what the attacker script reads (and nothing else)
        "allow_private_hosts": LOCAL_HOSTS,
        "concurrency": 1,
        "max_batches": 1,
        "retries": 0,
        "analysis": "never",
        "max_figures": 0,
    }
    (work / "deepresearch.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    # The scenario lives in the workspace: the sandbox hides the rest of /tmp.
    (work / "scenario.yaml").write_text(yaml.safe_dump({"page_base": pages.base_url}), encoding="utf-8")
    with Canary() as canary:
        env = {
            **clean_env,
            "HOME": str(home),
            "FAKE_AGENT_SCENARIO": str(work / "scenario.yaml"),
            "SERPER_API_KEY": SECRET,
            "SSH_AUTH_SOCK": str(tmp_path / "agent.sock"),
            "ATTACK_OUTSIDE": str(outside),
            "ATTACK_PORT": str(canary.port),
            "ATTACK_PID": str(os.getpid()),
        }
        proc = subprocess.run(
            [sys.executable, "-m", "deepresearch", "-p", "What do the E1 and E2 bulletins say?", "-o", str(work)],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = StateStore(Workspace(work)).load()
    assert doc.front.status is RunStatus.COMPLETED and len(doc.facts) == 2
    assert {f.verified.value for f in doc.facts} == {"yes"}  # the archives were not altered

    for label in ("E1", "E2"):
        log = (work / "logs" / f"{label}.log").read_text(encoding="utf-8")
        assert "bwrap" in log.splitlines()[0]  # the agent ran inside the sandbox
        tried = attacks(log)
        assert tried["touch-etc"].startswith("failed") and "Read-only file system" in tried["touch-etc"]
        assert tried["read-ssh-key"].startswith("failed") and "No such file" in tried["read-ssh-key"]
        assert (
            tried["write-task-md"].startswith("failed") and "Read-only file system" in tried["write-task-md"]
        )
        assert tried["read-search-key"] == "succeeded: none"
        assert tried["signal-orchestrator"].startswith("failed")  # another PID namespace
        assert SECRET not in log and KEY not in log
    assert "Read-only file system" in attacks((work / "logs" / "E2.log").read_text())["alter-archive"]
    assert not outside.exists()  # touched in the sandbox's private /tmp, gone with it
    assert "PWNED" not in (work / "task.md").read_text(encoding="utf-8")
    assert not Path("/etc/deepresearch-pwned").exists()
    # bubblewrap keeps the network (the CLI must reach its model): only a CLI's own rules stop this.
    assert canary.hits == ["/exfiltrate", "/exfiltrate"]


@pytest.mark.parametrize("mode", ["bwrap"])
def test_sandbox_bwrap_without_bubblewrap_is_a_configuration_error(
    tmp_path: Path, clean_env: dict[str, str], mode: str
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    config = {"agent": "custom", "custom_command": [sys.executable, str(FAKE_AGENT)], "sandbox": mode}
    (work / "deepresearch.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("sh", "bash", "env"):  # a PATH without bwrap
        target = Path("/usr/bin") / tool
        if target.exists():
            (bare / tool).symlink_to(target)
    env = {**clean_env, "PATH": str(bare)}
    proc = subprocess.run(
        [sys.executable, "-m", "deepresearch", "-p", "Q?", "-o", str(work)],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    assert "sandbox: is bwrap, but bubblewrap is not installed" in proc.stderr
    assert "apt-get install bubblewrap" in proc.stderr
    assert not (work / "logs" / "planner.log").exists()  # no agent was started
