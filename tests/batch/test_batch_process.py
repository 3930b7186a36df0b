"""What a batch relies on around its runs: children die with their parent, Ray is optional."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.batch.conftest import base_env
from tests.batch.helpers import batch_argv, batch_folder, jsonl_file
from tests.pipeline.test_resume import wait_for

PARENT = textwrap.dedent(
    """
    import signal
    import sys
    from pathlib import Path
    from deepresearch.core.process import ProcessRunner

    child = [sys.executable, "-c", (
        "import signal, sys, time, pathlib\\n"
        "def stop(*_):\\n"
        "    pathlib.Path(sys.argv[1]).write_text('got SIGTERM')\\n"
        "    sys.exit(130)\\n"
        "signal.signal(signal.SIGTERM, stop)\\n"
        "pathlib.Path(sys.argv[2]).write_text('ready')\\n"
        "time.sleep(600)\\n"
    ), sys.argv[1], sys.argv[2]]
    ProcessRunner().run(child, Path.cwd(), {}, 600, Path(sys.argv[3]), on_parent_death=signal.SIGTERM)
    """
)


def test_a_child_started_with_die_with_parent_gets_sigterm_when_its_parent_is_killed(tmp_path: Path) -> None:
    note, ready, log = tmp_path / "note", tmp_path / "ready", tmp_path / "child.log"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(note), str(ready), str(log)], cwd=tmp_path, env=base_env(tmp_path)
    )
    wait_for(ready.exists, timeout=30)
    parent.send_signal(signal.SIGKILL)  # no cleanup of its own: only the kernel can tell the child
    parent.wait(timeout=10)
    wait_for(note.exists, timeout=10)
    assert note.read_text() == "got SIGTERM"


def test_on_ray_without_ray_installed_says_how_to_install(tmp_path: Path) -> None:
    folder = batch_folder(tmp_path)
    file = jsonl_file(tmp_path / "q.jsonl", [{"id": "a", "prompt": "Index a?"}])
    # `sys.modules["ray"] = None` makes `import ray` fail as it does where Ray is not installed.
    code = "import sys; sys.modules['ray'] = None; from deepresearch.cli import main; main(sys.argv[1:])"
    argv = [sys.executable, "-c", code, *batch_argv(file, folder, "--on", "ray")[3:]]
    result = subprocess.run(
        argv, cwd=tmp_path, env=base_env(tmp_path), capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--on ray needs Ray, which is not installed" in result.stderr
    assert "pip install 'deepresearch[ray]'" in result.stderr
    assert not (folder / "a").exists() and not (folder / "batch.json").exists()


def test_bad_options_are_usage_errors(tmp_path: Path) -> None:
    folder = batch_folder(tmp_path)
    file = jsonl_file(tmp_path / "q.jsonl", [{"id": "a", "prompt": "Index a?"}])
    env = base_env(tmp_path)
    for extra, message in (
        (["--on", "spark"], "expected local, ray or ray://ADDRESS"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--effort", "huge"], "effort: must be one of quick, standard, deep"),
        (["--max-cost-total", "-1"], "--max-cost-total must be greater than 0"),
    ):
        result = subprocess.run(
            batch_argv(file, folder, *extra),
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode in (2, 3) and message in result.stderr, (extra, result.stderr)
    assert os.listdir(folder) == ["deepresearch.yaml"]
