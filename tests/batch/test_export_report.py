"""`deepresearch export` (bench, jsonl, csv) and `deepresearch report` on a finished batch."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from deepresearch.batch.export import MEASURE_COLUMNS, bench_article
from deepresearch.core.workspace import Workspace
from deepresearch.state.model import FrontMatter, Source, TaskDoc
from deepresearch.state.store import StateStore
from tests.batch.conftest import QUESTIONS, FinishedBatch, base_env

BENCH_KEYS = {"id", "prompt", "article"}  # DeepResearch Bench: one {id, prompt, article} per line
MARKER = re.compile(r"\[(\d+)\]")
REFERENCE = re.compile(r"^\[(\d+)\] (.+)\. (\S+)$")


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deepresearch", *args], cwd=cwd, env=base_env(cwd), capture_output=True,
        text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def copy_of(batch: FinishedBatch, target: Path) -> Path:
    """A copy of the finished batch that a test may change."""
    return Path(shutil.copytree(batch.folder, target / "batch", symlinks=True))


def archived_url(workdir: Path, source: Source) -> str:
    """The URL recorded in the header of the source's archived text."""
    header = (workdir / source.archive).read_text(encoding="utf-8").split("---", 1)[0]
    return next(line[len("- URL: ") :] for line in header.splitlines() if line.startswith("- URL: "))


