"""Which archiving route a target takes: a paper (arXiv, DOI), a video, a local file, or the web.

    target = recognise("arXiv:2101.00001v2")   # Target(ARXIV, "2101.00001v2", "https://arxiv.org/abs/2101.00001v2")

Recognised: arXiv abs/pdf/versioned URLs and `arXiv:ID` (also the DataCite DOI 10.48550/arXiv.ID);
DOIs as `https://doi.org/…`, `doi:10.…` or bare `10.xxxx/…`; YouTube watch/short/embed/live URLs and
youtu.be links; local files as `file://` URLs or paths; EPUB and DOCX files on the web. Everything
else is a web page. Publisher landing pages are recognised later, from their `citation_*` meta tags.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit


class Route(StrEnum):
    WEB = "web"
    ARXIV = "arxiv"
    DOI = "doi"
    YOUTUBE = "youtube"
    LOCAL = "local"
    REMOTE_FILE = "remote_file"  # an EPUB or DOCX on the web: downloaded and read like a local file


@dataclass(frozen=True)
class Target:
    """A recognised target: its route, its key (arXiv ID, DOI, video ID, file path) and canonical URL."""

    route: Route
    key: str
    canonical: str


_ARXIV_ID = r"(\d{4}\.\d{4,5}(?:v\d+)?|[a-z][a-z.-]*(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)"
_ARXIV_URL = re.compile(
    rf"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/{_ARXIV_ID}(?:\.pdf)?/?$", re.I
)
_ARXIV_SCHEME = re.compile(rf"^arxiv:\s*{_ARXIV_ID}$", re.I)
_ARXIV_DOI = re.compile(rf"^10\.48550/arxiv\.{_ARXIV_ID}$", re.I)
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_DOI_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\d{4,9}/\S+)$", re.I)
_DOI_SCHEME = re.compile(r"^doi:\s*(10\.\d{4,9}/\S+)$", re.I)
_YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
_YOUTUBE_HOSTS = ("youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com")
_REMOTE_FILES = (".epub", ".docx")


def arxiv_url(arxiv_id: str) -> str:
    """The abstract page of an arXiv paper."""
    return f"https://arxiv.org/abs/{arxiv_id}"


def doi_url(doi: str) -> str:
    """The resolver URL of a DOI."""
    return f"https://doi.org/{doi}"


def youtube_url(video_id: str) -> str:
    """The watch page of a YouTube video."""
    return f"https://www.youtube.com/watch?v={video_id}"


def clean_doi(doi: str) -> str:
    """A DOI without URL encoding and the punctuation that often trails it in prose."""
    doi = unquote(doi).strip().rstrip(".,;]}>\"'")
    while doi.endswith(")") and doi.count(")") > doi.count("("):  # "(see doi:10.1/x)" in prose
        doi = doi[:-1].rstrip(".,;")
    return doi


def _arxiv(text: str) -> str | None:
    for pattern in (_ARXIV_URL, _ARXIV_SCHEME, _ARXIV_DOI):
        match = pattern.match(text)
        if match:
            return match.group(1)
    return None


def _doi(text: str) -> str | None:
    for pattern in (_DOI_URL, _DOI_SCHEME):
        match = pattern.match(unquote(text))  # doi.org/10.1000%2Fxyz names 10.1000/xyz
        if match:
            return clean_doi(match.group(1))
    return clean_doi(text) if _DOI.match(text) else None


def _youtube(text: str) -> str | None:
    parts = urlsplit(text)
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https"):
        return None
    if host == "youtu.be":
        candidate = parts.path.strip("/").split("/")[0]
    elif host in _YOUTUBE_HOSTS and parts.path == "/watch":
        candidate = (parse_qs(parts.query).get("v") or [""])[0]
    elif host in _YOUTUBE_HOSTS and re.match(r"^/(?:shorts|embed|live|v)/", parts.path):
        candidate = parts.path.split("/")[2]
    else:
        return None
    return candidate if _YOUTUBE_ID.match(candidate) else None


def recognise(target: str) -> Target:
    """The route for `target` (a URL, `arXiv:ID`, `doi:…`, a bare DOI, or a `file://` URL)."""
    text = target.strip()
    arxiv_id = _arxiv(text)
    if arxiv_id:
        return Target(Route.ARXIV, arxiv_id, arxiv_url(arxiv_id))
    doi = _doi(text)
    if doi:
        return Target(Route.DOI, doi, doi_url(doi))
    video = _youtube(text)
    if video:
        return Target(Route.YOUTUBE, video, youtube_url(video))
    parts = urlsplit(text)
    if parts.scheme == "file":
        path = Path(unquote(parts.path))
        return Target(Route.LOCAL, str(path), path.as_uri() if path.is_absolute() else text)
    if parts.scheme in ("http", "https") and parts.path.lower().endswith(_REMOTE_FILES):
        return Target(Route.REMOTE_FILE, text, text)
    return Target(Route.WEB, text, text)


def as_target(text: str, cwd: Path) -> str:
    """A path to an existing file, relative to `cwd` or absolute, as a `file://` URL; else `text`.

    What `deepresearch archive PATH` does with its arguments, so that an agent's or a person's
    relative path means the file they see."""
    stripped = text.strip()
    if not stripped or "://" in stripped or re.match(r"^(?:arxiv|doi):", stripped, re.I):
        return stripped
    if _DOI.match(stripped):
        return stripped
    path = Path(stripped).expanduser()
    path = path if path.is_absolute() else cwd / path
    return path.resolve().as_uri() if path.is_file() else stripped
