"""Settings of the specialist routes: service base URLs, the person's documents, their authority."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deepresearch.cli.request import read_request
from deepresearch.core.config import load_config
from deepresearch.core.errors import ConfigError


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), **extra}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "source_base_urls: {scholar: 'http://x'}\n",
            "source_base_urls.scholar: unknown service; known: arxiv",
        ),
        (
            "source_base_urls: {crossref: 'ftp://x'}\n",
            "source_base_urls.crossref: expected an http(s) base URL",
        ),
        (
            "source_base_urls: [http://x]\n",
            "source_base_urls: expected a mapping of service name to base URL",
        ),
        ("provided_authority: 1.5\n", "provided_authority: must be between 0 and 1, got 1.5"),
        ("documents: {a: b}\n", "documents: expected a list of strings"),
    ],
)
def test_bad_source_settings_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "deepresearch.yaml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env_for(tmp_path))
    assert message in str(info.value)


def test_base_urls_from_files_and_environment(tmp_path: Path) -> None:
    (tmp_path / "deepresearch.yaml").write_text("source_base_urls: {arxiv: 'http://127.0.0.1:9/'}\n")
    env = env_for(
        tmp_path,
        DEEPRESEARCH_YOUTUBE_BASE_URL="http://127.0.0.1:8",
        DEEPRESEARCH_DOCUMENTS=f"a b{os.pathsep}c",
    )
    config = load_config(tmp_path, env)
    assert config.source_base_urls == {"arxiv": "http://127.0.0.1:9", "youtube": "http://127.0.0.1:8"}
    assert config.documents == ["a b", "c"]  # separated like PATH: a path may hold spaces
    assert config.provided_authority == 0.8


def test_documents_in_input_md_are_relative_to_input_md(tmp_path: Path) -> None:
    folder = tmp_path / "request"
    folder.mkdir()
    (folder / "input.md").write_text("---\ndocuments: [./papers/*.pdf, /abs/notes]\n---\nQuestion?\n")
    request = read_request(None, folder / "input.md")
    assert request is not None
    assert request.front_matter["documents"] == [str(folder / "papers" / "*.pdf"), "/abs/notes"]
    single = folder / "one.md"
    single.write_text("---\ndocuments: my notes.docx\n---\nQuestion?\n")
    request = read_request(None, single)
    assert request is not None and request.front_matter["documents"] == [str(folder / "my notes.docx")]
