"""Fixtures for the source tests: the local test site, workspaces, and one shared browser run."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from deepresearch.core.config import Config
from deepresearch.core.workspace import Workspace
from deepresearch.sources.archive import Archiver
from deepresearch.sources.record import SourceRecord
from tests.helpers import LOCAL_HOSTS, LOCAL_HOSTS_ENV, skip_without_browser
from tests.sources.site import TestSite

REPO = Path(__file__).resolve().parents[2]
# Seconds a page may take: the hanging page must fail quickly, but the redirect loop (about 20 hops
# through the checking proxy) must end before it on a busy machine (3 s did not, once, beside the lanes).
TIMEOUT = 6.0
MAX_BYTES = 200_000  # the /big page is ~280 KB

# Every page of the site archived in one go by one browser (module-scoped: one Chromium launch).
SITE_PATHS = (
    "/article", "/js", "/report.pdf", "/download", "/binary", "/image.png", "/notes.txt", "/start",
    "/loop-a", "/missing", "/broken", "/slow", "/cp1251", "/sjis", "/login", "/captcha", "/injection",
    "/big", "/mirror", "/article?utm_source=newsletter#top", "/members", "/timer", "/restless",
)  # fmt: skip


@dataclass
class SiteRun:
    """The outcome of archiving SITE_PATHS once: records by path, the workspace, any warnings."""

    workspace: Workspace
    records: dict[str, SourceRecord]
    warnings: list[str]


def make_config(**overrides: object) -> Config:
    """A Config with short timeouts and a small size cap."""
    settings: dict[str, object] = {
        "archive_timeout": TIMEOUT,
        "archive_max_bytes": MAX_BYTES,
        "allow_private_hosts": LOCAL_HOSTS,  # the test site is on 127.0.0.1
    }
    settings.update(overrides)
    return Config(**settings)  # type: ignore[arg-type]


def archive_site(site: TestSite, root: Path, config: Config) -> SiteRun:
    """Archive every page of the test site into a new workspace at `root`."""
    workspace = Workspace(root)
    workspace.ensure()
    with Archiver(workspace, config) as archiver:
        records = archiver.archive_many([site.url(p) for p in SITE_PATHS])
        return SiteRun(workspace, dict(zip(SITE_PATHS, records, strict=True)), list(archiver.warnings))


@pytest.fixture(scope="session")
def site() -> Iterator[TestSite]:
    """The local test site on 127.0.0.1 (a free port)."""
    server = TestSite().start()
    yield server
    server.stop()


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    """An empty workspace."""
    ws = Workspace(tmp_path / "run")
    ws.ensure()
    return ws


@pytest.fixture(scope="module")
def browser_run(site: TestSite, tmp_path_factory: pytest.TempPathFactory) -> SiteRun:
    """The whole site archived through headless Chromium; skips when no Chromium can be launched."""
    run = archive_site(site, tmp_path_factory.mktemp("browser-run"), make_config())
    if any("no Chromium could be launched" in w for w in run.warnings):
        skip_without_browser(f"no Chromium can be launched here: {run.warnings[0]}")
    return run


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    """An environment for `python -m deepresearch` subprocesses: no user config, short timeouts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPRESEARCH_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["DEEPRESEARCH_ARCHIVE_TIMEOUT"] = str(TIMEOUT)
    env[LOCAL_HOSTS_ENV] = " ".join(LOCAL_HOSTS)
    return env


def cli(*args: str) -> list[str]:
    """The argv of `deepresearch ARGS` run from the repository's sources."""
    return [sys.executable, "-m", "deepresearch", *args]
