"""The verifier's output: one verdict (supported | partial | unsupported, with a reason) per item."""

from __future__ import annotations

from pathlib import Path

from deepresearch.contracts.yamlfile import read_yaml_output
from deepresearch.evidence.support import Verdict
from deepresearch.state.model import Support

JUDGEMENTS = (Support.SUPPORTED, Support.PARTIAL, Support.UNSUPPORTED)


def parse_verdicts(path: Path, expected: list[str]) -> tuple[dict[str, Verdict] | None, list[str]]:
    """A verdict for every item ID in `expected`, or None and the problems."""
    data, _notes, problems = read_yaml_output(path)
    if data is None:
        return None, problems
    raw = data.get("verdicts")
    if not isinstance(raw, list):
        return None, ["verdicts: expected a list of {id, support, reason}"]
    verdicts: dict[str, Verdict] = {}
    allowed = ", ".join(s.value for s in JUDGEMENTS)
    for n, item in enumerate(raw, 1):
        if not isinstance(item, dict) or not str(item.get("id", "")).strip():
            problems.append(f"verdicts item {n}: expected a mapping with id, support and reason")
            continue
        item_id = str(item["id"]).strip()
        support = str(item.get("support", "")).strip().lower()
        if item_id not in expected:
            problems.append(f"verdicts item {n}: {item_id} is not one of the items to judge")
        elif support not in allowed.split(", "):
            problems.append(f"verdict for {item_id}: support must be one of {allowed}, got {support!r}")
        else:
            reason = " ".join(str(item.get("reason") or "").split())
            verdicts[item_id] = Verdict(Support(support), reason)
    missing = [i for i in expected if i not in verdicts]
    if missing:
        shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        problems.append(f"no verdict for {shown}: judge every item listed")
    return (None, problems) if problems else (verdicts, [])
