"""Readable main text, title and published date of an HTML page (trafilatura + htmldate), and the
heuristics that tell a login wall or a captcha from a real page.
"""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.sources.record import CAPTCHA, LOGIN_WALL

# A wall is a page with little text besides the wall itself; a long article with a login box in
# the sidebar or a reCAPTCHA on its comment form is still an article.
WALL_MAX_TEXT = 1500
_CAPTCHA_MARKERS = (
    "g-recaptcha", "google.com/recaptcha", "hcaptcha.com", "h-captcha", "cf-turnstile",
    "challenges.cloudflare.com", "cf-browser-verification", "cf_chl_", "captcha-delivery.com",
    "px-captcha", "verify you are human", "verify that you are human", "are you a robot",
    "unusual traffic from your computer",
)  # fmt: skip
_SIGN_IN_PHRASES = (
    "sign in", "sign-in", "signin", "log in", "log-in", "login", "anmelden", "se connecter",
    "iniciar sesión", "accedi", "войти", "ログイン", "登录",
)  # fmt: skip
# htmldate: only dates the page declares (meta, JSON-LD, <time>, URL); no guessing from body text.
_DATE_CONFIG = {"extensive_search": False, "original_date": True}


@dataclass
class Extracted:
    """What a page says about itself, and its readable text as markdown."""

    title: str
    published: str  # ISO date or ""
    markdown: str


def _fallback_text(html: str) -> str:
    """All visible text when trafilatura finds no main content (short or unusual pages)."""
    import lxml.html  # imported where used: commands that never read a page start without it
    from lxml.etree import ParserError

    try:
        tree = lxml.html.fromstring(html)
    except (ParserError, ValueError):
        return ""
    for node in tree.xpath("//script|//style|//noscript|//template"):
        node.drop_tree()
    lines = (line.strip() for line in tree.text_content().splitlines())
    return "\n".join(line for line in lines if line)


def extract_html(html: str, url: str, title_hint: str = "") -> Extracted:
    """Main text as markdown (links and emphasis kept), the title, and the declared published date."""
    import trafilatura  # ~0.3 s of imports: only commands that read a page pay them

    meta = trafilatura.extract_metadata(html, default_url=url, extensive=False, date_config=_DATE_CONFIG)
    text = trafilatura.extract(
        html,
        url=url,
        output_format="markdown",
        include_links=True,
        include_formatting=True,
        include_tables=True,
        include_comments=False,
        favor_recall=True,
        with_metadata=False,
    )
    title = (meta.title if meta and meta.title else "") or title_hint.strip()
    published = meta.date if meta and meta.date else ""
    return Extracted(title=title, published=published, markdown=(text or _fallback_text(html)).strip())


def detect_wall(html: str, text: str) -> tuple[str, str] | None:
    """(kind, message) when the page is a captcha or a login wall rather than content, else None."""
    if len(text) > WALL_MAX_TEXT:
        return None
    lowered = html.lower()
    marker = next((m for m in _CAPTCHA_MARKERS if m in lowered), None)
    if marker:
        return CAPTCHA, f"the page is a captcha/bot check (found {marker!r})"
    import lxml.html
    from lxml.etree import ParserError

    try:
        tree = lxml.html.fromstring(html) if html.strip() else None
    except (ParserError, ValueError):
        tree = None
    if tree is None or not tree.xpath("//input[translate(@type,'PASWORD','pasword')='password']"):
        return None
    visible = (text + " " + (tree.findtext(".//title") or "")).lower()
    phrase = next((p for p in _SIGN_IN_PHRASES if p in visible or p in lowered), None)
    if phrase:
        return LOGIN_WALL, (
            "the page asks to sign in (a password field and "
            f"{phrase!r}); run `deepresearch browser login URL` to sign in once"
        )
    return None
