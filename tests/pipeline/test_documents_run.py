"""The person's own documents in a run: archived before planning, listed as `provided`, found by an
executor with `deepresearch search --local`, cited and marked in the report (real command, fake agent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deepresearch.core.budget import Budget
from deepresearch.core.config import Config
from deepresearch.core.errors import ConfigError, ExitCode
from deepresearch.core.workspace import Workspace
from deepresearch.pipeline.documents import expand_documents
from deepresearch.state.model import Verified
from deepresearch.state.store import StateStore
from tests.helpers import PageServer, write_scenario, write_workspace_config
from tests.pipeline.test_end_to_end import run_cli
from tests.sources.books import DOCX_CHAPTERS, epub_bytes, write_docx
from tests.sources.services import PAPER_PAGES, pdf_pages


def five_documents(folder: Path) -> None:
    folder.mkdir()
    (folder / "study.pdf").write_bytes(pdf_pages(PAPER_PAGES, "A seasonal study"))
    (folder / "lighthouses.epub").write_bytes(epub_bytes())
    write_docx(folder / "field-notes.docx")
    (folder / "memo.md").write_text("# Board memo\n\nThe board approved the retrofit budget in March.\n")
    (folder / "readme.txt").write_text("Notes collected for the heat-pump question.\n")


def test_documents_are_archived_before_planning_searched_and_cited_as_provided(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    folder = tmp_path / "request"  # input.md and its docs/ live here; the command runs from tmp_path
    folder.mkdir()
    five_documents(folder / "docs")
    (folder / "docs" / "photo.png").write_bytes(b"\x89PNG not a document")
    request = folder / "input.md"
    request.write_text("---\ndocuments: [./docs/]\n---\nHow do heat pumps do in cold homes?\n")
    scenario = write_scenario(
        tmp_path / "scenario.yaml",
        {"executor": {"E1": {"local": "floor heating seasonal COP"}}, "page_base": pages.base_url},
    )
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(scenario)}
    proc = run_cli(["-f", str(request), "-o", str(work)], env, tmp_path)
    assert proc.returncode == ExitCode.OK, proc.stdout + proc.stderr

    doc = StateStore(Workspace(work)).load()
    provided = [s for s in doc.sources if s.type == "provided"]
    assert [s.id for s in provided] == ["S01", "S02", "S03", "S04", "S05"]
    assert {s.authority for s in provided} == {0.8} and all(s.url.startswith("file://") for s in provided)
    assert {Path(s.archive).parts[1] for s in provided} == {"pdf", "ebook"}

    events = [json.loads(line) for line in (work / "logs" / "events.jsonl").read_text().splitlines()]
    kinds = [(e["event"], e.get("phase") or e.get("label")) for e in events]
    documents_done = kinds.index(("phase_finished", "documents"))
    assert documents_done < kinds.index(("agent_started", "planner"))
    assert "5 of 5 archived (S01, S02, S03, S04, S05)" in events[documents_done]["detail"]
    assert any("left out 1 files of other types (photo.png)" in e.get("message", "") for e in events)
    assert "S05 A seasonal study" in (work / "logs" / "prompts" / "planner.md").read_text()
    executor_prompt = (work / "logs" / "prompts" / "E1.md").read_text()
    assert "- S01: Field notes on heat pumps" in executor_prompt
    for route in (
        "`arXiv:2401.01234`",
        "`doi:10.xxxx/...`",
        "YouTube URL",
        'search --local "query"',
        "EPUB or DOCX URL",
    ):
        assert route in executor_prompt, route
    # during research the tool service refuses local paths, so the prompt must not offer them
    assert "archive a local path" not in executor_prompt

    notes = next(s for s in provided if s.title == "Field notes on heat pumps")
    cited = [f for f in doc.facts if notes.id in f.sources]
    assert cited and cited[0].quote == DOCX_CHAPTERS[1][1] and cited[0].verified is Verified.YES
    report = (work / "report.md").read_text()
    entry = next(line for line in report.splitlines() if f"**[{notes.id}]**" in line)
    assert "provided document" in entry and "quoted at ch. 2 (Findings)" in entry
    assert "## Verification" not in report
    assert Budget(Workspace(work), Config()).searches_used() == 0  # the local search spent nothing


def test_a_documents_entry_that_names_nothing_stops_the_run_before_planning(
    tmp_path: Path, clean_env: dict[str, str]
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    proc = run_cli(
        ["-p", "Question?", "-o", str(work), "--documents", "missing-folder"], {**clean_env}, tmp_path
    )
    assert proc.returncode == ExitCode.CONFIG, proc.stdout + proc.stderr
    assert (
        "documents" in proc.stderr
        and "missing-folder" in proc.stderr
        and "no such file or folder" in proc.stderr
    )
    assert not (work / "logs" / "prompts" / "planner.md").exists()
    assert [p.name for p in work.iterdir()] == ["deepresearch.yaml"]  # checked before anything is created


def test_expand_documents_files_folders_and_globs(tmp_path: Path) -> None:
    five_documents(tmp_path / "docs")
    hidden = tmp_path / "docs" / ".private"
    hidden.mkdir()
    (hidden / "secret.md").write_text("no")
    expanded = expand_documents(["docs/*.md", "docs", str(tmp_path / "docs" / "readme.txt")], tmp_path)
    names = [p.name for p in expanded.files]
    assert names == ["memo.md", "field-notes.docx", "lighthouses.epub", "readme.txt", "study.pdf"]
    with pytest.raises(ConfigError, match="matches no file"):
        expand_documents(["docs/*.odt"], tmp_path)
