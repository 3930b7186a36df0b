"""The font chain for figures, with CJK fallbacks (used inside the render worker only).

Latin-only figures use DejaVu Sans (shipped with matplotlib), so every figure looks the same on
every machine. A figure with Chinese, Japanese or Korean text uses the first installed font of
`CJK_FONTS`, in this order:

    Noto Sans CJK SC, Noto Sans CJK JP, Noto Sans CJK TC, Noto Sans CJK KR,
    Source Han Sans SC, Source Han Sans CN, Source Han Sans,
    WenQuanYi Micro Hei, WenQuanYi Zen Hei, Noto Sans SC, Droid Sans Fallback

followed by DejaVu Sans for any glyph it lacks (matplotlib falls back per glyph along the list).
Fonts are looked up through matplotlib's font_manager; if its cache predates a font installed
later, the system font folders are scanned once for CJK font files. When a figure needs CJK and no
such font exists, the figure is still drawn but a warning names the package to install
(`apt-get install fonts-noto-cjk` on Debian/Ubuntu) instead of silently drawing boxes.
"""

from __future__ import annotations

import re

BASE_FONT = "DejaVu Sans"
CJK_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Sans CJK TC",
    "Noto Sans CJK KR",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "Source Han Sans",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Noto Sans SC",
    "Droid Sans Fallback",
)
CJK_PACKAGE = "fonts-noto-cjk"
_CJK = re.compile("[\u1100-\u11ff\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_CJK_FILE = re.compile(r"cjk|wqy|wenquanyi|sourcehan|droidsansfallback|notosans(sc|tc|jp|kr)", re.IGNORECASE)


def has_cjk(text: str) -> bool:
    """Whether `text` holds Chinese, Japanese or Korean characters (or full-width forms)."""
    return _CJK.search(text) is not None


def _installed() -> set[str]:
    from matplotlib import font_manager

    return {f.name for f in font_manager.fontManager.ttflist}


def _scan_system_fonts() -> None:
    """Add CJK font files that matplotlib's (possibly stale) font cache does not know."""
    from matplotlib import font_manager

    known = {f.fname for f in font_manager.fontManager.ttflist}
    for path in font_manager.findSystemFonts():
        if path not in known and _CJK_FILE.search(path):
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):
                continue  # an unreadable font file: the next one may do


def font_chain(need_cjk: bool) -> tuple[list[str], str | None]:
    """The font families to use, and a warning when CJK text is needed but no CJK font exists."""
    if not need_cjk:
        return [BASE_FONT], None
    cjk = [name for name in CJK_FONTS if name in _installed()]
    if not cjk:
        _scan_system_fonts()
        cjk = [name for name in CJK_FONTS if name in _installed()]
    if cjk:
        return [cjk[0], BASE_FONT], None
    warning = (
        f"no CJK font installed (looked for {', '.join(CJK_FONTS[:1] + CJK_FONTS[4:8])}...): "
        f"Chinese/Japanese/Korean text shows as empty boxes; install one, e.g. "
        f"`apt-get install {CJK_PACKAGE}` (Debian/Ubuntu)"
    )
    return [BASE_FONT], warning
