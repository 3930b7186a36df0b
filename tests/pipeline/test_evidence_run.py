"""End to end with the fake agent: evidence that holds up — cited PDFs pass the archive check."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from deepresearch.core.workspace import Workspace
from deepresearch.state.store import StateStore
from tests.evidence_site import EvidenceSite
from tests.helpers import PageServer, write_scenario, write_workspace_config
from tests.pipeline.test_end_to_end import run_cli


def test_a_report_citing_a_pdf_passes_the_archive_check(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    with EvidenceSite() as site:
        e1 = {
            "sources": [{"id": "A", "url": site.url("/strategy.pdf"), "type": "official", "archive": True}],
            "facts": [
                {
                    "statement": "The national strategy targets 10 GW of offshore wind capacity by 2030.",
                    "sources": ["A"],
                    "quote": "The strategy targets 10 GW of offshore wind capacity by 2030.",
                    "confidence": "high",
                }
            ],
        }
        scenario = {"executor": {"E1": e1}, "page_base": pages.base_url}
        env = {**clean_env, "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "s.yaml", scenario))}
        proc = run_cli(["-p", "What does the offshore wind strategy target?", "-o", str(work)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    doc = StateStore(Workspace(work)).load()
    pdf = next(s for s in doc.sources if s.url.endswith("/strategy.pdf"))
    assert pdf.archive.startswith("assets/pdf/") and pdf.archive.endswith(".md")
    assert hashlib.sha256((work / pdf.archive).read_bytes()).hexdigest() == pdf.sha256
    assert f"[{pdf.id}]" in (work / "report.md").read_text(encoding="utf-8")
    check = run_cli(["check", "--json", str(work)], env, tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert json.loads(check.stdout)["violations"] == []
