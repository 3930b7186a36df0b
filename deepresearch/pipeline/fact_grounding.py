"""Is a fact verified? Its quote is in an archived source it cites, and every number its statement
gives is stated by that quote for the same thing, or follows from the quote's numbers where the
statement says so (evidence/judge.py: the report's rule), or is written in the archived text around
the quote (`sources.quotes.PASSAGE_CHARS`, the archive's header left out). A found quote whose
statement adds a number is `partial`.

The executor's code check runs the same rule on its file before the findings are merged, and checks
that no statement names who published it when its quote does not (pipeline/statements.py): those
facts go back to the executor once, each named with its line (the step's one repair).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from deepresearch.contracts.execute import ExecutorOutput
from deepresearch.core.urls import normalize_url
from deepresearch.core.workspace import Workspace
from deepresearch.evidence.judge import missing_numbers
from deepresearch.evidence.quantities import Quantity
from deepresearch.pipeline.checks import CheckResult
from deepresearch.pipeline.statements import attribution
from deepresearch.report.check import Violation
from deepresearch.sources.api import passage_for, verify_quote_for
from deepresearch.sources.record import SourceRecord
from deepresearch.sources.registry import SourceRegistry
from deepresearch.state.model import Fact, Source, Verified

GLOBAL_ID = re.compile(r"^S\d+$")
_STATEMENT_LINE = re.compile(r"^\s*(?:-\s*)?statement\s*:")


@dataclass(frozen=True)
class FactGrounding:
    """Whether a fact is verified, and the numbers of its statement that its evidence lacks."""

    verified: Verified
    missing: list[Quantity] = field(default_factory=list)

    @property
    def missing_text(self) -> str:
        """The missing numbers as written: "14 GW, 4 GW"."""
        return ", ".join(q.text for q in self.missing)


def ground_fact(workspace: Workspace, fact: Fact, records: list[SourceRecord]) -> FactGrounding:
    """The fact against the archived records of the sources it cites (rule in the module docstring)."""
    if not records:
        return FactGrounding(Verified.UNCHECKED)
    found = [record for record in records if verify_quote_for(workspace, record, fact.quote)]
    if not found:
        return FactGrounding(Verified.NO)
    missing = missing_numbers(fact.statement, [fact.quote])
    if missing:  # the numbers may be in the sentence around the quote: found there, not derived
        passages = [p for record in found if (p := passage_for(workspace, record, fact.quote))]
        missing = missing_numbers(fact.statement, [fact.quote], passages) if passages else missing
    return FactGrounding(Verified.PARTIAL if missing else Verified.YES, missing)


def registered(registry: SourceRegistry, source: Source) -> SourceRecord | None:
    """The registry's record for an executor's source cited by its archive ID, when the ID and the
    URL agree (an executor may put a wrong ID on a URL: then the URL is trusted, not the ID)."""
    record = registry.get(source.id) if GLOBAL_ID.match(source.id) else None
    if record is None:
        return None
    wanted = normalize_url(source.url)
    return record if wanted in (normalize_url(record.url), normalize_url(record.final_url or "")) else None


def _statement_lines(path: Path) -> list[int]:
    """The line of each fact's `statement:` in the executor's file, in order."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    return [n for n, line in enumerate(lines, 1) if _STATEMENT_LINE.match(line)]


def findings_check(workspace: Workspace, output_file: Path) -> Callable[[ExecutorOutput], CheckResult]:
    """The executor's code check: each fact whose quote is found in an archived source but whose
    statement gives a number that neither the quote nor the text around it states (or derives where
    the statement says so), and each statement that names who published it when its quote does
    not (pipeline/statements.py)."""
    registry = SourceRegistry(workspace)

    def check(output: ExecutorOutput) -> CheckResult:
        records = {s.id: r for s in output.sources if (r := registered(registry, s)) is not None}
        lines = _statement_lines(output_file)
        found: list[Violation] = []
        for n, fact in enumerate(output.facts, 1):
            line = lines[n - 1] if n <= len(lines) else 1
            named = attribution(fact.statement, fact.quote)
            if named:
                found.append(Violation(line, "publisher_in_statement", _named_message(n, named)))
            cited = [records[s] for s in fact.sources if s in records]
            grounding = ground_fact(workspace, fact, cited)
            if grounding.verified is Verified.PARTIAL:
                found.append(Violation(line, "ungrounded_number", _message(n, fact, grounding)))
        return CheckResult(found)

    return check


def _named_message(n: int, named: str) -> str:
    return (
        f'facts item {n}: the statement names who published it ("{named}"), which its quote does not '
        "say; who published a fact belongs to its source (title and URL), not to the statement: state "
        "only what the quote states."
    )


def _message(n: int, fact: Fact, grounding: FactGrounding) -> str:
    shown = fact.statement if len(fact.statement) <= 80 else fact.statement[:77] + "..."
    one = len(grounding.missing) == 1
    return (
        f'facts item {n} ("{shown}") states {grounding.missing_text}, which {"is" if one else "are"} '
        f"not in its quote nor in the archived text around it ({', '.join(fact.sources)}); quote the "
        f"passage that states {'it' if one else 'them'}, or remove {'it' if one else 'them'} from "
        "the statement."
    )
