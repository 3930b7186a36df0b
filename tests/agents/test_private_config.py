"""A call's private copy of its CLI's configuration (agents/confine.py), file by file, and the one
folder a call may write."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from deepresearch.agents.claude import ClaudeBackend
from deepresearch.agents.confine import own_folder, private_config
from deepresearch.agents.custom import CustomBackend
from deepresearch.core.workspace import Workspace


def test_the_config_is_copied_without_history_and_the_credentials_stay_real(tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude = home / ".claude"
    (claude / "projects" / "p").mkdir(parents=True)
    (claude / "projects" / "p" / "session.jsonl").write_text("a long history")
    (claude / "commands").mkdir()
    (claude / "commands" / "mine.md").write_text("my command")
    (claude / "settings.json").write_text('{"theme": "dark"}')
    (claude / ".credentials.json").write_text('{"token": "t"}')
    (claude / "CLAUDE.md").symlink_to(home / "notes.md")
    (home / ".claude.json").write_text('{"numStartups": 3}')
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(claude / "ide.sock"))  # a socket is left out, not an error

        config = private_config(ClaudeBackend(), {"HOME": str(home)})
    assert config.scratch is not None
    where = {original: copy for copy, original in config.copies}
    assert set(where) == {claude, home / ".claude.json"}
    copy = where[claude]
    assert (copy / "settings.json").read_text() == '{"theme": "dark"}'
    assert (copy / "commands" / "mine.md").read_text() == "my command"
    assert (copy / "CLAUDE.md").readlink() == home / "notes.md"
    assert not (copy / "projects").exists() and not (copy / "ide.sock").exists()
    assert where[home / ".claude.json"].read_text() == '{"numStartups": 3}'
    assert config.credentials == [claude / ".credentials.json"]  # the real file, bound writable
    (copy / "settings.json").write_text('{"hooks": "evil"}')  # what the call changes...
    config.close()
    assert not copy.exists()  # ...goes with the copy
    assert (claude / "settings.json").read_text() == '{"theme": "dark"}'


def test_a_cli_without_config_folders_gets_no_scratch_folder(tmp_path: Path) -> None:
    config = private_config(CustomBackend(["mycli"]), {"HOME": str(tmp_path)})
    assert config.copies == [] and config.scratch is None
    config.close()


def test_a_call_may_write_only_its_own_folder_under_logs_calls(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    assert own_folder(workspace, workspace.result_file("E1")) == workspace.call_dir("E1")
    assert workspace.call_dir("E1").is_dir()
    for output in (workspace.logs / "E1_result.md", workspace.root / "x.md", workspace.calls / "x.md"):
        with pytest.raises(ValueError, match="its own folder"):
            own_folder(workspace, output)
