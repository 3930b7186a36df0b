"""The video route: a YouTube video archived as its transcript, with timestamps.

youtube-transcript-api does the fetching (watch page, player API, caption track). It takes a
`requests.Session`; ours sends every request for www.youtube.com to the configured base URL
(`source_base_urls.youtube`: a proxy, or a local test server), gives every request the archive
timeout (requests has none by default), and keeps the watch page so the title, channel and upload
date are read from it without a second download.

Captions made by people come first, then YouTube's automatic ones, in the run's language when there
is one, else English, else whatever there is. Channel type decides authority as a host would: an
official body's channel is official, a news organisation's is news, any other is social media.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from typing import Any

import requests
from youtube_transcript_api import (
    AgeRestricted,
    CouldNotRetrieveTranscript,
    IpBlocked,
    RequestBlocked,
    Transcript,
    TranscriptsDisabled,
    VideoUnavailable,
    YouTubeRequestFailed,
    YouTubeTranscriptApi,
)

from deepresearch.sources.content import sha256_hex
from deepresearch.sources.fetch import USER_AGENT, FetchFailure
from deepresearch.sources.positions import time_marker
from deepresearch.sources.record import (
    CAPTCHA,
    CONNECTION,
    EMPTY,
    HTTP_4XX,
    LOGIN_WALL,
    TIMEOUT,
    SourceRecord,
)
from deepresearch.sources.routes import youtube_url
from deepresearch.sources.specialist_store import SpecialSource, Tools

YOUTUBE = "https://www.youtube.com"
LANGUAGES = {
    "english": "en", "german": "de", "deutsch": "de", "french": "fr", "français": "fr", "spanish": "es",
    "español": "es", "italian": "it", "italiano": "it", "portuguese": "pt", "português": "pt", "dutch": "nl",
    "russian": "ru", "русский": "ru", "chinese": "zh", "中文": "zh", "japanese": "ja", "日本語": "ja",
    "korean": "ko", "한국어": "ko", "arabic": "ar", "hindi": "hi", "polish": "pl", "swedish": "sv",
    "turkish": "tr", "ukrainian": "uk",
}  # fmt: skip
_OFFICIAL_WORDS = (
    "government", "ministry", "department of", "agency", "university", "commission", "parliament",
    "congress", "senate", "white house", "nasa", "world health organization", "united nations",
    "european union", "central bank", "federal reserve", "institute of", "national academy",
)  # fmt: skip
_NEWS_CHANNELS = (
    "bbc news", "reuters", "associated press", "cnn", "bloomberg", "the new york times", "the guardian",
    "financial times", "the wall street journal", "the economist", "dw news", "al jazeera english",
    "france 24 english", "nbc news", "cbs news", "abc news", "pbs newshour", "cnbc", "sky news", "npr",
)  # fmt: skip


class _Rebased(requests.Session):
    """A session that sends youtube.com requests to `base`, with a timeout, keeping the watch page."""

    def __init__(self, base: str, timeout: float) -> None:
        super().__init__()
        self.base = base.rstrip("/")
        self.timeout = timeout
        self.watch_page = ""
        self.headers["User-Agent"] = USER_AGENT

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        """Every request, rebased and bounded in time."""
        text = url.decode() if isinstance(url, bytes) else url
        if text.startswith(YOUTUBE):
            text = self.base + text[len(YOUTUBE) :]
        kwargs.setdefault("timeout", self.timeout)
        verb = method.decode() if isinstance(method, bytes) else method
        response = super().request(verb, text, *args, **kwargs)
        if "/watch?" in text and response.ok:
            self.watch_page = response.text
        return response


def language_codes(language: str | None) -> list[str]:
    """Caption languages to prefer, best first: the run's language (a name or a code), then English."""
    wanted = (language or "").strip().lower()
    code = LANGUAGES.get(wanted) or (wanted if re.fullmatch(r"[a-z]{2,3}(?:-[a-z0-9]+)?", wanted) else "")
    return list(dict.fromkeys([c for c in (code, code.split("-")[0], "en") if c]))


def choose(transcripts: list[Transcript], preferred: list[str]) -> Transcript | None:
    """Manual captions in a preferred language, then automatic ones in a preferred language, then
    manual, then automatic captions in any language; among equals, the more preferred language."""

    def rank(t: Transcript) -> tuple[int, int]:
        base = t.language_code.split("-")[0]
        index = preferred.index(base) if base in preferred else len(preferred)
        tier = (0 if index < len(preferred) else 2) + int(t.is_generated)
        return tier, index

    return min(transcripts, key=rank, default=None)


