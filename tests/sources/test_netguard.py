"""The host policy of archiving, rule by rule (the DNS answers are the environment, given here)."""

from __future__ import annotations

import pytest

from deepresearch.core.config import Config
from deepresearch.sources.fetch import FetchFailure, http_fetch
from deepresearch.sources.netguard import HostPolicy
from tests.helpers import PageServer

ANSWERS = {
    "example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    "rebind.example": ["93.184.216.34", "10.0.0.7"],  # one public answer, one private
    "metadata.example": ["169.254.169.254"],
    "intranet.corp": ["10.1.2.3"],
}


def resolver(host: str, port: int) -> list[str]:
    return ANSWERS.get(host, [])


def policy(*allowed: str) -> HostPolicy:
    return HostPolicy.allowing(allowed, resolver)


@pytest.mark.parametrize(
    ("host", "kind"),
    [("127.0.0.1", "loopback"), ("127.9.9.9", "loopback"), ("::1", "loopback"), ("[::1]", "loopback"),
     ("169.254.169.254", "link-local"), ("fe80::1", "link-local"), ("10.0.0.1", "private"),
     ("172.16.5.4", "private"), ("192.168.1.1", "private"), ("fd00::5", "unique-local"),
     ("100.64.1.1", "carrier-grade NAT"), ("0.0.0.0", "unspecified"), ("224.0.0.1", "multicast"),
     ("::ffff:127.0.0.1", "loopback"), ("::ffff:10.0.0.1", "private"), ("2002:7f00:1::", "loopback"),
     ("metadata.example", "link-local"), ("rebind.example", "private"), ("intranet.corp", "private")],
)  # fmt: skip
def test_every_kind_of_non_public_address_is_refused_with_its_name(host: str, kind: str) -> None:
    reason = policy().refusal(host, 80)
    assert reason is not None and kind in reason and "allow_private_hosts" in reason


def test_public_hosts_and_names_that_do_not_resolve_pass() -> None:
    for host in ("93.184.216.34", "example.com", "2606:4700::1111", "unknown.example"):
        assert policy().refusal(host, 443) is None, host  # (an unknown name fails as a DNS error)


def test_allowed_names_addresses_and_networks_pass() -> None:
    allowed = policy("intranet.corp", "127.0.0.1", "169.254.0.0/16", "fd00::/8")
    for host in (
        "intranet.corp",
        "INTRANET.CORP.",
        "127.0.0.1",
        "169.254.169.254",
        "metadata.example",
        "fd00::5",
    ):
        assert allowed.refusal(host, 80) is None, host
    assert allowed.refusal("127.0.0.2", 80) is not None  # one address, not its network
    assert allowed.refusal("10.0.0.1", 80) is not None


def test_the_addresses_to_connect_to_are_the_ones_checked() -> None:
    assert policy().addresses("example.com", 443) == (None, ANSWERS["example.com"])
    reason, addresses = policy().addresses("rebind.example", 443)
    assert reason is not None and addresses == []


def test_check_raises_a_blocked_failure_for_the_url() -> None:
    with pytest.raises(FetchFailure) as raised:
        policy().check("http://169.254.169.254/latest/meta-data/iam/")
    assert raised.value.kind == "blocked" and raised.value.final_url.startswith("http://169.254.169.254/")
    policy().check("https://example.com/page")


def test_the_configured_hosts_are_allowed() -> None:
    config = Config(
        allow_private_hosts=["intranet.corp"], source_base_urls={"arxiv": "http://10.9.9.9:8080/api"}
    )
    configured = HostPolicy.from_config(config, resolver)
    assert configured.refusal("intranet.corp", 80) is None and configured.refusal("10.9.9.9", 8080) is None
    assert configured.refusal("10.9.9.8", 8080) is not None


def test_a_plain_fetch_connects_to_the_address_it_checked(pages: PageServer) -> None:
    # `pinned.test` resolves nowhere but in the policy's answer: the fetch must use that address.
    port = int(pages.base_url.rsplit(":", 1)[1])
    pinned = HostPolicy.allowing(
        ["127.0.0.0/8"], lambda host, _: ["127.0.0.1"] if host == "pinned.test" else []
    )
    fetched = http_fetch(f"http://pinned.test:{port}/alpha.html", 5.0, 1_000_000, pinned)
    assert fetched.status == 200 and b"alpha statistics bulletin" in fetched.body
    rebinding = HostPolicy.allowing([], lambda host, _: ["10.0.0.9"] if host == "pinned.test" else [])
    with pytest.raises(FetchFailure) as raised:
        http_fetch(f"http://pinned.test:{port}/alpha.html", 5.0, 1_000_000, rebinding)
    assert raised.value.kind == "blocked"
