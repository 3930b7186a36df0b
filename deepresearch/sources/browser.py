"""Headless Chromium through Playwright's async API: one browser, a small pool of reused pages.

The ONLY module that imports playwright: archiving (`Browser`), signing in (`login_session`) and
printing report.pdf (`print_pdf`) all launch Chromium here, in one order: Playwright's own when
installed, else the configured `chromium_path`, else the system's (`/usr/bin/chromium`). When the workspace has a
browser profile (`deepresearch browser login`), pages open in it, so sites the person signed in
to are archived signed in; if another process holds the profile, a private copy is used. An
archiving browser makes every request through the checking proxy (`_guard_traffic`,
sources/guardproxy.py): the page, its resources and every redirect reach public addresses only.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Page, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from deepresearch.sources.chromiums import PLAYWRIGHT_OWN, candidate_executables, none_can_launch
from deepresearch.sources.fetch import (
    HTML_TYPES,
    Fetched,
    FetchFailure,
    http_fetch,
    split_content_type,
    status_failure,
)
from deepresearch.sources.guardproxy import PROXY_HEADER, GuardProxy
from deepresearch.sources.netguard import HostPolicy
from deepresearch.sources.record import (
    BAD_URL,
    CONNECTION,
    DNS,
    INTERNAL,
    REDIRECT_LOOP,
    TIMEOUT,
    TOO_LARGE,
)
from deepresearch.sources.settle import BUSY, PROBE, SETTLE_SCRIPT, NetworkQuiet, PageState, settle

BROWSER_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync",
]  # fmt: skip
_NET_ERRORS = (
    ("ERR_NAME_NOT_RESOLVED", DNS), ("ERR_NAME_RESOLUTION_FAILED", DNS),
    ("ERR_TOO_MANY_REDIRECTS", REDIRECT_LOOP), ("ERR_TIMED_OUT", TIMEOUT),
    ("ERR_INVALID_URL", BAD_URL), ("invalid URL", BAD_URL), ("ERR_UNKNOWN_URL_SCHEME", BAD_URL),
)  # fmt: skip


class BrowserUnavailable(Exception):
    """No Chromium could be launched; the message lists what was tried and why it failed."""


@dataclass
class BrowserOptions:
    """How the browser is launched and how long a page may take."""

    chromium_path: str | None = None
    profile: Path | None = None  # used when the folder exists
    timeout: float = 30.0
    max_bytes: int = 15 * 1024 * 1024
    pool_size: int = 4
    screenshot: bool = False
    print_pdf: bool = False
    guard: HostPolicy | None = None  # archiving: every request checked (None: a local page or a check)


def ensure_profile(profile: Path) -> Path:
    """Create the persistent profile folder private to the user (0700): it will hold credentials."""
    profile.mkdir(parents=True, exist_ok=True)
    profile.chmod(0o700)
    return profile


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _navigation_failure(exc: PlaywrightError, url: str) -> FetchFailure:
    message = _first_line(exc)
    kind = next((k for marker, k in _NET_ERRORS if marker in message), CONNECTION)
    return FetchFailure(kind, f"{url}: {message.removeprefix('Page.goto: ')}", final_url=url)


def _guard_traffic(kwargs: dict[str, Any], proxy: str) -> None:
    """Send every request of the browser through the checking proxy at `proxy`: loopback too (which
    Chromium would otherwise reach directly), and no WebRTC UDP around it."""
    kwargs["proxy"] = {"server": proxy}
    kwargs["args"] = [
        *kwargs["args"],
        "--proxy-bypass-list=<-loopback>",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    ]


async def _launch(
    pw: Playwright, executable: str | None, profile: Path | None, headless: bool, proxy: str | None = None
) -> tuple[BrowserContext, Path | None]:
    """A browser context, and the temporary profile copy to delete afterwards (if one was made)."""
    kwargs: dict[str, Any] = {"headless": headless, "args": BROWSER_ARGS}
    if proxy is not None:
        _guard_traffic(kwargs, proxy)
    if executable:
        kwargs["executable_path"] = executable
    if profile is None or not profile.is_dir():
        browser = await pw.chromium.launch(**kwargs)
        agent = (
            f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{browser.version}"
        )
        return await browser.new_context(user_agent=agent, accept_downloads=False), None
    try:
        return await pw.chromium.launch_persistent_context(str(profile), **kwargs), None
    except PlaywrightError as exc:
        if "ProcessSingleton" not in str(exc) and "already in use" not in str(exc):
            raise
    # Another archive process holds the profile: sign-in cookies still apply through a copy.
    copy = Path(tempfile.mkdtemp(prefix="deepresearch-profile-"))
    shutil.copytree(profile, copy, dirs_exist_ok=True, ignore=shutil.ignore_patterns("Singleton*", "*Cache*"))
    return await pw.chromium.launch_persistent_context(str(copy), **kwargs), copy


async def _page_state(page: Page) -> PageState | None:
    """The settle script's view of the page (settle.py); BUSY while a script replaces the document."""
    try:
        found = await page.evaluate(PROBE)
    except PlaywrightError:
        return BUSY
    if not isinstance(found, dict):
        return None
    return PageState(int(found.get("pending", 0)), float(found.get("quiet", 0.0)))


