"""A stale source asked for again is archived again: a new ID, the old archive kept; a fresh one is not."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from deepresearch.core.clock import utc_now
from deepresearch.core.files import file_sha256
from deepresearch.core.workspace import Workspace
from deepresearch.sources.archive import Archiver
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry
from tests.helpers import PageServer
from tests.sources.conftest import make_config
from tests.sources.test_archive_fallback import no_browser


def _record(source_id: str, url: str, fetched: str) -> SourceRecord:
    return SourceRecord(
        url=url, id=source_id, fetched=fetched, sha256=source_id * 8, archive=f"assets/web/{source_id}.md"
    )


def test_the_registry_renews_under_its_lock_and_the_newest_answers_for_the_url(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)
    url = "https://example.org/page"
    old, _ = registry.register(url, url, "c1", lambda sid: _record(sid, url, "2020-01-01T00:00:00+00:00"))
    new, made = registry.renew(
        old, lambda r: r.fetched < "2021", lambda sid: _record(sid, url, "2026-01-01T00:00:00+00:00")
    )
    assert made and (old.id, new.id) == ("S01", "S02")
    assert (new.renews, new.copy_of) == ("S01", "S01")
    assert registry.lookup(url) == new and registry.get("S01") == old  # the old record stands
    # Another process renewed it meanwhile: the current record is returned, nothing is appended.
    again, made = registry.renew(old, lambda r: r.fetched < "2021", lambda sid: pytest.fail("built twice"))
    assert again == new and not made and len(registry.archived()) == 2


def test_the_archiver_renews_only_what_is_older_than_its_cutoff(
    tmp_path: Path, pages: PageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = Workspace(tmp_path / "ws")
    workspace.ensure()
    config = make_config(**no_browser(monkeypatch, tmp_path / "no-browsers"))
    url = f"{pages.base_url}/alpha.html"
    with Archiver(workspace, config) as archiver:
        first = archiver.archive(url)
    with Archiver(workspace, config, renew_before=utc_now() - timedelta(days=1)) as archiver:
        assert archiver.archive(url) == first  # archived after the cutoff: fresh, reused
    with Archiver(workspace, config, renew_before=utc_now() + timedelta(seconds=5)) as archiver:
        second = archiver.archive(url)
    # The newer archive answers for the URL; archived at the cutoff, it is fresh.
    with Archiver(workspace, config, renew_before=datetime.fromisoformat(second.fetched)) as archiver:
        assert archiver.archive(url) == second
    assert (second.id, second.renews, second.copy_of) == ("S02", "S01", "S01")
    root = workspace.root
    for record in (first, second):
        assert file_sha256(root / record.archive) == record.sha256
    assert first.archive != second.archive and first.sha256 != second.sha256
    with Archiver(workspace, config) as archiver:  # no cutoff: whatever is archived is used
        assert archiver.archive(url) == second
    assert [r.id for r in SourceRegistry(workspace).archived()] == ["S01", "S02"]
