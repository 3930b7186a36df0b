"""The source registry: one allocator of IDs, dedup by URL and content, safe across processes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from deepresearch.core.workspace import Workspace
from deepresearch.sources.copies import CopyProbe, sketch
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry, task_md_source_ids
from tests.evidence_site import ARTICLE, SYNDICATION
from tests.sources.conftest import REPO


def register(registry: SourceRegistry, url: str, content: str = "", final_url: str = "") -> SourceRecord:
    """Register `url` with a record that writes no files."""
    record, _ = registry.register(
        url,
        final_url or url,
        content or f"sha-of-{url}",
        lambda source_id: SourceRecord(
            url=url, id=source_id, final_url=final_url or url, content_sha256=content or f"sha-of-{url}"
        ),
    )
    return record


def test_ids_are_allocated_in_order(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)
    assert [register(registry, f"https://example.org/{n}").id for n in range(3)] == ["S01", "S02", "S03"]
    assert [r.id for r in registry.archived()] == ["S01", "S02", "S03"]
    second = registry.get("S02")
    assert second is not None and second.url == "https://example.org/1"


def test_ids_grow_past_s99(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)
    ids = [register(registry, f"https://example.org/{n}").id for n in range(101)]
    assert ids[98:] == ["S99", "S100", "S101"]


def test_ids_skip_those_already_in_task_md(workspace: Workspace) -> None:
    workspace.task_md.write_text(
        textwrap.dedent("""\
        ---
        id: run
        ---
        ## Facts

        | ID | Statement | Sources |
        | --- | --- | --- |
        | Fact-001 | x | S140 |

        ## Sources

        | ID | Title | URL |
        | --- | --- | --- |
        | S01 | One | https://a.example/ |
        | S12 | Twelve | https://b.example/ |

        ## Scratchpad

        | S99 | not a source row |
        """),
        encoding="utf-8",
    )
    assert task_md_source_ids(workspace.task_md) == [1, 12]
    assert register(SourceRegistry(workspace), "https://c.example/").id == "S13"
    assert workspace.task_md.read_text(encoding="utf-8").count("S13") == 0  # task.md is only read


def test_url_variants_share_one_record(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)
    first = register(registry, "https://www.example.org/report/?utm_source=x&b=2&a=1#part")
    for variant in ("https://example.org/report?a=1&b=2", "HTTPS://EXAMPLE.ORG:443/report/?b=2&a=1"):
        assert registry.lookup(variant) == first
        assert register(registry, variant).id == first.id
    assert len(registry.archived()) == 1


def test_final_url_after_redirects_is_matched(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)
    first = register(registry, "https://short.example/x", final_url="https://example.org/long/article")
    assert registry.lookup("https://example.org/long/article") == first
    assert register(registry, "https://example.org/long/article").id == first.id


def test_same_content_under_another_url_returns_the_existing_record(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)
    first = register(registry, "https://example.org/a", content="abc123")
    again = register(registry, "https://mirror.example.net/copy", content="abc123")
    assert again == first and len(registry.archived()) == 1
    assert registry.lookup("https://mirror.example.net/copy") == first  # remembered as an alias
    assert registry.lookup_content("abc123") == first


def test_failures_are_recorded_and_can_be_retried(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)
    registry.record_failure(SourceRecord.failure("https://example.org/x", "timeout", "too slow"))
    assert registry.lookup("https://example.org/x") is None
    assert [(r.status, r.error, r.id) for r in registry.records()] == [("failed", "timeout", "")]
    assert register(registry, "https://example.org/x").id == "S01"


def _legacy_lines() -> list[dict[str, object]]:
    """What a workspace made before the database holds in sources.jsonl."""
    first = SourceRecord(
        url="https://a.example/1", id="S01", final_url="https://a.example/one", task="E1", batch=1
    )
    second = SourceRecord(
        url="https://b.example/2", id="S02", content_sha256="hash-2", published="2024-01-01"
    )
    failed = SourceRecord.failure("https://c.example/3", "timeout", "too slow", task="E1", batch=2)
    return [
        first.to_dict(),
        {"alias": "https://mirror.example/1", "id": "S01"},
        {"use": "https://a.example/1", "id": "S01", "task": "E2", "batch": 3, "time": "2025-01-01T00:00:00Z"},
        failed.to_dict(),
        second.to_dict(),
        {"copy": "S01", "of": "S02"},
        {**first.to_dict(), "url": "https://a.example/again"},  # a second record of S01: never written
    ]


def test_an_older_workspace_registry_is_migrated_on_first_open(workspace: Workspace) -> None:
    text = "\n\n".join(ARTICLE)
    legacy = workspace.private / "sources.jsonl"
    lines = "".join(json.dumps(d) + "\n" for d in _legacy_lines()) + '{"url": "https://x.example/", "id": "S0'
    legacy.write_text(lines, encoding="utf-8")  # the last line was cut short by a killed process
    sketches = workspace.private / "sketches.jsonl"
    sketches.write_text(json.dumps({"id": "S02", **sketch(text).to_dict()}) + "\n", encoding="utf-8")

    def view(registry: SourceRegistry) -> object:
        alias = registry.lookup("https://mirror.example/1")
        return (
            [(r.id, r.status, r.copy_of) for r in registry.records()],
            alias.id if alias else None,
            [(u.source_id, u.task, u.batch, u.ok) for u in registry.uses("E1") + registry.uses("E2")],
            registry.lookup_content("hash-2") == registry.get("S02"),
        )

    expected = (
        [("S01", "archived", "S02"), ("", "failed", ""), ("S02", "archived", "")],
        "S01",
        [("S01", "E1", 1, True), ("", "E1", 2, False), ("S01", "E1", 1, True), ("S01", "E2", 3, True)],
        True,
    )
    assert view(SourceRegistry(workspace, read_only=True)) == expected  # `status`: read, not migrated
    assert not workspace.source_registry.exists()
    registry = SourceRegistry(workspace)
    assert view(registry) == expected and workspace.source_registry.is_file()
    assert legacy.read_text(encoding="utf-8") == lines  # kept as it was
    copy, new = registry.register(
        "https://d.example/4", "https://d.example/4", "hash-4",
        lambda sid: SourceRecord(url="https://d.example/4", id=sid, published="2024-06-01"),
        CopyProbe(f"{text}\n\n{SYNDICATION}", 0.85),
    )  # fmt: skip
    assert new and copy.id == "S03" and copy.copy_of == "S02"  # the migrated sketch is found
    assert view(SourceRegistry(workspace))[0][-1] == ("S03", "archived", "S02")  # from the file now


def test_a_renewed_source_of_an_older_workspace_still_answers_for_its_url(workspace: Workspace) -> None:
    first = SourceRecord(url="https://a.example/live", id="S01", fetched="2024-01-01T00:00:00Z")
    renewed = SourceRecord(
        url=first.url, id="S02", renews="S01", copy_of="S01", fetched="2025-01-01T00:00:00Z"
    )
    lines = [first.to_dict(), renewed.to_dict()]
    (workspace.private / "sources.jsonl").write_text(
        "".join(json.dumps(d) + "\n" for d in lines), encoding="utf-8"
    )
    registry = SourceRegistry(workspace)
    assert registry.lookup(first.url) == renewed
    assert [r.id for r in registry.history(first.url)] == ["S01", "S02"]


def test_a_registration_that_fails_leaves_nothing(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)

    def broken(source_id: str) -> SourceRecord:
        raise OSError("disk full")

    with pytest.raises(OSError):
        registry.register("https://example.org/x", "https://example.org/x", "sha-x", broken)
    assert registry.records() == [] and registry.lookup("https://example.org/x") is None
    assert register(registry, "https://example.org/x").id == "S01"  # no ID was used up


def test_a_source_archived_again_keeps_its_older_archive(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)
    old = register(registry, "https://example.org/live", content="v1")
    new, created = registry.renew(
        old,
        lambda current: True,
        lambda sid: SourceRecord(url=old.url, id=sid, final_url=old.url, content_sha256="v2"),
    )
    assert created and (new.id, new.renews, new.copy_of) == ("S02", "S01", "S01")
    assert registry.lookup(old.url) == new and registry.get("S01") == old  # the newest answers for the URL
    assert [r.id for r in registry.history(old.url)] == ["S01", "S02"]
    again, created = registry.renew(
        old, lambda current: current.id == "S01", lambda sid: SourceRecord(url="")
    )
    assert not created and again == new  # renewed meanwhile (by another process): nothing new
    assert [r.id for r in SourceRegistry(workspace).history(old.url)] == ["S01", "S02"]  # read back from disk


def test_record_round_trips_through_a_dict() -> None:
    record = SourceRecord(url="https://a.example/", id="S07", title="T", authority=0.7, fallback=True)
    assert SourceRecord.from_dict({**record.to_dict(), "from_a_newer_version": 1}) == record


WORKER = """
import sys
from pathlib import Path
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry
from deepresearch.core.workspace import Workspace
from deepresearch.sources.copies import CopyProbe, sketch

