"""Test helpers: the fake agent CLI and workspaces configured to use it."""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path
from typing import NoReturn

import pytest
import yaml

TESTS = Path(__file__).resolve().parent
FAKE_AGENT = TESTS / "fake_agent"
REPO = TESTS.parent


# Set by .ci/run, where Chromium is installed: a browser test that cannot launch it is then a
# failure, not a skip, so a launch bug cannot hide behind "skipped".
REQUIRE_BROWSER = "REQUIRE_BROWSER_TESTS"


def skip_without_browser(reason: str) -> NoReturn:
    """Skip a test that needs a launchable Chromium (fail instead when REQUIRE_BROWSER_TESTS=1)."""
    if os.environ.get(REQUIRE_BROWSER, "") not in ("", "0"):
        pytest.fail(f"a browser test could not run and {REQUIRE_BROWSER} is set: {reason}")
    pytest.skip(reason)


# Set by .ci/run, where bubblewrap is installed: a sandbox test that cannot confine a process fails.
REQUIRE_SANDBOX = "REQUIRE_SANDBOX_TESTS"


def skip_without_sandbox() -> None:
    """Skip a test that needs a working bubblewrap (fail instead when REQUIRE_SANDBOX_TESTS=1)."""
    from deepresearch.core.sandbox import probe

    status = probe()
    if status.works:
        return
    reason = f"bubblewrap cannot confine a process here: {status.detail}"
    if os.environ.get(REQUIRE_SANDBOX, "") not in ("", "0"):
        pytest.fail(f"a sandbox test could not run and {REQUIRE_SANDBOX} is set: {reason}")
    pytest.skip(reason)


# What the fake agent reads from its environment (its scenario file): passed to agents by name, as a
# person names what their own custom CLI needs (`agent_env`; core/agent_env.py passes nothing else).
FAKE_AGENT_ENV = ["FAKE_AGENT_*"]
# The tests' web pages are served on 127.0.0.1, which archiving refuses unless a person allows it
# (sources/netguard.py). A test that archives from its own local server allows it with
# `allow_private_hosts: LOCAL_HOSTS` in its configuration (write_workspace_config does).
LOCAL_HOSTS = ["127.0.0.1", "localhost"]
LOCAL_HOSTS_ENV = "DEEPRESEARCH_ALLOW_PRIVATE_HOSTS"  # the same for a subprocess's environment


def fake_agent_command() -> list[str]:
    """The custom-backend argv template that runs the fake agent CLI."""
    return [sys.executable, str(FAKE_AGENT), "--prompt-file", "{prompt_file}", "--workdir", "{workdir}"]


def importable_in_sandbox() -> list[str]:
    """Arguments that keep this checkout's package and virtual environment importable for a scripted
    agent inside the OS sandbox, which hides /tmp (where a CI checkout may be): a file a custom command
    names keeps its folder visible (core/sandbox.program_paths); the fake agent ignores them."""
    cfg = Path(sys.prefix) / "pyvenv.cfg"
    return [str(REPO / "deepresearch" / "__init__.py"), *([str(cfg)] if cfg.is_file() else [])]


def write_workspace_config(workdir: Path, browser: bool = False, **settings: object) -> Path:
    """deepresearch.yaml in `workdir` that selects the fake agent through the custom backend.

    Without `browser`, archiving takes its plain-HTTP fallback (no Chromium at the configured path):
    pipeline tests stay fast and steady on a loaded machine; the tests that prove the browser route
    pass browser=True."""
    # One batch per executor task unless a test says otherwise: most tests count agent calls.
    # No OS sandbox unless a test asks for one (tests/security): scenario files and call logs live
    # in the test's tmp folder, which the sandbox hides.
    config: dict[str, object] = {
        "agent": "custom",
        "custom_command": fake_agent_command(),
        "retries": 1,
        "backoff_base": 0.01,
        "max_batches": 1,
        "sandbox": "off",
        "agent_env": FAKE_AGENT_ENV,
        "allow_private_hosts": LOCAL_HOSTS,
    }
    if not browser:
        config["chromium_path"] = str(workdir / "no-chromium-here")
    config.update(settings)
    path = workdir / "deepresearch.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def write_scenario(path: Path, scenario: dict) -> Path:
    """A fake-agent scenario file."""
    path.write_text(yaml.safe_dump(scenario, allow_unicode=True), encoding="utf-8")
    return path


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{name} statistics bulletin</title>
<meta name="date" content="{published}"><meta property="article:published_time" content="{published}"></head>
<body><header><nav>Home | Statistics | About</nav></header>
<article><h1>{name} statistics bulletin</h1>
<p>The statistics bureau publishes this bulletin every year for researchers and the public.</p>
<p>In 2025 the {name} index reached {value} points, according to the bureau's annual survey.</p>
<p>The survey covered twelve regions and was conducted between January and March of that year.
Methodology notes describe the sampling frame and the weighting used by the bureau.</p>
<p>Earlier editions of the bulletin reported lower values, reflecting a slower pace of change.</p>
{injection}</article><footer>Statistics bureau, 2025</footer></body></html>
"""


# A month ago, so that every test page counts as recent (recency 1.0) whenever the tests run.
PUBLISHED = (datetime.date.today() - datetime.timedelta(days=30)).isoformat()


def page_value(name: str) -> int:
    """The number a test page states for `name` (stable, distinct per name)."""
    return 10 + sum(ord(c) for c in name) % 80


class PageServer:
    """Serves /<NAME>.html research pages on 127.0.0.1 (one bulletin per name) in a thread; with
    `injection`, every page also carries that text (instructions aimed at AI agents)."""

    def __init__(self, injection: str = "") -> None:
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                name = self.path.strip("/").removesuffix(".html")
                if not name.isalnum():
                    self.send_error(404)
                    return
                extra = f"<p>{injection}</p>\n" if injection else ""
                body = PAGE.format(
                    name=name, value=page_value(name), published=PUBLISHED, injection=extra
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return None

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> PageServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
