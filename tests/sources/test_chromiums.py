"""Which Chromium can launch is known before Playwright's driver starts: with none on the machine, no
driver is started for nothing, and the message says what was looked for."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from deepresearch.sources.browser import Browser, BrowserOptions, BrowserUnavailable
from deepresearch.sources.chromiums import (
    candidate_executables,
    none_can_launch,
    playwright_browsers_dir,
    playwright_chromium,
)


def test_playwright_keeps_its_browsers_where_its_own_rule_says(tmp_path: Path) -> None:
    assert playwright_browsers_dir({"HOME": str(tmp_path)}) == tmp_path / ".cache" / "ms-playwright"
    assert (
        playwright_browsers_dir({"HOME": "/h", "XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "ms-playwright"
    )
    assert playwright_browsers_dir({"PLAYWRIGHT_BROWSERS_PATH": str(tmp_path)}) == tmp_path
    inside = playwright_browsers_dir({"PLAYWRIGHT_BROWSERS_PATH": "0"})
    assert inside.parts[-4:] == ("playwright", "driver", "package", ".local-browsers")


def test_an_installed_playwright_chromium_is_found(tmp_path: Path) -> None:
    env = {"PLAYWRIGHT_BROWSERS_PATH": str(tmp_path)}
    assert playwright_chromium(env) is None
    shell = tmp_path / "chromium_headless_shell-1255" / "chrome-linux" / "chrome-headless-shell"
    shell.parent.mkdir(parents=True)
    shell.write_text("")
    assert playwright_chromium(env) == str(shell)


def test_no_candidate_on_the_machine_is_known_without_launching(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "browsers"))
    missing = tmp_path / "no-chromium-here"
    reason = none_can_launch(candidate_executables(str(missing)))
    assert reason == (
        f"Playwright Chromium: not installed in {tmp_path / 'browsers'}; {missing}: no such file"
    )
    missing.write_text("")  # a file at the configured path: only launching it can tell
    assert none_can_launch(candidate_executables(str(missing))) is None


def test_a_browser_with_nothing_to_launch_fails_before_starting_playwright(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    browser = Browser(BrowserOptions(chromium_path=str(tmp_path / "nothing")))
    with pytest.raises(BrowserUnavailable, match="nothing: no such file") as raised:
        asyncio.run(browser.start())
    assert "not installed in" in str(raised.value)  # the pre-check's words, not a failed launch's
    assert browser._pw is None  # no driver was started


def test_any_playwright_download_is_left_to_the_launch_to_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    (tmp_path / "chromium_headless_shell-1148" / "chrome-linux").mkdir(parents=True)  # an older layout
    assert none_can_launch(candidate_executables(str(tmp_path / "nothing"))) is None
