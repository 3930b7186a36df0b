"""References for specialist sources: authors and venue, `provided`, `abstract only`, and links to
the page (`…pdf#page=3`) or time (`&t=65s`) where a cited fact's quote was found."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.core.config import SOURCE_SERVICES
from deepresearch.core.workspace import Workspace
from deepresearch.report.finalize import verify_report
from deepresearch.report.html import render_html
from deepresearch.sources.api import record_to_source, verify_quote_for
from deepresearch.sources.archive import Archiver
from deepresearch.sources.record import SourceRecord
from deepresearch.state.model import Fact, FrontMatter, TaskDoc, Verified
from tests.sources.conftest import make_config
from tests.sources.services import ABSTRACT, ARXIV_ID, CAPTIONS, CLOSED_DOI, PAGE3, VIDEO_ID, Services

MEMO = "The board approved a budget of 4.2 million euros for the retrofit programme."


@pytest.fixture(scope="module")
def services() -> Iterator[Services]:
    server = Services().start()
    yield server
    server.stop()


def archived(services: Services, tmp_path: Path) -> tuple[Workspace, list[SourceRecord]]:
    """A paper with its PDF, an abstract-only paper, a video transcript and a provided memo."""
    workspace = Workspace(tmp_path / "run")
    workspace.ensure()
    config = make_config(
        source_base_urls=dict.fromkeys(SOURCE_SERVICES, services.base), chromium_path=str(tmp_path / "none")
    )
    memo = tmp_path / "memo.md"
    memo.write_text(f"# Board memo\n\n{MEMO}\n")
    with Archiver(workspace, config, environ={}) as archiver:
        records = [
            archiver.archive(t)
            for t in (f"arXiv:{ARXIV_ID}", f"doi:{CLOSED_DOI}", f"https://youtu.be/{VIDEO_ID}")
        ]
    with Archiver(workspace, config, environ={}, provided=True) as archiver:
        records.append(archiver.archive(memo.as_uri()))
    assert all(r.ok for r in records), [r.message for r in records]
    return workspace, records


def fact(n: int, record: SourceRecord, quote: str, workspace: Workspace) -> Fact:
    verified = Verified.YES if verify_quote_for(workspace, record, quote) else Verified.NO
    return Fact(f"Fact-00{n}", f"Statement {n}.", [record.id], quote=quote, verified=verified, task="E1")


def test_references_link_quotes_to_pages_and_times_and_mark_provided_and_abstract_only(
    services: Services, tmp_path: Path
) -> None:
    workspace, (paper, closed, video, memo) = archived(services, tmp_path)
    doc = TaskDoc(front=FrontMatter(id="t", question="Specialist sources?"))
    doc.sources = [record_to_source(r) for r in (paper, closed, video, memo)]
    doc.facts = [
        fact(1, paper, PAGE3, workspace),
        fact(2, closed, ABSTRACT, workspace),
        fact(3, video, CAPTIONS[1][2], workspace),
        fact(4, memo, MEMO, workspace),
    ]
    assert {f.verified for f in doc.facts} == {Verified.YES}
    report = (
        "# Specialist sources\n\n## Findings\n\n"
        f"The calibrated model cut forecast errors by 41 percent [{paper.id}]. "
        f"Sand batteries kept 90 percent of their heat for a week [{closed.id}]. "
        f"The median seasonal COP in the field trial was 3.1 [{video.id}]. "
        f"The board approved 4.2 million euros [{memo.id}].\n"
    )
    outcome = verify_report(report, doc, workspace.root)
    assert outcome.passed, outcome.violations  # archives of every kind pass the hash check
    references = outcome.final_text.split("### Cited sources", 1)[1].split("### Additional", 1)[0]
    entries = [line for line in references.splitlines() if line.strip()]
    pdf = paper.pdf_path
    assert entries[0].startswith(
        f"1. **[{paper.id}]** Seasonal Forecasting with Sparse Models · Ada Lovelace; Alan Turing · "
    )
    assert entries[0].endswith(f" · quoted at [p. 3](<{pdf}#page=3>)")
    assert "Sand batteries for seasonal heat storage (abstract only)" in entries[1]
    assert f"doi:{CLOSED_DOI}" in entries[1] and "Energy Storage Letters" in entries[1]
    assert entries[2].endswith(f"quoted at [1:05](<https://www.youtube.com/watch?v={VIDEO_ID}&t=65s>)")
    assert "National Energy Agency" in entries[2]
    assert "Board memo · provided document · <file://" in entries[3]
    assert "quoted at ch. 1 (Board memo)" in entries[3]  # chapters have no link, only the name

    page = render_html(outcome.final_text, doc, workspace.root)
    assert f'<a href="{pdf}#page=3" class="archive">p. 3</a>' in page
    assert f'<a href="https://www.youtube.com/watch?v={VIDEO_ID}&amp;t=65s" class="external">1:05</a>' in page
