"""The best draft there is when the synthesizer left no usable report: a run that spent anything
ends with a report.

- the synthesizer's own output, when it wrote one that cites sources (given a title if it lacks
  one): the contract refused it, but it is the synthesizer's writing;
- else the research's verified facts, by outline section, each citing its sources: code writes
  nothing a fact does not state, so the report's checks hold for it as for any draft.
"""

from __future__ import annotations

import re
from pathlib import Path

from deepresearch.pipeline.novelty import holds
from deepresearch.state.model import Fact, TaskDoc

_CITATION = re.compile(r"\[S\d+\]")


def own_draft(output: Path, title: str) -> str | None:
    """The synthesizer's output when it cites anything (with `# title` added if it has no title)."""
    if not output.is_file():
        return None
    text = output.read_text(encoding="utf-8", errors="replace").strip()
    if not _CITATION.search(text):
        return None
    return (text if text.startswith("# ") else f"# {title}\n\n{text}") + "\n"


def _cited(fact: Fact) -> str:
    statement = fact.statement.strip().rstrip(".")
    return f"- {statement}. {''.join(f'[{s}]' for s in fact.sources)}"


def facts_digest(doc: TaskDoc) -> str:
    """The verified facts under the outline's sections (the rest under "Other findings"); a fact
    judged unsupported by its quote has left the closed world."""
    facts = [f for f in doc.facts if holds(f) and f.sources]
    lines = [f"# {doc.front.question or 'Research findings'}", ""]
    placed: set[str] = set()
    for section in doc.outline:
        mine = [
            f for f in facts if f.id not in placed and set(doc.fact_dimensions(f)) & set(section.dimensions)
        ]
        if mine:
            lines += [f"## {section.section}", "", *map(_cited, mine), ""]
            placed.update(f.id for f in mine)
    rest = [f for f in facts if f.id not in placed]
    if rest:
        lines += ["## Other findings", "", *map(_cited, rest), ""]
    if not facts:  # (the notice at the top says what this report is)
        lines += ["No fact of this research was verified against its archived source.", ""]
    return "\n".join(lines).rstrip() + "\n"


def best_draft(output: Path, doc: TaskDoc) -> tuple[str, str]:
    """(the draft, what it is) when the synthesizer produced no usable report."""
    own = own_draft(output, doc.front.question or "Research report")
    if own is not None:
        return own, "this is the synthesizer's draft, which did not follow the report format"
    return facts_digest(doc), "this report lists the research's verified facts, by section, as found"
