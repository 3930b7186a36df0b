"""The source registry: one allocator of IDs, dedup by URL and content, safe across processes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from deepresearch.core.workspace import Workspace
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry, task_md_source_ids
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


def test_a_line_cut_short_by_a_killed_process_is_skipped(workspace: Workspace) -> None:
    registry = SourceRegistry(workspace)
    register(registry, "https://example.org/1")
    with open(registry.path, "a", encoding="utf-8") as handle:
        handle.write('{"url": "https://example.org/half", "id": "S0')
    assert register(registry, "https://example.org/2").id == "S02"
    lines = registry.path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["id"] == "S02"


def test_record_round_trips_through_a_dict() -> None:
    record = SourceRecord(url="https://a.example/", id="S07", title="T", authority=0.7, fallback=True)
    assert SourceRecord.from_dict({**record.to_dict(), "from_a_newer_version": 1}) == record


WORKER = """
import sys
from pathlib import Path
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry
from deepresearch.core.workspace import Workspace

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