# The document as rendered (what `page.content()` returns), its charset and title, in one round trip.
_SNAPSHOT = """() => [
  (document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '')
    + (document.documentElement ? document.documentElement.outerHTML : ''),
  document.characterSet || 'utf-8',
  document.title || '',
]"""


async def _snapshot(page: Page) -> tuple[str, str, str]:
    html, charset, title = await page.evaluate(_SNAPSHOT)
    return str(html), str(charset).lower(), str(title)


def _watch_network(page: Page) -> NetworkQuiet:
    network = NetworkQuiet()
    page.on("request", network.started)
    page.on("requestfinished", network.ended)
    page.on("requestfailed", network.ended)
    return network


class Browser:
    """One Chromium serving many pages; use from one event loop, concurrency bounded by the caller."""

    def __init__(self, options: BrowserOptions) -> None:
        self.options = options
        self._pw: Playwright | None = None
        self._context: BrowserContext | None = None
        self._profile_copy: Path | None = None
        self._idle: list[Page] = []
        self._network: dict[Page, NetworkQuiet] = {}
        self._releasing: set[asyncio.Task[None]] = set()
        self._proxy: GuardProxy | None = None

    async def start(self) -> None:
        """Launch the first Chromium that works; BrowserUnavailable lists every attempt otherwise."""
        candidates = _launchable(self.options.chromium_path)
        self._pw = await async_playwright().start()
        proxy_url = None
        if self.options.guard is not None:
            self._proxy = GuardProxy(self.options.guard, connect_timeout=self.options.timeout)
            proxy_url = await self._proxy.start()
        tried: list[str] = []
        for executable in candidates:
            try:
                self._context, self._profile_copy = await _launch(
                    self._pw, executable, self.options.profile, headless=True, proxy=proxy_url
                )
            except PlaywrightError as exc:
                tried.append(f"{executable or PLAYWRIGHT_OWN}: {_first_line(exc)}")
                continue
            # Before any page's own scripts: the page's pending work, for settling (settle.py).
            await self._context.add_init_script(SETTLE_SCRIPT)
            self._idle = list(self._context.pages)  # a persistent context opens with one page
            self._network = {page: _watch_network(page) for page in self._idle}
            return
        await self._pw.stop()
        self._pw = None
        if self._proxy is not None:
            await self._proxy.close()
        raise BrowserUnavailable("; ".join(tried))

    async def close(self) -> None:
        """Close pages, the browser and Playwright; remove a temporary profile copy."""
        await asyncio.gather(*self._releasing, return_exceptions=True)
        # Suppressed: after a Chromium crash there is nothing left to close, and the records are saved.
        with contextlib.suppress(PlaywrightError):
            if self._context is not None:
                browser = self._context.browser
                await self._context.close()
                if browser is not None:
                    await browser.close()
        with contextlib.suppress(PlaywrightError):
            if self._pw is not None:
                await self._pw.stop()
        if self._profile_copy is not None:
            shutil.rmtree(self._profile_copy, ignore_errors=True)
        if self._proxy is not None:
            await self._proxy.close()
        self._context, self._pw, self._profile_copy, self._idle = None, None, None, []
        self._network = {}

    async def _acquire(self) -> Page:
        if self._idle:
            return self._idle.pop()
        assert self._context is not None, "Browser.start() first"
        page = await self._context.new_page()
        self._network[page] = _watch_network(page)
        return page

    async def _release(self, page: Page, healthy: bool) -> None:
        # Pages are reused only after a clean load: after an error Chromium may still be navigating
        # to its error page, which would interrupt the next URL's navigation.
        if healthy and len(self._idle) < self.options.pool_size:
            try:
                await page.goto("about:blank", timeout=5000)
                self._idle.append(page)
                return
            except PlaywrightError:
                pass
        self._network.pop(page, None)
        with contextlib.suppress(PlaywrightError):  # already gone with a crashed renderer
            await page.close()

    async def fetch(self, url: str, screenshot: bool | None = None, print_pdf: bool | None = None) -> Fetched:
        """Load `url`: HTML rendered after scripts ran; other documents downloaded as they are.
        `screenshot`/`print_pdf` override the options for this page."""
        shots = (
            self.options.screenshot if screenshot is None else screenshot,
            self.options.print_pdf if print_pdf is None else print_pdf,
        )
        page = await self._acquire()
        healthy = False
        try:
            try:
                response = await page.goto(url, wait_until="load", timeout=self.options.timeout * 1000)
            except PlaywrightTimeoutError as exc:
                raise FetchFailure(TIMEOUT, f"{url} did not load within {self.options.timeout:g} s") from exc
            except PlaywrightError as exc:
                if "Download is starting" in str(exc) or "ERR_ABORTED" in str(exc):
                    return await self.download(url)  # served as an attachment: not a page to render
                raise self._refused(exc, url) or _navigation_failure(exc, url) from exc
            if response is None:
                raise FetchFailure(INTERNAL, f"{url}: the browser returned no response")
            said = await response.header_value(PROXY_HEADER) if self._proxy is not None else None
            if said:  # the checking proxy's own answer, not the site's: a hop it refused or could not reach
                kind, _, what = said.partition(": ")
                raise FetchFailure(kind, f"{response.url}: {what}", final_url=response.url)
            content_type, _ = split_content_type(await response.header_value("content-type"))
            if response.status >= 400:
                raise status_failure(response.status, response.url, content_type)
            healthy = True
            if content_type and content_type not in HTML_TYPES:
                return await self.download(response.url)  # PDF viewer or image: get the bytes
            return await self._rendered(page, url, response.status, content_type or "text/html", shots)
        finally:
            # The page returns to the pool in the background: the caller has its document already.
            task = asyncio.ensure_future(self._release(page, healthy))
            self._releasing.add(task)
            task.add_done_callback(self._releasing.discard)

    def _refused(self, exc: PlaywrightError, url: str) -> FetchFailure | None:
        """What the checking proxy said behind a failed tunnel (an HTTPS host it refused or could
        not reach)."""
        said = _first_line(exc)
        if self._proxy is None or "ERR_TUNNEL_CONNECTION_FAILED" not in said:
            return None
        failed_at = said.rsplit(" at ", 1)[-1].strip() if " at " in said else url
        found = self._proxy.failure_for(failed_at) or self._proxy.failure_for(url)
        return FetchFailure(found[0], f"{failed_at}: {found[1]}", final_url=failed_at) if found else None

    async def _rendered(
        self, page: Page, url: str, status: int, content_type: str, shots: tuple[bool, bool]
    ) -> Fetched:
        settled = await settle(lambda: _page_state(page), self._network[page])
        try:
            html, charset, title = await _snapshot(page)
        except PlaywrightError:  # a script navigated away mid-read: take the new document
            await page.wait_for_load_state("load", timeout=self.options.timeout * 1000)
            html, charset, title = await _snapshot(page)
        try:  # kept in the page's own charset, so its <meta charset> stays true
            body = html.encode(charset, errors="xmlcharrefreplace")
        except LookupError:
            body, charset = html.encode("utf-8"), "utf-8"
        if len(body) > self.options.max_bytes:
            raise FetchFailure(TOO_LARGE, f"{url} renders to {len(body)} bytes, over the cap", status)
        shot = await page.screenshot(full_page=True, type="png") if shots[0] else None
        printed = await page.pdf(print_background=True) if shots[1] else None
        return Fetched(
            url=url, final_url=page.url, status=status, content_type=content_type, charset=charset,
            body=body, rendered=True, title=title, screenshot=shot, page_pdf=printed, settled=settled,
        )  # fmt: skip

    async def download(self, url: str) -> Fetched:
        """GET `url` over plain HTTP with the browser's cookies (size-capped, in a worker thread)."""
        assert self._context is not None, "Browser.start() first"
        cookies = await self._context.cookies(url)
        header = "; ".join(f"{c.get('name')}={c.get('value')}" for c in cookies)
        guard = self.options.guard or HostPolicy.allowing(["0.0.0.0/0", "::/0"])
        fetched = await asyncio.to_thread(
            http_fetch, url, self.options.timeout, self.options.max_bytes, guard, header
        )
        return fetched


