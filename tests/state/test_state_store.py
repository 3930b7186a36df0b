"""StateStore: validated loads, atomic saves stamped by the clock, numbered snapshots, restore."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deepresearch.core.errors import StateError
from deepresearch.core.files import atomic_write
from deepresearch.core.workspace import Workspace
from deepresearch.state import model as m
from deepresearch.state.parser import parse_task_md
from deepresearch.state.store import StateStore
from deepresearch.state.writer import render_task_md
from tests.state.test_state_malformed import BASE


class FakeClock:
    """A clock that moves one minute per reading."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 2, 10, 0, 0, 123456, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> StateStore:
    return StateStore(Workspace(tmp_path), clock=FakeClock())


def test_save_stamps_writes_and_snapshots(store: StateStore) -> None:
    assert not store.exists()
    doc = parse_task_md(BASE)
    first = store.save(doc, "plan")
    doc.tasks[1].status = m.TaskStatus.RUNNING
    second = store.save(doc, "Execute round 1")
    assert store.exists()
    assert [p.name for p in store.snapshots()] == ["0001-plan.md", "0002-execute-round-1.md"]
    assert (first.name, second.name) == ("0001-plan.md", "0002-execute-round-1.md")
    loaded = store.load()
    assert loaded == doc
    assert loaded.front.updated == "2026-11-02T10:02:00Z"
    assert parse_task_md(first.read_text()).front.updated == "2026-11-02T10:01:00Z"
    assert second.read_text() == store.path.read_text() == render_task_md(doc)
    assert [p.name for p in store.path.parent.iterdir() if p.name.startswith(".task.md")] == []


def test_snapshot_numbers_keep_growing_past_9999(store: StateStore) -> None:
    store.workspace.snapshots.mkdir(parents=True)
    (store.workspace.snapshots / "9999-reflect.md").write_text(BASE)
    assert store.save(parse_task_md(BASE), "synthesize").name == "10000-synthesize.md"
    assert store.snapshots()[-1].name == "10000-synthesize.md"


def test_a_created_stamp_is_set_once(store: StateStore) -> None:
    doc = m.TaskDoc(front=m.FrontMatter(id="r", question="q"))
    store.save(doc, "plan")
    store.save(doc, "execute")
    assert (doc.front.created, doc.front.updated) == ("2026-11-02T10:01:00Z", "2026-11-02T10:02:00Z")


def test_save_refuses_a_document_that_would_not_read_back(store: StateStore) -> None:
    doc = parse_task_md(BASE)
    doc.facts[0].sources = ["S77"]
    with pytest.raises(StateError, match="Facts row Fact-001: Sources names S77, which no source has"):
        store.save(doc, "merge")
    assert not store.exists() and store.snapshots() == []


def test_bad_edit_is_reported_with_its_line_and_the_last_good_snapshot_found(store: StateStore) -> None:
    doc = parse_task_md(BASE)
    store.save(doc, "plan")
    good = store.save(doc, "execute")
    store.path.write_text(BASE.replace("| E1 | pending |", "| E42 | pending |"))
    (store.workspace.snapshots / "0003-broken.md").write_text("not a task.md")
    with pytest.raises(StateError) as caught:
        store.load()
    assert caught.value.line == 44 and "Depends names E42, which no task has" in str(caught.value)
    assert store.last_good_snapshot() == good


def test_missing_and_non_utf8_files(store: StateStore) -> None:
    with pytest.raises(StateError, match="not found"):
        store.load()
    store.path.write_bytes(b"---\nid: \xff\n")
    with pytest.raises(StateError, match="is not UTF-8 text"):
        store.load()
    assert store.last_good_snapshot() is None


def test_atomic_write_replaces_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "file.md"
    atomic_write(target, "one\n")
    os.chmod(target, 0o640)
    atomic_write(target, "two ünïcode\n")
    assert target.read_text(encoding="utf-8") == "two ünïcode\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.md"]


def test_load_with_the_previous_document_refuses_redoing_finished_work(store: StateStore) -> None:
    doc = parse_task_md(BASE)
    store.save(doc, "execute")
    store.path.write_text(store.path.read_text().replace("| high | - | done |", "| high | - | pending |"))
    assert store.load().tasks[0].status is m.TaskStatus.PENDING  # well-formed on its own
    with pytest.raises(StateError) as caught:
        store.load(previous=doc)
    assert caught.value.line == 43
    assert "Research DAG row E1: Status cannot change from done to pending" in str(caught.value)
