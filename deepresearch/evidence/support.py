"""The verifier's verdicts on report sentences, kept in `.deepresearch/support.json`.

The verifier role judges each cited report sentence against the facts it cites (supported, partial
or unsupported, with a one-line reason). Its verdicts are stored by the sentence's key — its text
with its citations, whitespace collapsed — so `deepresearch check`, the References statistics and
report.html read them without an agent, and a sentence that changes is simply not checked any more.
A note says why support was not checked (the verifier failed, was skipped for the budget, or is
switched off) when it was not.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from deepresearch.core.files import atomic_write
from deepresearch.core.workspace import Workspace
from deepresearch.state.model import Support


def claim_key(sentence: str) -> str:
    """The identity of a sentence with its citations (whitespace does not matter)."""
    return hashlib.sha256(" ".join(sentence.split()).encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class Verdict:
    """The verifier's judgement of one claim."""

    support: Support
    reason: str = ""


@dataclass
class SupportRecord:
    """Every verdict so far, and why the last judging left claims unchecked ("" when it did not)."""

    verdicts: dict[str, Verdict]
    note: str = ""


class SupportStore:
    """Reads and writes the verdicts of one workspace (`<root>/.deepresearch/support.json`)."""

    def __init__(self, workspace_root: Path) -> None:
        self.path = Workspace(workspace_root).support_verdicts

    def load(self) -> SupportRecord:
        """The stored verdicts (none when the file is absent or unreadable: nothing was checked)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return SupportRecord({})
        verdicts: dict[str, Verdict] = {}
        for key, item in (data.get("verdicts") or {}).items() if isinstance(data, dict) else ():
            try:
                verdicts[str(key)] = Verdict(Support(item["support"]), str(item.get("reason", "")))
            except (KeyError, TypeError, ValueError):
                continue
        return SupportRecord(verdicts, str(data.get("note", "")) if isinstance(data, dict) else "")

    def save(self, verdicts: dict[str, Verdict], note: str = "") -> None:
        """Add `verdicts` to the stored ones and set the note (atomically)."""
        record = self.load()
        record.verdicts.update(verdicts)
        data = {
            "verdicts": {
                k: {"support": v.support.value, "reason": v.reason} for k, v in record.verdicts.items()
            },
            "note": note,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
