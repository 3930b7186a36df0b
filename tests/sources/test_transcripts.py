"""YouTube transcripts through youtube-transcript-api, its requests sent to a local stand-in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.core.config import SOURCE_SERVICES, Config
from deepresearch.core.workspace import Workspace
from deepresearch.sources.archive import Archiver
from deepresearch.sources.positions import Position, PositionKind
from deepresearch.sources.quote_place import quote_position
from deepresearch.sources.record import HTTP_4XX
from deepresearch.sources.transcripts import channel_source_type, language_codes
from tests.sources.conftest import make_config
from tests.sources.services import CAPTIONS, VIDEO_ID, Services


@pytest.fixture(scope="module")
def services() -> Iterator[Services]:
    server = Services().start()
    yield server
    server.stop()


def config_for(services: Services, tmp_path: Path, **extra: object) -> Config:
    bases = dict.fromkeys(SOURCE_SERVICES, services.base)
    return make_config(source_base_urls=bases, chromium_path=str(tmp_path / "no-chromium"), **extra)


def test_transcript_archived_with_timestamps_metadata_and_channel_authority(
    services: Services, workspace: Workspace, tmp_path: Path
) -> None:
    with Archiver(workspace, config_for(services, tmp_path)) as archiver:
        record, short = archiver.archive_many(
            [f"https://www.youtube.com/watch?v={VIDEO_ID}&t=5s", f"https://youtu.be/{VIDEO_ID}"]
        )
    assert record.ok and record.kind == "transcript" and short.id == record.id
    assert record.archive == f"assets/transcripts/S01-youtube-{VIDEO_ID}.md"
    assert record.final_url == f"https://www.youtube.com/watch?v={VIDEO_ID}"
    assert record.title == "Heat pumps explained: field trial results" and record.published == "2024-03-05"
    assert record.authors == ["National Energy Agency"] and record.venue == "YouTube"
    assert record.captions == "manual" and record.language == "en" and record.positions == "time"
    assert record.source_type == "official" and record.authority == 1.0  # an agency's channel
    text = (workspace.root / record.archive).read_text(encoding="utf-8")
    assert "- Channel: National Energy Agency" in text and "automatic" not in text
    assert "<!-- t=65s (1:05) --> In our field trial the median seasonal COP was 3.1 in cold regions." in text
    quote = "the median seasonal COP was 3.1 in cold regions. Defrost cycles cost about"
    assert quote_position(quote, text) == Position(PositionKind.TIME, 65)
    assert quote_position(CAPTIONS[2][2], text) == Position(PositionKind.TIME, 123)
    assert any(hit.startswith("/youtubei/v1/player?key=AIzaTestKey_123") for hit in services.hits)


def test_unavailable_video_is_a_recorded_failure(
    services: Services, workspace: Workspace, tmp_path: Path
) -> None:
    with Archiver(workspace, config_for(services, tmp_path)) as archiver:
        record = archiver.archive("https://www.youtube.com/watch?v=Zz000000000")
    assert not record.ok and record.kind == "transcript" and record.error == HTTP_4XX
    assert "is unavailable" in record.message


def test_caption_language_preference_and_channel_types() -> None:
    assert language_codes(None) == ["en"]
    assert language_codes("German") == ["de", "en"] and language_codes("pt-BR") == ["pt-br", "pt", "en"]
    assert language_codes("日本語") == ["ja", "en"]
    assert (
        channel_source_type("BBC News") == "news" and channel_source_type("Stanford University") == "official"
    )
    assert channel_source_type("Cooking with Sam") == "social"
