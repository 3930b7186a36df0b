"""End to end with the fake agent: evidence that holds up — cited PDFs pass the archive check, numbers
missing from quotes and sentences the verifier finds unsupported go back once, copies count once."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from deepresearch.core.workspace import Workspace
from deepresearch.report.blocks import body_blocks, strip_generated_sections
from deepresearch.report.claims import cited_claims
from deepresearch.state.store import StateStore
from tests.evidence_site import EvidenceSite
from tests.helpers import PageServer, page_value, write_scenario, write_workspace_config
from tests.inprocess import run_in_process
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


def test_a_missing_number_and_an_unsupported_sentence_are_repaired(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    value = page_value("E1")
    first = {  # the page gives this year's value; the earlier one is invented
        "statement": f"The E1 index reached {value} points in 2025, up from {value - 7} points in 2024.",
        "sources": ["A"],
        "quote": f"In 2025 the E1 index reached {value} points",
        "confidence": "high",
    }
    scenario = {
        "page_base": pages.base_url,
        "executor": {"E1": {"facts_first": [first]}},
        "synthesizer": {"append_first": "Both indices are the highest ever recorded [S01][S02]."},
        "verifier": {"unsupported": ["highest ever"]},
    }
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "s.yaml", scenario))}
    proc = run_in_process(["-p", "How did the E1 and E2 indices develop?", "-o", str(work)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    logs = work / "logs" / "prompts"

    # The executor stated a number its quote lacks: its check sent it back once, naming the number.
    repair = (logs / "E1.verify-repair.md").read_text(encoding="utf-8")
    assert "ungrounded_number" in repair and f"{value - 7} points" in repair
    doc = StateStore(Workspace(work)).load()
    e1 = next(f for f in doc.facts if f.task == "E1")
    assert str(value - 7) not in e1.statement and e1.verified.value == "yes"
    assert {f.support.value for f in doc.facts} == {"supported"}  # the verifier judged the round's facts

    # The verifier judged one report sentence unsupported: it went back with the code checks, once.
    repair = (logs / "synthesizer.verify-repair.md").read_text(encoding="utf-8")
    assert "unsupported_claim" in repair and "highest ever" in repair
    assert "The cited evidence does not say 'highest ever'" in repair
    report = (work / "report.md").read_text(encoding="utf-8")
    assert "highest ever" not in report and "## Verification" not in report
    claims = len(list(cited_claims(body_blocks(strip_generated_sections(report)))))
    assert (
        report.rstrip().splitlines()[-1]
        == f"| Claims supported | {claims} of {claims} (100%) · 0 partial · 0 unsupported |"
    )
    html = (work / "report.html").read_text(encoding="utf-8")
    assert (
        html.count('class="claim claim-supported"') >= claims
        and 'class="claim claim-unsupported"' not in html
    )
    measures = json.loads((work / "knowledge.json").read_text(encoding="utf-8"))["measures"]
    assert measures["claims_checked"] == measures["claims_supported"] == claims
    assert measures["numbers_total"] == measures["numbers_grounded"] > 0
    check = run_cli(["check", str(work)], env, tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr


def test_an_unsupported_fact_leaves_the_closed_world(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    scenario = {"page_base": pages.base_url, "verifier": {"unsupported": ["E2 index"]}}
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "s.yaml", scenario))}
    proc = run_cli(["-p", "How did the E1 and E2 indices develop?", "-o", str(work)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    # task.md keeps the verdict and its reason.
    doc = StateStore(Workspace(work)).load()
    e2 = next(f for f in doc.facts if f.task == "E2")
    assert e2.support.value == "unsupported"
    assert e2.support_reason == "The cited evidence does not say 'E2 index'."
    # The synthesizer was not offered it, so the report does not state it, and the report checks.
    prompt = (work / "logs" / "prompts" / "synthesizer.md").read_text(encoding="utf-8")
    assert e2.statement not in prompt and "is left out" in prompt
    assert "E2 index" not in (work / "report.md").read_text(encoding="utf-8")
    check = run_cli(["check", str(work)], env, tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_syndicated_copy_is_archived_as_a_copy_and_counts_once(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work)
    with EvidenceSite() as site:
        # The copy (other host, other navigation, published a day later) is archived first.
        copy, original = site.url("/news.html", "localhost"), site.url("/news.html")
        e1 = {
            "sources": [
                {"id": "A", "url": copy, "type": "news", "archive": True},
                {"id": "B", "url": original, "type": "news", "archive": True},
            ],
            "facts": [
                {
                    "statement": "Offshore wind output rose by 12 percent in 2023.",
                    "sources": ["A", "B"],
                    "quote": "offshore wind output rose by 12 percent in 2023",
                    "confidence": "high",
                }
            ],
        }
        scenario = {"executor": {"E1": e1}, "page_base": pages.base_url}
        env = {**clean_env, "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "s.yaml", scenario))}
        proc = run_in_process(
            ["-p", "How much did offshore wind output grow?", "-o", str(work)], env, tmp_path
        )
    assert proc.returncode == 0, proc.stdout + proc.stderr

    doc = StateStore(Workspace(work)).load()
    by_url = {s.url: s for s in doc.sources}
    first, earliest = by_url[copy], by_url[original]
    assert first.id < earliest.id  # archived first, but published later: the copy
    assert first.copy_of == earliest.id and earliest.copy_of == ""
    fact = next(f for f in doc.facts if f.task == "E1")
    assert sorted(fact.sources) == sorted([first.id, earliest.id])
    assert doc.independent(fact.sources) == {earliest.id}

    report = (work / "report.md").read_text(encoding="utf-8")
    facts = len(doc.facts)  # every fact rests on one independent source, this one included
    assert f"| Single-source claims | {facts} of {facts} facts (100%) |" in report
    assert f"| Independent sources | {len(doc.sources) - 1} (1 copy counted once) |" in report
    knowledge = json.loads((work / "knowledge.json").read_text(encoding="utf-8"))
    assert knowledge["measures"]["copies_folded"] == 1
    assert knowledge["measures"]["independent_sources"] == len(doc.sources) - 1
    assert {"type": "copy_of", "from": first.id, "to": earliest.id} in knowledge["edges"]
    assert next(s for s in knowledge["sources"] if s["id"] == first.id)["copy_of"] == earliest.id
