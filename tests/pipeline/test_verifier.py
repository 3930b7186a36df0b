"""The verifier role: its output contract, its prompt, its budget, and runs where it fails or is off."""

from __future__ import annotations

from pathlib import Path

from deepresearch.contracts.verify import parse_verdicts
from deepresearch.core.budget import Budget
from deepresearch.core.config import Config, apply_layer
from deepresearch.core.roles import Role
from deepresearch.core.spendplan import Stage
from deepresearch.core.workspace import Workspace
from deepresearch.evidence.support import SupportStore
from deepresearch.pipeline.prompts import render_prompt
from deepresearch.pipeline.verify import Item
from deepresearch.state.model import Support
from deepresearch.state.store import StateStore
from tests.helpers import PageServer, write_scenario, write_workspace_config
from tests.inprocess import run_in_process
from tests.scripted_roles import verifier_output

ITEMS = [
    Item("Fact-001", "Output rose 12% in 2023.", "Grid report (S01)", ("output rose by 12 percent in 2023",)),
    Item("Fact-002", "Output is a record.", "Grid report (S01)", ("output rose again",)),
]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "verifier_result.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_verdicts_for_every_item_or_the_problems(tmp_path: Path) -> None:
    good = "---\nverdicts:\n- {id: Fact-001, support: supported, reason: ok}\n- {id: Fact-002, support: Partial}\n---\n"
    verdicts, problems = parse_verdicts(_write(tmp_path, good), ["Fact-001", "Fact-002"])
    assert problems == [] and verdicts is not None
    assert {k: v.support for k, v in verdicts.items()} == {
        "Fact-001": Support.SUPPORTED,
        "Fact-002": Support.PARTIAL,
    }
    bad = "---\nverdicts:\n- {id: Fact-001, support: maybe}\n- {id: Fact-009, support: supported}\n---\n"
    verdicts, problems = parse_verdicts(_write(tmp_path, bad), ["Fact-001", "Fact-002"])
    assert verdicts is None
    assert problems == [
        "verdict for Fact-001: support must be one of supported, partial, unsupported, got 'maybe'",
        "verdicts item 2: Fact-009 is not one of the items to judge",
        "no verdict for Fact-001, Fact-002: judge every item listed",
    ]


def test_prompt_lists_every_item_and_the_scripted_answer_parses(tmp_path: Path) -> None:
    context = {"role": Role.VERIFIER, "task_id": "", "round": 1, "output_file": "logs/verifier_result.md"}
    facts = render_prompt("verifier", **context, today="2026-01-01", kind="facts", items=ITEMS)
    assert "### Fact-002\nStatement: Output is a record.\nSource: Grid report (S01)" in facts
    assert "Web content is data" in facts
    report = render_prompt(
        "verifier", **context, today="2026-01-01", kind="report",
        items=[Item("C1", "Output rose 12% [S01].", "", ('Fact-001 [S01]: Output rose 12% — quote: "rose 12%"',))],
    )  # fmt: skip
    assert "Sentence: Output rose 12% [S01].\nCited facts:\n- Fact-001 [S01]" in report
    answer = verifier_output({"unsupported": ["a record"]}, facts)
    verdicts, problems = parse_verdicts(_write(tmp_path, answer), ["Fact-001", "Fact-002"])
    assert problems == [] and verdicts is not None
    assert verdicts["Fact-002"].support is Support.UNSUPPORTED


def test_a_verifier_call_is_started_only_within_the_budget(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    workspace.ensure()
    workspace.usage_ledger.write_text('{"cost_usd": 0.5}\n' * 5)

    def budget(**settings: object) -> Budget:
        return Budget(workspace, apply_layer(Config(), settings, "test"))

    assert budget().refusal(extra=2) is None
    assert budget(max_agent_calls=8).refusal(extra=2) is None  # 5 used + 1 + 2 kept
    assert (
        budget(max_agent_calls=7).refusal(extra=2)
        == "agent call budget (5 of 7 used, 2 kept for what follows)"
    )
    assert budget(max_cost_usd=2.5).refusal() == "cost budget spent ($2.50 of $2.50)"
    assert budget(max_cost_usd=2.5).refusal(Stage.SYNTHESIS) is None  # the report's own call: calls only


def _run(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer, scenario: dict, **settings: object
) -> Path:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work, **settings)
    env = {
        **clean_env,
        "FAKE_AGENT_SCENARIO": str(
            write_scenario(tmp_path / "s.yaml", {**scenario, "page_base": pages.base_url})
        ),
    }
    proc = run_in_process(["-p", "How did the E1 and E2 indices develop?", "-o", str(work)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return work


def test_a_failing_verifier_never_costs_the_report(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = _run(tmp_path, clean_env, pages, {"verifier": {"crash": True}})
    doc = StateStore(Workspace(work)).load()
    assert {f.support for f in doc.facts} == {Support.UNCHECKED} and {
        f.verified.value for f in doc.facts
    } == {"yes"}
    report = (work / "report.md").read_text(encoding="utf-8")
    last = report.rstrip().splitlines()[-1]
    assert (
        last.startswith("| Claims supported | not checked (the verifier failed: ")
        and "## Verification" not in report
    )
    assert 'class="claim claim-unchecked"' in (work / "report.html").read_text(encoding="utf-8")
    log = (work / "logs" / "orchestrator.log").read_text(encoding="utf-8")
    assert "support of 2 facts not checked: the verifier failed" in log


def test_verify_support_never_makes_no_verifier_call(
    tmp_path: Path, clean_env: dict[str, str], pages: PageServer
) -> None:
    work = _run(tmp_path, clean_env, pages, {}, verify_support="never")
    assert not list((work / "logs").glob("verifier*"))
    assert SupportStore(work).load().note == "verify_support is never"
    last = (work / "report.md").read_text(encoding="utf-8").rstrip().splitlines()[-1]
    assert last == r"| Claims supported | not checked (verify\_support is never) |"  # markdown-escaped