registry = SourceRegistry(Workspace(Path(sys.argv[1])))
worker = sys.argv[2]
for n in range(15):
    for url in (f"https://example.org/{worker}/{n}", f"https://example.org/shared/{n}"):
        record, _ = registry.register(url, url, "sha-" + url, lambda sid, url=url: SourceRecord(
            url=url, id=sid, final_url=url, content_sha256="sha-" + url))
        print(url, record.id)
"""


def test_processes_registering_at_once_never_share_or_duplicate_ids(workspace: Workspace) -> None:
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(workspace.root), f"w{n}"],
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        for n in range(4)
    ]
    outputs = [worker.communicate(timeout=60)[0] for worker in workers]
    assert all(worker.returncode == 0 for worker in workers)
    seen: dict[str, set[str]] = {}
    for line in "".join(outputs).splitlines():
        url, source_id = line.split()
        seen.setdefault(url, set()).add(source_id)
    assert all(len(ids) == 1 for ids in seen.values())  # every process got the same ID for a URL
    archived = SourceRegistry(workspace).archived()
    assert len(archived) == 4 * 15 + 15
    assert sorted(int(r.id[1:]) for r in archived) == list(range(1, 76))


def test_registry_lives_in_the_workspace(workspace: Workspace) -> None:
    register(SourceRegistry(workspace), "https://example.org/")
    assert workspace.source_registry.is_file()
    assert (workspace.locks / "sources.lock").is_file()  # where agents cannot see it
