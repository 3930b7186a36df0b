"""Which hosts archiving may reach: the web, not the machine it runs on or its network.

Archiving runs in the run's tool service, outside the agents' sandbox, with the workspace's
signed-in browser profile, and it is the agents' one sanctioned way to the web — so it is the way an
injected page would try to reach `http://169.254.169.254/` (cloud metadata), `http://127.0.0.1:PORT/`
or an intranet host. Every request it makes is checked here: by the plain HTTP fetcher on each
redirect (sources/fetch.py) and, for Chromium, by the forward proxy every request of a page load goes
through (sources/guardproxy.py).

A host is refused when it is an address, or a name resolving to an address, that is not public:
loopback, link-local (cloud metadata services listen there), private, unique-local, carrier-grade
NAT, multicast, reserved or unspecified (an IPv4 address inside IPv6 is judged as IPv4). A name
whose answers mix public and private addresses is refused too. `allow_private_hosts` names what a
person needs anyway — host names (exact), addresses or networks (CIDR) — and the hosts of
`source_base_urls` are allowed, since the person chose them.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from deepresearch.core.config import Config
from deepresearch.sources.fetch import FetchFailure
from deepresearch.sources.record import BLOCKED

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], list[str]]
SETTING = "allow_private_hosts"


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (empty when it does not resolve: the fetch says so)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, ValueError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def kind_of(address: Address) -> str | None:
    """What kind of non-public address this is (for the refusal), or None when it is public."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour
        if inner is not None:
            return kind_of(inner)
        if address in ipaddress.ip_network("fc00::/7"):
            return "unique-local"
    checks = (
        ("unspecified", address.is_unspecified), ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("carrier-grade NAT", address in ipaddress.ip_network("100.64.0.0/10")),
        ("private", address.is_private), ("reserved", address.is_reserved or not address.is_global),
    )  # fmt: skip
    return next((name for name, hit in checks if hit), None)


@dataclass(frozen=True)
class HostPolicy:
    """The hosts archiving may reach (see the module docstring)."""

    names: frozenset[str] = frozenset()
    networks: tuple[Network, ...] = ()
    resolver: Resolver = field(default=resolve, compare=False)

    @classmethod
    def from_config(cls, config: Config, resolver: Resolver = resolve) -> HostPolicy:
        """`allow_private_hosts`, and the hosts of `source_base_urls`."""
        bases = [urlsplit(url).hostname or "" for url in config.source_base_urls.values()]
        return cls.allowing([*config.allow_private_hosts, *filter(None, bases)], resolver)

    @classmethod
    def allowing(cls, entries: Iterable[str], resolver: Resolver = resolve) -> HostPolicy:
        """A policy that allows these names, addresses and networks besides the public web."""
        names: set[str] = set()
        networks: list[Network] = []
        for entry in entries:
            text = entry.strip().strip("[]").lower()
            try:
                networks.append(ipaddress.ip_network(text, strict=False))
            except ValueError:
                names.add(text.rstrip("."))
        return cls(frozenset(names), tuple(networks), resolver)

    def refusal(self, host: str, port: int) -> str | None:
        """Why `host` may not be reached (one sentence for the record), or None when it may."""
        name = host.strip("[]").lower().rstrip(".")
        if not name or name in self.names:
            return None
        try:
            literal: Address | None = ipaddress.ip_address(name)
        except ValueError:
            literal = None
        found = [literal] if literal is not None else [_address(a) for a in self.resolver(name, port)]
        for address in found:
            kind = kind_of(address)
            if kind is not None and not any(address in network for network in self.networks):
                said = f"{host} is" if literal is not None else f"{host} resolves to {address}, which is"
                note = " (cloud metadata services answer there)" if kind == "link-local" else ""
                return (
                    f"refused: {said} a {kind} address{note}; archiving reaches only public addresses "
                    f"(add it to {SETTING} to allow it)"
                )
        return None

    def addresses(self, host: str, port: int) -> tuple[str | None, Sequence[str]]:
        """(refusal, the addresses to connect to): the checked addresses themselves, so that a
        name cannot resolve to something else between the check and the connection."""
        reason = self.refusal(host, port)
        if reason is not None:
            return reason, []
        name = host.strip("[]")
        if name.lower() in self.names:
            return None, [name]
        return None, [name] if _is_address(name) else self.resolver(name, port)

    def check(self, url: str) -> None:
        """FetchFailure (`blocked`) when `url`'s host may not be reached."""
        self.admitted(url)

    def admitted(self, url: str) -> Sequence[str]:
        """The addresses to connect to for `url`; FetchFailure (`blocked`) when its host may not be
        reached."""
        parts = urlsplit(url)
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return []  # a bad port: the fetch reports the bad URL
        reason, addresses = self.addresses(parts.hostname or "", port)
        if reason is not None:
            raise FetchFailure(BLOCKED, f"{url}: {reason}", final_url=url)
        return addresses


def _address(text: str) -> Address:
    return ipaddress.ip_address(text.split("%", 1)[0])  # an IPv6 scope (fe80::1%eth0) is not part of it


def _is_address(text: str) -> bool:
    try:
        _address(text)
    except ValueError:
        return False
    return True