def _meta(page: str, pattern: str) -> str:
    match = re.search(pattern, page, re.I)
    return html_lib.unescape(match.group(1)).strip() if match else ""


def video_metadata(page: str) -> tuple[str, str, str]:
    """(title, channel, upload date) from a watch page's meta tags, else its embedded player data."""
    title = _meta(page, r'<meta\s+name="title"\s+content="([^"]*)"') or _meta(
        page, r'<meta\s+property="og:title"\s+content="([^"]*)"'
    )
    channel = _meta(page, r'<link\s+itemprop="name"\s+content="([^"]*)"') or _json_field(
        page, "ownerChannelName"
    )
    published = _meta(page, r'<meta\s+itemprop="(?:uploadDate|datePublished)"\s+content="([^"]*)"') or (
        _json_field(page, "uploadDate") or _json_field(page, "publishDate")
    )
    return title, channel or _json_field(page, "author"), published[:10]


def _json_field(page: str, name: str) -> str:
    match = re.search(rf'"{name}"\s*:\s*("(?:[^"\\]|\\.)*")', page)
    if not match:
        return ""
    try:
        return str(json.loads(match.group(1))).strip()
    except json.JSONDecodeError:
        return ""


def channel_source_type(channel: str) -> str:
    """The source type of a channel, judged like a host: official, news, or social media."""
    name = channel.lower()
    if any(word in name for word in _OFFICIAL_WORDS):
        return "official"
    if name in _NEWS_CHANNELS or name.endswith(" news"):
        return "news"
    return "social"


def _failure(exc: Exception, video_id: str) -> FetchFailure:
    url = youtube_url(video_id)
    if isinstance(exc, requests.Timeout):
        return FetchFailure(TIMEOUT, f"timed out fetching the transcript of {url}", final_url=url)
    if isinstance(exc, requests.RequestException):
        return FetchFailure(
            CONNECTION, f"cannot reach YouTube for {url} ({type(exc).__name__})", final_url=url
        )
    if isinstance(exc, IpBlocked | RequestBlocked):
        return FetchFailure(CAPTCHA, f"YouTube refused the request for {url} (it blocks this IP for now)")
    if isinstance(exc, AgeRestricted):
        return FetchFailure(LOGIN_WALL, f"{url} is age-restricted: YouTube asks to sign in")
    if isinstance(exc, VideoUnavailable):
        return FetchFailure(HTTP_4XX, f"{url} is unavailable (removed or private)", final_url=url)
    if isinstance(exc, YouTubeRequestFailed):
        return FetchFailure(
            CONNECTION, f"YouTube answered with an error for {url} ({exc.reason})", final_url=url
        )
    if isinstance(exc, TranscriptsDisabled):
        return FetchFailure(EMPTY, f"{url} has no captions: nothing to quote", final_url=url)
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return FetchFailure(EMPTY, f"no transcript for {url}: {first}", final_url=url)


def archive_youtube(video_id: str, tools: Tools) -> SpecialSource:
    """The video's transcript with a timestamp marker per caption, and its title, channel and date."""
    session = _Rebased(tools.base("youtube"), tools.config.archive_timeout)
    try:
        available = list(YouTubeTranscriptApi(http_client=session).list(video_id))
        chosen = choose(available, language_codes(tools.config.language))
        if chosen is None:
            raise FetchFailure(EMPTY, f"{youtube_url(video_id)} has no captions: nothing to quote")
        fetched = chosen.fetch()
    except (CouldNotRetrieveTranscript, requests.RequestException) as exc:
        raise _failure(exc, video_id) from exc
    finally:
        session.close()
    lines = [f"{time_marker(s.start)} {' '.join(s.text.split())}" for s in fetched if s.text.strip()]
    if not lines:
        raise FetchFailure(EMPTY, f"the transcript of {youtube_url(video_id)} is empty")
    title, channel, published = video_metadata(session.watch_page)
    record = SourceRecord(
        url=youtube_url(video_id), final_url=youtube_url(video_id), title=title or f"YouTube video {video_id}",
        published=published, kind="transcript", authors=[channel] if channel else [], venue="YouTube",
        positions="time", language=chosen.language_code, captions="automatic" if chosen.is_generated else "manual",
        source_type=channel_source_type(channel),
    )  # fmt: skip
    spoken = " ".join(s.text for s in fetched)
    return SpecialSource(
        record, "transcripts", f"youtube-{video_id}", "\n".join(lines), sha256_hex(spoken.encode())
    )
