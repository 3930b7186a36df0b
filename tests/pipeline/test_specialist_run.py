"""Papers and a video in a whole run: executors (the fake agent) archive a DOI, an arXiv paper and a
YouTube video through `deepresearch archive`, against local stand-ins for the services; task.md,
the facts and the report's References (and report.html) carry kind, authority, abstract only,
and links to the page and the time where each quote was found."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.core.config import SOURCE_SERVICES
from deepresearch.core.errors import ExitCode
from deepresearch.core.workspace import Workspace
from deepresearch.state.model import Verified
from deepresearch.state.store import StateStore
from tests.helpers import write_scenario, write_workspace_config
from tests.pipeline.test_end_to_end import run_cli
from tests.sources.services import ABSTRACT, ARXIV_ID, CLOSED_DOI, PAGE3, VIDEO_ID, Services

COP = "the median seasonal COP was 3.1 in cold regions"


@pytest.fixture
def services() -> Iterator[Services]:
    server = Services().start()
    yield server
    server.stop()


def scenario() -> dict[str, object]:
    paper = {"id": "B", "url": f"https://arxiv.org/abs/{ARXIV_ID}v2", "title": "Seasonal", "archive": True}
    closed = {"id": "A", "url": f"https://doi.org/{CLOSED_DOI}", "title": "Sand", "archive": True}
    video = {
        "id": "V",
        "url": f"https://www.youtube.com/watch?v={VIDEO_ID}",
        "title": "Video",
        "archive": True,
    }
    return {
        "executor": {
            "E1": {
                "sources": [closed, paper],
                "facts": [
                    {"statement": "Sand batteries keep 90 percent of their heat for a week.", "sources": ["A"],
                     "quote": ABSTRACT, "confidence": "high"},
                    {"statement": "The calibrated model cut forecast error by 41 percent.", "sources": ["B"],
                     "quote": PAGE3, "confidence": "high"},
                ],
            },
            "E2": {
                "sources": [video],
                "facts": [{"statement": "The median seasonal COP in the trial was 3.1.", "sources": ["V"],
                           "quote": COP, "confidence": "high"}],
            },
        }
    }  # fmt: skip


def test_papers_and_a_video_cited_in_a_run(
    services: Services, tmp_path: Path, clean_env: dict[str, str]
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    write_workspace_config(work, source_base_urls=dict.fromkeys(SOURCE_SERVICES, services.base))
    env = {**clean_env, "FAKE_AGENT_SCENARIO": str(write_scenario(tmp_path / "scenario.yaml", scenario()))}
    proc = run_cli(
        ["-p", "What do papers and lectures say about heat storage?", "-o", str(work)], env, tmp_path
    )
    assert proc.returncode == ExitCode.OK, proc.stdout + proc.stderr

    doc = StateStore(Workspace(work)).load()
    by_url = {s.url: s for s in doc.sources}
    closed = by_url[f"https://doi.org/{CLOSED_DOI}"]
    paper = by_url[f"https://arxiv.org/abs/{ARXIV_ID}v2"]
    video = by_url[f"https://www.youtube.com/watch?v={VIDEO_ID}"]
    assert closed.title.endswith("(abstract only)") and (closed.type, closed.authority) == (
        "peer-reviewed",
        0.9,
    )
    assert (paper.type, paper.authority) == ("preprint", 0.8) and paper.archive.startswith("assets/pdf/")
    assert (video.type, video.authority) == ("official", 1.0) and video.archive.startswith(
        "assets/transcripts/"
    )
    assert {f.verified for f in doc.facts} == {Verified.YES}
    sand = next(f for f in doc.facts if closed.id in f.sources)
    assert sand.statement == "Sand batteries keep 90 percent of their heat for a week (abstract only)."

    report = (work / "report.md").read_text()
    assert "## Verification" not in report
    entries = {
        line.split("**[")[1][:3]: line for line in report.splitlines() if line.startswith(("1.", "2.", "3."))
    }
    pdf = paper.archive.removesuffix(".md") + ".pdf"
    assert entries[paper.id].endswith(f"quoted at [p. 3](<{pdf}#page=3>)")
    assert entries[video.id].endswith(f"quoted at [1:05](<https://www.youtube.com/watch?v={VIDEO_ID}&t=65s>)")
    assert "(abstract only)" in entries[closed.id] and "Energy Storage Letters" in entries[closed.id]
    page = (work / "report.html").read_text()
    assert (
        f'href="{pdf}#page=3"' in page
        and f'href="https://www.youtube.com/watch?v={VIDEO_ID}&amp;t=65s"' in page
    )
