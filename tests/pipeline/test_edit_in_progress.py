"""A person's edit of task.md is read when it is whole: an editor that writes the file in place can be
caught half-way (empty, or cut short); the run waits for the writes to stop instead of pausing on a
file that is still being written. An edit that stays broken still pauses the run, naming its line."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from deepresearch.agents.runner import AgentRunner
from deepresearch.core.config import Config
from deepresearch.core.errors import StateError
from deepresearch.core.events import NullSink
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.context import EDIT_SETTLE_SECONDS, RunContext
from deepresearch.state.parser import parse_task_md
from deepresearch.state.store import StateStore
from tests.state.test_state_malformed import BASE


def saved_context(tmp_path: Path) -> RunContext:
    workspace = Workspace(tmp_path)
    workspace.ensure()
    config = Config()
    runner = AgentRunner(workspace, config, NullSink(), environ={})
    ctx = RunContext(workspace, config, StateStore(workspace), runner, NullSink(), parse_task_md(BASE))
    ctx.save("plan")
    return ctx


def test_an_edit_read_while_it_is_being_written_is_read_again_when_whole(tmp_path: Path) -> None:
    ctx = saved_context(tmp_path)
    edited = ctx.written.replace("| Compare bills |", "| Compare electricity bills |")
    assert edited != ctx.written
    ctx.store.path.write_text(edited[:40])  # the editor has written the first bytes only
    finish = threading.Timer(EDIT_SETTLE_SECONDS / 2, ctx.store.path.write_text, [edited])
    finish.start()
    try:
        assert ctx.refresh()
    finally:
        finish.join()
    assert ctx.doc.tasks[1].title == "Compare electricity bills" and ctx.written == edited


def test_an_edit_that_stays_broken_pauses_the_run_at_its_line(tmp_path: Path) -> None:
    ctx = saved_context(tmp_path)
    broken = ctx.written.replace(
        "| Compare bills | D2 | medium | E1 |", "| Compare bills | D2 | medium | E99 |"
    )
    assert broken != ctx.written
    ctx.store.path.write_text(broken)
    start = time.monotonic()
    with pytest.raises(StateError, match="the run is paused") as raised:
        ctx.refresh()
    assert raised.value.line is not None
    assert time.monotonic() - start < 4 * EDIT_SETTLE_SECONDS  # looked twice, not for the whole window