def _launchable(chromium_path: str | None) -> list[str | None]:
    """The Chromiums to try, in order; BrowserUnavailable before any Playwright driver starts when
    none of them exists (sources/chromiums.py)."""
    candidates = candidate_executables(chromium_path)
    missing = none_can_launch(candidates)
    if missing is not None:
        raise BrowserUnavailable(missing)
    return candidates


async def _first_launch(
    pw: Playwright, chromium_path: str | None, profile: Path | None, headless: bool
) -> BrowserContext:
    """A context in the first Chromium that launches; BrowserUnavailable lists every attempt."""
    tried: list[str] = []
    for executable in _launchable(chromium_path):
        try:
            context, _ = await _launch(pw, executable, profile, headless=headless)
            return context
        except PlaywrightError as exc:
            tried.append(f"{executable or PLAYWRIGHT_OWN}: {_first_line(exc)}")
    raise BrowserUnavailable("; ".join(tried))


async def _login(url: str, profile: Path, chromium_path: str | None) -> None:
    async with async_playwright() as pw:
        context = await _first_launch(pw, chromium_path, profile, headless=False)
        page = context.pages[0] if context.pages else await context.new_page()
        await page.goto(url)
        await context.wait_for_event("close", timeout=0)  # the person closes the window


def login_session(url: str, profile: Path, chromium_path: str | None = None) -> None:
    """Open a visible Chromium on `url` with the persistent profile; return when it is closed."""
    asyncio.run(_login(url, ensure_profile(profile), chromium_path))


async def _print_pdf(html_path: Path, pdf_path: Path, chromium_path: str | None) -> None:
    async with async_playwright() as pw:
        context = await _first_launch(pw, chromium_path, None, headless=True)
        browser = context.browser
        try:
            page = await context.new_page()
            await page.goto(html_path.resolve().as_uri(), wait_until="load")
            await page.pdf(path=str(pdf_path), format="A4", print_background=True, outline=True)
        finally:
            await context.close()
            if browser is not None:
                await browser.close()


def print_pdf(html_path: Path, pdf_path: Path, chromium_path: str | None = None) -> None:
    """Print a local HTML file to an A4 PDF (backgrounds, outline) in headless Chromium;
    BrowserUnavailable when no Chromium launches."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(_print_pdf(html_path, pdf_path, chromium_path))
        return
    # Called from inside an event loop: asyncio.run needs a thread of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, _print_pdf(html_path, pdf_path, chromium_path)).result()
