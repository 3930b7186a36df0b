"""Mutation testing of the number check on a finished report: does it catch a changed number?

Each number that a sentence (or table row) of the report states and that the check grounds in the
facts cited there is changed in turn — multiplied by 0.7, 0.83, 1.17 and 1.5 (written with the same
precision and separators; a change that rounds back to the same number is skipped), and swapped
for its neighbour in the source: the next number of the same unit in the statement or quote of the
fact that states it (else the one before; written in the report's unit and precision; a number no
fact states, a derived one, has no neighbour) — and the number check is run on the changed report. A changed number is flagged
when the check reports it as `ungrounded_number` at its line. The untouched report is checked with
every rule first: anything it reports is a false alarm, or a real error of the report.

The workspace is only read (task.md, report.md, the archives): nothing is written.

Run: python bench/mutations.py WORKSPACE [WORKSPACE...] [--misses]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deepresearch.core.workspace import Workspace
from deepresearch.evidence.binding import Bound
from deepresearch.evidence.number_match import same_value
from deepresearch.report.blocks import body_blocks, strip_generated_sections
from deepresearch.report.check import check_report
from deepresearch.report.number_check import FactEvidence, Judged, judge_numbers
from deepresearch.report.violation import Violation
from deepresearch.state.model import TaskDoc
from deepresearch.state.store import StateStore

FACTORS = (0.7, 0.83, 1.17, 1.5)
KINDS = (*(f"×{f:g}" for f in FACTORS), "swap")
_DIGITS = re.compile(r"\d(?:[\d,.]*\d)?")


@dataclass(frozen=True)
class Mutation:
    """One changed number and whether the check flagged it."""

    line: int
    kind: str
    original: str
    changed: str
    flagged: bool


@dataclass
class Outcome:
    """What mutating one report found."""

    name: str
    numbers: int = 0  # numbers judged in sentences that cite something
    not_grounded: list[Judged] = field(default_factory=list)  # not grounded before any change
    mutations: list[Mutation] = field(default_factory=list)
    findings: list[Violation] = field(default_factory=list)  # on the untouched report

    def flagged(self, kind: str | None = None) -> tuple[int, int]:
        """(flagged, changed) for one kind of change, or all."""
        chosen = [m for m in self.mutations if kind is None or m.kind == kind]
        return sum(m.flagged for m in chosen), len(chosen)


def _decimals(digits: str) -> int:
    return len(digits.rsplit(".", 1)[1]) if "." in digits else 0


def _write(value: Decimal, like: str) -> str:
    """`value` written like `like`: its decimals and its thousands separators."""
    places = _decimals(like)
    text = f"{value:,.{places}f}" if "," in like else f"{value:.{places}f}"
    return text


def _plain(digits: str) -> Decimal:
    return Decimal(digits.replace(",", ""))


def _scaled(digits: str, factor: float) -> str | None:
    changed = _write(_plain(digits) * Decimal(str(factor)), digits)
    return changed if _plain(changed) not in (0, _plain(digits)) else None


def _value(bound: Bound) -> Decimal:
    """The number's value in its dimension's base unit; `51,900` is fifty-one thousand nine hundred
    (the reader also keeps 51.9 for a decimal comma)."""
    readings = bound.quantity.readings
    return (
        max(r.value for r in readings) if "," in bound.text and "." not in bound.text else readings[0].value
    )


def _alike(other: Bound, stated: Bound) -> bool:
    """Numbers of the same unit: its dimension, written with a scale word or a unit or neither
    (`1.1 billion` is not a count of points), and not the divisor of a rate (`per 100,000`)."""
    q, s = other.quantity, stated.quantity
    divisor = re.search(rf"\bper\s+{re.escape(other.text)}", other.clause, re.IGNORECASE)
    return q.dimension == s.dimension and q.plain == s.plain and not divisor


def _swap(judged: Judged, evidence: FactEvidence, digits: str) -> str | None:
    """The number's neighbour in the source that states it: the next number of its unit in the
    same statement or quote (else the one before), another value, written as the report writes the
    number (its scale: `64,000` for a source's `64` thousand; its precision). None for a number no
    fact states (a derived one)."""
    stated = judged.source
    claim = judged.bound.quantity
    if stated is None or _value(stated) == 0:
        return None
    text = next((t for t in evidence.of_fact_id(stated.origin).texts if stated in t), ())
    same = [b for b in text if b.quantity.claim and _alike(b, stated)]
    at = same.index(stated) if stated in same else -1
    scale = Decimal(_plain(digits)) / _value(stated)  # report digits per unit of the source's value
    for other in (*same[at + 1 :], *reversed(same[:at])):
        if same_value(claim, other.quantity, lends=True):
            continue
        written = _write(_value(other) * scale, digits)
        if _plain(written) not in (0, _plain(digits)):
            return written
    return None


_MONTH = re.compile(
    r"\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b|(?<=\d)-(?:hour|year|day)", re.IGNORECASE
)


def _locate(line: str, text: str, occurrence: int, others: set[str]) -> int | None:
    """Where the `occurrence`-th standalone `text` is in the line, counting neither the start of
    another number judged on the line (`2.9` of `2.9 GW`) nor a day of a date (`14 November`)."""
    found = [
        m.start()
        for m in re.finditer(rf"(?<![\d.,]){re.escape(text)}(?!\d)", line)
        if not any(o != text and o.startswith(text) and line.startswith(o, m.start()) for o in others)
        and not _MONTH.match(line, m.end())
    ]
    return found[occurrence] if occurrence < len(found) else None


def _flagged(
    report: list[str], number: int, at: int, old: str, new: str, doc: TaskDoc, evidence: FactEvidence
) -> bool:
    line = report[number - 1]
    report = [*report[: number - 1], line[:at] + new + line[at + len(old) :], *report[number:]]
    blocks = body_blocks("\n".join(report) + "\n")
    return any(
        j.line == number and not j.grounded and j.bound.text == new
        for j in judge_numbers(blocks, doc, evidence, lines={number})
    )


def mutate(root: Path) -> Outcome:
    """Check the untouched report, then every change of every grounded cited number."""
    doc = StateStore(Workspace(root)).load()
    body = strip_generated_sections((root / "report.md").read_text(encoding="utf-8"))
    outcome = Outcome(root.name, findings=check_report(body, doc, root))
    evidence = FactEvidence(doc)
    lines = body.splitlines()
    seen: Counter[tuple[int, str]] = Counter()
    everything = list(judge_numbers(body_blocks(body), doc, evidence))
    on_line: dict[int, set[str]] = {}
    for judged in everything:
        on_line.setdefault(judged.line, set()).add(judged.bound.text)
    for judged in everything:
        if not judged.cited:
            continue
        outcome.numbers += 1
        text = judged.bound.text
        at = _locate(lines[judged.line - 1], text, seen[(judged.line, text)], on_line[judged.line])
        seen[(judged.line, text)] += 1
        digits = _DIGITS.search(text)
        if not judged.grounded or at is None or digits is None:
            outcome.not_grounded.append(judged)
            continue
        changes = [(kind, _scaled(digits.group(), f)) for kind, f in zip(KINDS, FACTORS, strict=False)]
        changes.append(("swap", _swap(judged, evidence, digits.group())))
        for kind, changed in changes:
            if changed is None:
                continue
            new = text[: digits.start()] + changed + text[digits.end() :]
            flagged = _flagged(lines, judged.line, at, text, new, doc, evidence)
            outcome.mutations.append(Mutation(judged.line, kind, text, new, flagged))
    return outcome


def _percent(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.1f}%)" if whole else "0 of 0"


def report(outcome: Outcome, misses: bool) -> None:
    """Print the outcome as a plain table."""
    print(f"{outcome.name}: {outcome.numbers} numbers in sentences that cite a source")
    print(f"  untouched report: {len(outcome.findings)} finding{'s' * (len(outcome.findings) != 1)}")
    for violation in outcome.findings:
        print(f"    line {violation.line}: {violation.kind}: {violation.message}")
    for judged in outcome.not_grounded:
        print(f"    not mutated (not grounded): line {judged.line}: {judged.bound.text}")
    print(f"  {'change':<8} {'flagged':>24}")
    for kind in (*KINDS, None):
        print(f"  {kind or 'all':<8} {_percent(*outcome.flagged(kind)):>24}")
    for m in outcome.mutations:
        if misses and not m.flagged:
            print(f"    not flagged: line {m.line}: {m.original} → {m.changed} ({m.kind})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspaces", nargs="+", type=Path)
    parser.add_argument("--misses", action="store_true", help="list every change the check did not flag")
    args = parser.parse_args()
    for root in args.workspaces:
        report(mutate(root.resolve()), args.misses)


if __name__ == "__main__":
    main()
