"""What a `deepresearch demo` run is: its question and its whole configuration, in one place.

The demo ignores the person's configuration (config files, input.md, DEEPRESEARCH_* variables): it
runs the same way everywhere. Its settings are written to the demo folder's deepresearch.yaml, so
the folder shows what it ran with, and the next `deepresearch demo` there serves the site on the same
port again (the archived URLs stay the same when it resumes).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from deepresearch.demo.agent import script

CONFIG_NOTE = (
    "# Written by `deepresearch demo`: the settings of its run (it ignores every other configuration).\n"
    "# Resume or repeat it with `deepresearch demo -o <this folder>`: the demo site is served only then.\n"
)


def question() -> str:
    """The demonstration's research question."""
    return " ".join(str(script()["question"]).split())


def demo_settings(site_url: str, python: str = sys.executable) -> dict[str, Any]:
    """The demo run's configuration, over the built-in defaults: the scripted agent as a custom
    command, the demo site as the only search provider, the quick effort, no OS sandbox (the agent
    is the package's own code; an editable install's source may sit in a home folder the sandbox
    hides)."""
    agent = [python, "-m", "deepresearch.demo.agent", "--site", site_url]
    return {
        "agent": "custom",
        "custom_command": [*agent, "--prompt-file", "{prompt_file}", "--workdir", "{workdir}"],
        "effort": "quick",
        "breadth": 1,  # one new task per round: the reflector's own (a gap would add a second)
        "analysis": "always",
        "max_figures": 2,
        "search_providers": ["duckduckgo"],
        "search_base_urls": {"duckduckgo": site_url},
        # The demo's pages are served on this machine: archiving may reach that one host.
        "allow_private_hosts": [urlsplit(site_url).hostname or "127.0.0.1"],
        "sandbox": "off",
        "retries": 1,
        "backoff_base": 0.5,
    }


def write_settings(workdir: Path, settings: dict[str, Any]) -> Path:
    """The settings as the folder's deepresearch.yaml (what the demo ran with)."""
    path = workdir / "deepresearch.yaml"
    path.write_text(
        CONFIG_NOTE + yaml.safe_dump(settings, allow_unicode=True, sort_keys=False), encoding="utf-8"
    )
    return path


def previous_port(workdir: Path) -> int:
    """The port an earlier demo run in `workdir` served its site on (0 when none is known)."""
    try:
        data = yaml.safe_load((workdir / "deepresearch.yaml").read_text(encoding="utf-8")) or {}
        url = str(data["search_base_urls"]["duckduckgo"])
        return int(urlsplit(url).port or 0) if urlsplit(url).hostname == "127.0.0.1" else 0
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError):
        return 0
