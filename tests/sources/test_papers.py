"""Papers: arXiv, DOIs and landing pages archived against local stand-ins for arXiv, Crossref,
Unpaywall and a publisher, with their metadata, PDF text, page positions, authority and folder."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.core.config import SOURCE_SERVICES, Config
from deepresearch.core.errors import ExitCode
from deepresearch.core.workspace import Workspace
from deepresearch.sources.api import mark_abstract_only, record_to_source
from deepresearch.sources.archive import Archiver
from deepresearch.sources.positions import Position, PositionKind
from deepresearch.sources.quote_place import quote_position
from deepresearch.sources.record import EMPTY, SourceRecord
from deepresearch.state.model import Fact
from tests.helpers import skip_without_browser
from tests.sources.conftest import REPO, cli, make_config
from tests.sources.services import (
    ABSTRACT,
    ARXIV_ID,
    CLOSED_DOI,
    DIRECT_DOI,
    EMAIL,
    OPEN_DOI,
    PAGE3,
    PAPER_PDF,
    UNPAYWALL_DOI,
    UNPAYWALL_PDF,
    Services,
)


@pytest.fixture(scope="module")
def services() -> Iterator[Services]:
    server = Services().start()
    yield server
    server.stop()


def service_config(services: Services, tmp_path: Path, **extra: object) -> Config:
    """Every service at the local server; no browser (pages over plain HTTP: quick)."""
    bases = dict.fromkeys(SOURCE_SERVICES, services.base)
    return make_config(source_base_urls=bases, chromium_path=str(tmp_path / "no-chromium"), **extra)


def archive(
    workspace: Workspace, config: Config, *targets: str, email: str | None = EMAIL
) -> list[SourceRecord]:
    environ = {"UNPAYWALL_EMAIL": email} if email else {}
    with Archiver(workspace, config, environ=environ) as archiver:
        return archiver.archive_many(list(targets))


def text_of(workspace: Workspace, record: SourceRecord) -> str:
    return (workspace.root / record.archive).read_text(encoding="utf-8")


def test_arxiv_paper_with_metadata_pdf_pages_and_preprint_authority(
    services: Services, workspace: Workspace, tmp_path: Path
) -> None:
    config = service_config(services, tmp_path)
    record, again, bare = archive(
        workspace,
        config,
        f"https://arxiv.org/abs/{ARXIV_ID}v2",
        f"arXiv:{ARXIV_ID}v2",
        f"https://arxiv.org/pdf/{ARXIV_ID}v2",
    )
    assert record.ok and record.kind == "paper" and record.arxiv_id == f"{ARXIV_ID}v2"
    assert record.title == "Seasonal Forecasting with Sparse Models"
    assert record.authors == ["Ada Lovelace", "Alan Turing"] and record.published == "2024-01-03"
    assert record.final_url == f"https://arxiv.org/abs/{ARXIV_ID}v2"
    assert record.source_type == "preprint" and record.authority == 0.8
    assert record.archive.startswith("assets/pdf/S01-arxiv-") and record.pdf_path.endswith(".pdf")
    assert (workspace.root / record.pdf_path).read_bytes() == PAPER_PDF
    assert record.pdf_url == f"{services.base}/pdf/{ARXIV_ID}v2" and record.positions == "page"
    assert again.id == bare.id == record.id, "the same paper under another spelling is archived once"
    text = text_of(workspace, record)
    assert "- Authors: Ada Lovelace; Alan Turing" in text and f"- arXiv: {ARXIV_ID}v2" in text
    assert "<!-- page 3 -->" in text and PAGE3 in text
    assert quote_position(PAGE3, text) == Position(PositionKind.PAGE, 3)
    assert quote_position("Earlier models ignored snow cover.", text) == Position(PositionKind.PAGE, 2)


def test_doi_with_crossref_metadata_and_the_landing_pages_pdf_is_peer_reviewed(
    services: Services, workspace: Workspace, tmp_path: Path
) -> None:
    (record,) = archive(workspace, service_config(services, tmp_path), f"https://doi.org/{OPEN_DOI}")
    assert record.ok and record.kind == "paper" and record.doi == OPEN_DOI
    assert record.title == "Cold-climate heat pumps in the field"
    assert record.authors == ["Grace Hopper", "Katherine Johnson"]
    assert record.venue == "Journal of Building Physics" and record.published == "2023-05-17"
    assert record.source_type == "peer-reviewed" and record.authority == 0.9
    assert record.pdf_url == f"{services.base}/files/open.pdf" and not record.abstract_only
    assert record.archive.startswith("assets/pdf/") and record.final_url == f"https://doi.org/{OPEN_DOI}"
    assert quote_position(PAGE3, text_of(workspace, record)) == Position(PositionKind.PAGE, 3)
    assert f"/works/{OPEN_DOI}" in services.hits and f"/landing/{OPEN_DOI}" in services.hits


def test_paywalled_paper_is_archived_as_its_abstract_and_says_so(
    services: Services, workspace: Workspace, tmp_path: Path
) -> None:
    (record,) = archive(workspace, service_config(services, tmp_path), f"doi:{CLOSED_DOI}")
    assert record.ok and record.abstract_only and record.kind == "paper"
    assert record.archive.startswith("assets/web/") and not record.pdf_path
    assert record.html_path.endswith(".html")  # the landing page is kept beside the abstract
    text = text_of(workspace, record)
    assert ABSTRACT in text and "- Abstract only: yes" in text
    assert record.source_type == "peer-reviewed" and record.authority == 0.9
    # The landing page's citation_pdf_url leads to a sign-in page: tried, and said why it was no PDF.
    assert (
        record.warning
        == f"abstract only: no open-access PDF found (PDF: {services.base}/paywall.pdf is text/html)"
    )
    row = record_to_source(record)
    assert row.title == "Sand batteries for seasonal heat storage (abstract only)"


def test_unpaywall_finds_the_open_copy_only_with_an_email(services: Services, tmp_path: Path) -> None:
    with_email, without = Workspace(tmp_path / "a"), Workspace(tmp_path / "b")
    with_email.ensure(), without.ensure()
    (found,) = archive(with_email, service_config(services, tmp_path), UNPAYWALL_DOI)
    assert found.ok and found.pdf_url.endswith("/files/repository.pdf") and not found.abstract_only
    assert (with_email.root / found.pdf_path).read_bytes() == UNPAYWALL_PDF
    asked = [h for h in services.hits if h.startswith("/v2/")]
    services.hits.clear()
    (missing,) = archive(without, service_config(services, tmp_path), UNPAYWALL_DOI, email=None)
    assert missing.ok and missing.abstract_only  # the landing page's text stands in for the abstract
    assert asked and not [h for h in services.hits if h.startswith("/v2/")]
    assert EMAIL not in json.dumps(missing.to_dict()) and EMAIL not in json.dumps(found.to_dict())


def test_landing_page_with_citation_tags_is_archived_as_the_paper(
    services: Services, workspace: Workspace, tmp_path: Path
) -> None:
    url = f"{services.base}/landing/{OPEN_DOI}"
    (record,) = archive(workspace, service_config(services, tmp_path), url)
    assert record.ok and record.kind == "paper" and record.doi == OPEN_DOI
    assert record.authors == ["Grace Hopper", "Katherine Johnson"]  # Crossref's, fuller than the page's
    assert record.final_url == url and record.pdf_url.endswith("/files/open.pdf")
    assert record.authority == 0.9


def test_doi_that_resolves_straight_to_a_pdf(
    services: Services, workspace: Workspace, tmp_path: Path
) -> None:
    (record,) = archive(workspace, service_config(services, tmp_path), DIRECT_DOI)
    assert record.ok and not record.abstract_only and record.pdf_url == f"{services.base}/files/open.pdf"
    assert record.title == "Proceedings of a cold workshop" and record.published == "2021-09"
    assert record.source_type == "peer-reviewed" and record.authority == 0.9  # a proceedings article
    assert services.hits.count("/files/open.pdf") >= 1 and (workspace.root / record.pdf_path).is_file()


def test_unknown_arxiv_id_fails_as_a_paper(services: Services, workspace: Workspace, tmp_path: Path) -> None:
    (record,) = archive(workspace, service_config(services, tmp_path), "arXiv:9999.99999")
    assert not record.ok and record.kind == "paper" and record.error == EMPTY
    assert "arXiv has no paper 9999.99999" in record.message


def test_archive_json_reports_kind_and_metadata(
    services: Services, workspace: Workspace, cli_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**cli_env, "DEEPRESEARCH_CHROMIUM_PATH": str(tmp_path / "none"), "UNPAYWALL_EMAIL": EMAIL}
    env.update({f"DEEPRESEARCH_{name.upper()}_BASE_URL": services.base for name in SOURCE_SERVICES})
    argv = cli("archive", "--json", "-o", str(workspace.root), f"doi:{CLOSED_DOI}", f"arXiv:{ARXIV_ID}v2")
    result = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == ExitCode.OK, result.stderr
    closed, arxiv = json.loads(result.stdout)
    assert closed["kind"] == "paper" and closed["abstract_only"] is True and closed["doi"] == CLOSED_DOI
    assert (
        closed["authors"] == ["Grace Hopper", "Katherine Johnson"]
        and closed["venue"] == "Energy Storage Letters"
    )
    assert arxiv["kind"] == "paper" and arxiv["arxiv_id"] == f"{ARXIV_ID}v2" and arxiv["positions"] == "page"
    plain = subprocess.run(
        cli("archive", "-o", str(workspace.root), f"doi:{CLOSED_DOI}"), env=env, cwd=REPO, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert "archived paper" in plain.stdout and "note:      abstract only" in plain.stdout


@pytest.mark.browser
def test_doi_landing_page_is_loaded_by_the_browser_from_the_worker_thread(
    services: Services, workspace: Workspace
) -> None:
    bases = dict.fromkeys(SOURCE_SERVICES, services.base)
    with Archiver(workspace, make_config(source_base_urls=bases), environ={}) as archiver:
        record = archiver.archive(f"doi:{OPEN_DOI}")
        if archiver.browser_unavailable:
            skip_without_browser(f"no Chromium can be launched here: {archiver.browser_unavailable}")
    assert record.ok and record.pdf_url.endswith("/files/open.pdf") and not record.fallback
    assert "Chrome/" in services.agents[f"/landing/{OPEN_DOI}"]  # rendered by Chromium, not urllib
    assert "Chrome/" not in services.agents["/files/open.pdf"]  # PDFs and APIs: plain HTTP


def test_a_fact_says_abstract_only_only_when_all_its_sources_are_abstracts() -> None:
    abstract = SourceRecord(url="https://doi.org/10.1/a", id="S01", abstract_only=True)
    full = SourceRecord(url="https://doi.org/10.1/b", id="S02")
    records = {"S01": abstract, "S02": full}
    alone = mark_abstract_only(Fact("Fact-001", "Sand keeps heat.", ["S01"]), records)
    assert alone.statement == "Sand keeps heat (abstract only)."
    assert mark_abstract_only(alone, records).statement == alone.statement  # once
    both = mark_abstract_only(Fact("Fact-002", "Sand keeps heat", ["S01", "S02"]), records)
    assert both.statement == "Sand keeps heat"  # the full text backs it too
    assert mark_abstract_only(Fact("Fact-003", "x", ["L9"]), records).statement == "x"  # not archived
