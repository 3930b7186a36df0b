"""Recognising a target's route: arXiv, DOI, YouTube, local files, files on the web, web pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.sources.routes import Route, as_target, recognise


@pytest.mark.parametrize(
    ("target", "route", "key", "canonical"),
    [
        ("https://arxiv.org/abs/2401.01234v2", Route.ARXIV, "2401.01234v2", "https://arxiv.org/abs/2401.01234v2"),
        ("http://arxiv.org/pdf/2401.01234.pdf", Route.ARXIV, "2401.01234", "https://arxiv.org/abs/2401.01234"),
        ("arXiv:hep-th/9901001", Route.ARXIV, "hep-th/9901001", "https://arxiv.org/abs/hep-th/9901001"),
        ("10.48550/arXiv.2401.01234", Route.ARXIV, "2401.01234", "https://arxiv.org/abs/2401.01234"),
        ("https://doi.org/10.1000%2Fxyz.123", Route.DOI, "10.1000/xyz.123", "https://doi.org/10.1000/xyz.123"),
        ("doi:10.1038/nature12373.", Route.DOI, "10.1038/nature12373", "https://doi.org/10.1038/nature12373"),
        ("10.1016/S0140-6736(20)30183-5", Route.DOI, "10.1016/S0140-6736(20)30183-5",
         "https://doi.org/10.1016/S0140-6736(20)30183-5"),
        ("https://dx.doi.org/10.1000/x(12))", Route.DOI, "10.1000/x(12)", "https://doi.org/10.1000/x(12)"),
        ("https://youtu.be/AbCdEfGhI_0?t=3", Route.YOUTUBE, "AbCdEfGhI_0", "https://www.youtube.com/watch?v=AbCdEfGhI_0"),
        ("https://m.youtube.com/watch?v=AbCdEfGhI_0&t=3", Route.YOUTUBE, "AbCdEfGhI_0",
         "https://www.youtube.com/watch?v=AbCdEfGhI_0"),
        ("https://www.youtube.com/shorts/AbCdEfGhI_0", Route.YOUTUBE, "AbCdEfGhI_0",
         "https://www.youtube.com/watch?v=AbCdEfGhI_0"),
        ("file:///tmp/a%20b.pdf", Route.LOCAL, "/tmp/a b.pdf", "file:///tmp/a%20b.pdf"),
        ("https://example.org/book.epub", Route.REMOTE_FILE, "https://example.org/book.epub",
         "https://example.org/book.epub"),
        ("https://www.youtube.com/channel/UC123", Route.WEB, "https://www.youtube.com/channel/UC123",
         "https://www.youtube.com/channel/UC123"),
        ("https://example.org/10.1000/xyz", Route.WEB, "https://example.org/10.1000/xyz",
         "https://example.org/10.1000/xyz"),
    ],
)  # fmt: skip
def test_recognise(target: str, route: Route, key: str, canonical: str) -> None:
    found = recognise(target)
    assert (found.route, found.key, found.canonical) == (route, key, canonical)


def test_paths_become_file_urls_only_when_the_file_exists(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("x")
    assert as_target("notes.md", tmp_path) == (tmp_path / "notes.md").as_uri()
    assert as_target(str(tmp_path / "notes.md"), Path("/")) == (tmp_path / "notes.md").as_uri()
    assert as_target("missing.md", tmp_path) == "missing.md"
    assert as_target("10.1000/xyz", tmp_path) == "10.1000/xyz"  # a DOI, even if such a folder existed
    assert as_target("https://example.org/a", tmp_path) == "https://example.org/a"