def test_bench_export_has_the_benchmark_layout_and_references_resolve_to_archives(
    six_jobs: FinishedBatch,
) -> None:
    result = cli("export", str(six_jobs.folder), "--format", "bench", cwd=six_jobs.folder.parent)
    assert result.returncode == 0, result.stderr
    assert "wrote 6 row(s)" in result.stdout
    lines = (six_jobs.folder / "export-bench.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6
    for n, line in enumerate(lines, 1):
        item = json.loads(line)
        assert set(item) == BENCH_KEYS and item["id"] == f"q{n}" and item["prompt"] == QUESTIONS[n - 1]
        article = item["article"]
        assert isinstance(article, str) and not re.search(r"\[S\d+", article)
        body, refs = article.split("\n## References\n\n")
        assert "## References" not in body and "Citation statistics" not in article
        used = [int(m) for m in MARKER.findall(body)]
        assert used and sorted(set(used)) == list(range(1, max(used) + 1))
        assert [m for i, m in enumerate(used) if m not in used[:i]] == sorted(
            set(used)
        )  # first-citation order
        workdir = six_jobs.folder / f"q{n}"
        doc = StateStore(Workspace(workdir)).load()
        entries = [REFERENCE.match(r) for r in refs.strip().splitlines()]
        assert all(entries) and [int(e.group(1)) for e in entries if e] == sorted(set(used))
        report = (workdir / "report.md").read_text(encoding="utf-8")
        first_cited = list(dict.fromkeys(re.findall(r"\[(S\d+)\]", report.split("## References")[0])))
        for entry, source_id in zip(entries, first_cited, strict=True):
            assert entry is not None
            source = doc.source(source_id)
            assert source is not None and entry.group(3) == source.url and entry.group(2) == source.title
            assert (workdir / source.archive).is_file() and archived_url(workdir, source) == source.url


def test_bench_article_numbers_groups_in_first_citation_order_and_leaves_code_alone() -> None:
    doc = TaskDoc(FrontMatter(id="r", question="q"))
    doc.sources = [Source(f"S0{n}", f"Title {n}", f"https://example.org/{n}") for n in (1, 2, 3)]
    report = (
        "# R\n\nBeta first [S02]. Then both [S01][S03]. Again [S02, S01]. Unknown [S09].\n\n"
        "```\nliteral [S01]\n```\n\n## References\n\n1. **[S01]** old list\n"
    )
    article = bench_article(report, doc)
    assert article.startswith(
        "# R\n\nBeta first [1]. Then both [2][3]. Again [1][2]. Unknown .\n\n```\nliteral [S01]\n```"
    )
    assert article.endswith(
        "## References\n\n[1] Title 2. https://example.org/2\n[2] Title 1. https://example.org/1\n"
        "[3] Title 3. https://example.org/3\n"
    )
    assert "old list" not in article


def test_measures_export_reads_knowledge_measures_when_present(
    six_jobs: FinishedBatch, tmp_path: Path
) -> None:
    folder = copy_of(six_jobs, tmp_path)
    knowledge = folder / "q2" / "knowledge.json"
    data = json.loads(knowledge.read_text(encoding="utf-8"))
    data["measures"] = {
        "facts_total": 9, "facts_verified": 8, "claims_checked": 12, "claims_supported": 11, "numbers_total": 5,
        "numbers_grounded": 4, "sources": 7, "independent_sources": 6, "copies_folded": 1,
    }  # fmt: skip
    knowledge.write_text(json.dumps(data), encoding="utf-8")
    assert cli("export", str(folder), "--format", "csv", cwd=tmp_path).returncode == 0
    rows = list(csv.DictReader((folder / "export-measures.csv").open(encoding="utf-8")))
    assert list(rows[0]) == list(MEASURE_COLUMNS) and [r["id"] for r in rows] == [
        f"q{n}" for n in range(1, 7)
    ]
    plain, measured = rows[0], rows[1]
    assert (plain["facts_total"], plain["facts_verified"], plain["sources"]) == (
        "2",
        "2",
        "2",
    )  # from task.md
    assert (plain["independent_sources"], plain["copies_folded"]) == ("2", "0")  # copy_of in task.md
    assert plain["claims_checked"] == plain["numbers_total"] == ""  # nothing records them: left empty
    assert (measured["claims_supported"], measured["copies_folded"], measured["numbers_grounded"]) == (
        "11",
        "1",
        "4",
    )
    for row in rows:
        assert row["status"] == "completed" and row["rounds"] == "1" and row["agent_calls"] == "6"
        assert row["input_tokens"] == "6000" and row["cost_usd"] == "0.06" and float(row["minutes"]) > 0
        assert row["termination_reason"] and row["verification"] == "passed"
    result = cli("export", str(folder), "--format", "jsonl", "--output", "-", cwd=tmp_path)
    items = [json.loads(line) for line in result.stdout.splitlines()]
    assert (
        items[1]["claims_checked"] == 12
        and items[0]["claims_checked"] is None
        and items[0]["scores"] == [8.0]
    )


def test_batch_report_writes_markdown_html_and_plots(six_jobs: FinishedBatch, tmp_path: Path) -> None:
    folder = copy_of(six_jobs, tmp_path)
    result = cli("report", str(folder), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "(4 plots)" in result.stdout
    text = (folder / "batch-report.md").read_text(encoding="utf-8")
    assert "6 jobs, 6 completed · 36 agent calls · $0.3600" in text
    assert text.count("| completed | 1 | 8 | 2/2 | - | 2 | 6 | $0.0600 |") == 6
    for name in ("cost", "minutes", "scores", "claims"):
        assert f"](batch-report/{name}.png)" in text
        assert (folder / "batch-report" / f"{name}.png").read_bytes().startswith(b"\x89PNG")
        assert (folder / "batch-report" / f"{name}.svg").is_file()
    assert "line 4: not valid JSON" in text
    page = (folder / "batch-report.html").read_text(encoding="utf-8")
    assert '<img src="batch-report/cost.png"' in page and "<table>" in page


def test_export_and_report_need_a_batch_folder(tmp_path: Path) -> None:
    for args in (("export", str(tmp_path)), ("report", str(tmp_path))):
        result = cli(*args, cwd=tmp_path)
        assert result.returncode == 2 and "no batch in" in result.stderr
    assert cli("export", str(tmp_path), "--format", "xml", cwd=tmp_path).returncode == 2
