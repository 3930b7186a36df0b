"""Which Chromiums an archive, a sign-in or a PDF print may launch, found without starting Playwright.

The order is Playwright's own Chromium (when `playwright install chromium` downloaded one), then the
configured `chromium_path`, else the system's. Starting Playwright's driver is a node process of its
own (about a third of a CPU-second, seconds on a loaded machine), so when no candidate exists at all
the caller learns it here and falls back at once (archiving: plain HTTP) with the same kind of
message a failed launch gives. Nothing here imports playwright.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from pathlib import Path

SYSTEM_CHROMIUMS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
PLAYWRIGHT_OWN = "Playwright Chromium"
# The executables `playwright install chromium` leaves in its browsers folder (full and headless shell).
_OWN_PATTERNS = (
    "chromium-*/chrome-linux*/chrome",
    "chromium_headless_shell-*/chrome-*/chrome-headless-shell",
)


def playwright_browsers_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where Playwright keeps the browsers it downloads, by its own rule: PLAYWRIGHT_BROWSERS_PATH
    ("0": inside the package), else $XDG_CACHE_HOME or ~/.cache, then ms-playwright."""
    env = os.environ if environ is None else environ
    chosen = env.get("PLAYWRIGHT_BROWSERS_PATH", "")
    if chosen == "0":
        spec = importlib.util.find_spec("playwright")  # locates the package without importing it
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        package = Path(locations[0]) if locations else Path(".")
        return package / "driver" / "package" / ".local-browsers"
    if chosen:
        return Path(chosen).expanduser()
    cache = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".cache")
    return Path(cache) / "ms-playwright"


def playwright_chromium(environ: Mapping[str, str] | None = None) -> str | None:
    """The Chromium `playwright install chromium` downloaded, if any."""
    base = playwright_browsers_dir(environ)
    for pattern in _OWN_PATTERNS:
        for path in sorted(base.glob(pattern)):
            if path.is_file():
                return str(path)
    return None


def _downloaded_any() -> bool:
    """Whether Playwright's folder holds any Chromium download, whatever its layout or revision (only
    launching it tells whether it works; only its absence is certain)."""
    try:
        return any(entry.name.startswith("chromium") for entry in playwright_browsers_dir().iterdir())
    except OSError:
        return False


def candidate_executables(chromium_path: str | None) -> list[str | None]:
    """Playwright's own Chromium (None) first, then the configured one, else the system's."""
    if chromium_path:
        return [None, chromium_path]
    return [None, *(path for path in SYSTEM_CHROMIUMS if Path(path).exists())]


def none_can_launch(candidates: list[str | None]) -> str | None:
    """Why none of `candidates` can launch, one reason each, when none exists; None when one might
    (then only launching it tells)."""
    reasons = []
    for executable in candidates:
        if executable is None:
            if _downloaded_any():
                return None
            reasons.append(f"{PLAYWRIGHT_OWN}: not installed in {playwright_browsers_dir()}")
        elif Path(executable).is_file():
            return None
        else:
            reasons.append(f"{executable}: no such file")
    return "; ".join(reasons) or "no Chromium was found"
