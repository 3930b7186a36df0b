"""URL normalisation for source deduplication (shared by the state merge and the source registry)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
_TRACKING_PREFIXES = ("utm_", "mc_", "pk_", "hsa_")
_TRACKING_KEYS = {
    "fbclid",
    "gclid",
    "dclid",
    "msclkid",
    "yclid",
    "igshid",
    "ref",
    "ref_src",
    "_hsenc",
    "_hsmi",
}


def normalize_url(url: str) -> str:
    """A canonical form of `url` for dedup: lower-case scheme and host, no default port, no
    fragment, no tracking parameters, remaining query sorted, no trailing slash (except the root)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower() or "http"
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    port = parts.port
    netloc = host if port is None or _DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    path = parts.path or "/"
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    query = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not k.lower().startswith(_TRACKING_PREFIXES) and k.lower() not in _TRACKING_KEYS
    ]
    return urlunsplit((scheme, netloc, path, urlencode(sorted(query)), ""))


def host_slug(url: str) -> str:
    """The host as a file-name slug: https://www.Example.com/x → example-com."""
    host = (urlsplit(url).hostname or "local").lower()
    if host.startswith("www."):
        host = host[4:]
    return "".join(ch if ch.isalnum() else "-" for ch in host).strip("-") or "local"
