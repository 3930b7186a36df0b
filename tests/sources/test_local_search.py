"""`deepresearch search --local`: BM25 over the workspace's archives, positions, CJK, no budget."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from deepresearch.core.budget import Budget
from deepresearch.core.config import Config
from deepresearch.core.workspace import Workspace
from deepresearch.sources.archive import Archiver
from deepresearch.sources.localsearch import LocalIndex, local_search, match_expression
from tests.sources.books import EPUB_CHAPTERS, epub_bytes
from tests.sources.conftest import REPO, cli, make_config
from tests.sources.services import PAGE3, PAPER_PAGES, pdf_pages

JAPANESE = "太陽光発電の容量は2023年に24パーセント増加した。"


def fill(workspace: Workspace, folder: Path) -> None:
    """Archive a PDF, an EPUB, a Japanese note and two English notes into `workspace`."""
    folder.mkdir(exist_ok=True)
    (folder / "study.pdf").write_bytes(pdf_pages(PAPER_PAGES, "A study"))
    (folder / "lighthouses.epub").write_bytes(epub_bytes())
    (folder / "solar-ja.txt").write_text(f"日本の報告。\n\n{JAPANESE}\n", encoding="utf-8")
    (folder / "heat.md").write_text("# Heat pumps\n\nHeat pumps in cold winters keep a COP above two.\n")
    (folder / "winter.md").write_text("# Winter\n\nWinters were cold; nothing about pumps here.\n")
    names = ("study.pdf", "lighthouses.epub", "solar-ja.txt", "heat.md", "winter.md")
    config = make_config(chromium_path=str(folder / "no-chromium"))
    with Archiver(workspace, config, environ={}) as archiver:  # one by one: S01..S05 in this order
        records = [archiver.archive((folder / n).as_uri()) for n in names]
    assert all(r.ok for r in records), [r.message for r in records]


def test_local_search_finds_passages_with_their_positions_and_spends_no_search(
    tmp_path: Path, workspace: Workspace, cli_env: dict[str, str]
) -> None:
    fill(workspace, tmp_path / "docs")
    (workspace.root / "deepresearch.yaml").write_text("max_searches: 1\n")
    argv = cli(
        "search", "--local", "--json", "--workdir", str(workspace.root), "held-out winters forecast error"
    )
    result = subprocess.run(argv, cwd=REPO, env=cli_env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert hits[0]["id"] == "S01" and hits[0]["position"] == "p. 3" and PAGE3 in hits[0]["passage"]
    assert hits[0]["kind"] == "document" and hits[0]["archive"].startswith("assets/pdf/S01-")
    assert "5 archived sources (5 newly indexed); no web search spent" in result.stderr
    assert Budget(workspace, Config()).searches_used() == 0 and not workspace.search_log.exists()

    chapter = local_search(workspace, "Fresnel lenses").hits[0]
    assert chapter.id == "S02" and chapter.position == "ch. 2 (The Second Chapter)"
    assert EPUB_CHAPTERS[1][1] in chapter.passage


def test_cjk_text_is_found_without_spaces_and_ranking_prefers_all_words(
    tmp_path: Path, workspace: Workspace
) -> None:
    fill(workspace, tmp_path / "docs")
    japanese = local_search(workspace, "太陽光発電").hits
    assert [h.id for h in japanese] == ["S03"] and JAPANESE in japanese[0].passage
    assert local_search(workspace, "光発").hits[0].id == "S03"  # inside a word: CJK has no spaces
    ranked = local_search(workspace, "heat pumps winters", k=5).hits
    assert ranked[0].id == "S04"  # every word, in the title too
    assert "S05" in [h.id for h in ranked]  # fewer words: still listed, lower, to fill up to k


def test_index_catches_up_with_new_archives_and_survives_concurrent_searches(
    tmp_path: Path, workspace: Workspace
) -> None:
    fill(workspace, tmp_path / "docs")
    with ThreadPoolExecutor(4) as pool:  # four searches on a fresh index: one catches up, all answer
        outcomes = list(
            pool.map(lambda q: local_search(workspace, q), ["lighthouse", "COP", "forecast", "pumps"])
        )
    assert sum(o.indexed_now for o in outcomes) == 5 and all(o.hits for o in outcomes)
    extra = tmp_path / "late.md"
    extra.write_text("# Late note\n\nThe quarterly survey counted nineteen geothermal wells.\n")
    with Archiver(workspace, make_config(chromium_path=str(tmp_path / "none")), environ={}) as archiver:
        assert archiver.archive(extra.as_uri()).id == "S06"
    outcome = local_search(workspace, "geothermal wells")
    assert outcome.indexed_now == 1 and outcome.documents == 6 and outcome.hits[0].id == "S06"
    assert LocalIndex(workspace).sync() == 0


@pytest.mark.parametrize("query", ["NEAR(a b)", 'x" OR "', "title:secret", "a AND OR NOT", "*", "-"])
def test_queries_cannot_inject_fts_syntax(tmp_path: Path, workspace: Workspace, query: str) -> None:
    fill(workspace, tmp_path / "docs")
    outcome = local_search(workspace, query)  # no sqlite3.OperationalError
    assert isinstance(outcome.hits, list)


def test_match_expression_quotes_words_and_groups_cjk() -> None:
    assert match_expression("Heat pumps") == '"heat" AND "pumps"'
    assert match_expression('"cold winter" COP', any_word=True) == '"cold winter" OR "cop"'
    assert match_expression("太陽光 solar") == '"太 陽 光" AND "solar"'
    assert match_expression("  ") == ""
