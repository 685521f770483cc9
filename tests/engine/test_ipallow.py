"""The IP whitelist and the caller's address: exact-string entries, CIDR, IPv6,
`::ffff:` normalisation, and X-Forwarded-For only from trusted proxies."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from pixops.engine import ipallow
from pixops.engine.config import EngineConfig
from pixops.engine.merchants import AdminError
from pixops.sandbox import Merchant, Sandbox

if TYPE_CHECKING:
    from tests.conftest import Connect

NOT_LISTED = {"error": {"status": 403, "message": "Request IP not in API key whitelist"}}
PROXY = "10.0.0.1"
INNER_PROXY = "10.0.0.2"
CLIENT = "203.0.113.7"


# -- units -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("::ffff:127.0.0.1", "127.0.0.1"),
        ("::FFFF:203.0.113.7", "203.0.113.7"),
        (" 10.0.0.1 ", "10.0.0.1"),
        ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
        ("2001:DB8::1", "2001:db8::1"),
        ("::1", "::1"),
        ("", None),
        ("localhost", None),
        ("10.0.0.256", None),
        ("010.0.0.1", None),
        ("1.2.3.4:80", None),
    ],
)
def test_normalize_address(raw: str, normal: str | None) -> None:
    assert ipallow.normalize_address(raw) == normal


@pytest.mark.parametrize(
    ("entry", "caller", "admitted"),
    [
        ("127.0.0.1", "127.0.0.1", True),
        ("127.0.0.1/32", "127.0.0.1", True),
        ("127.0.0.0/8", "127.9.8.7", True),
        ("10.1.0.0/16", "10.1.255.255", True),
        ("10.1.0.0/16", "10.2.0.0", False),
        ("0.0.0.0/0", "198.51.100.1", True),
        ("10.1.2.3/24", "10.1.2.99", False),  # host bits set: not a network, matches nothing
        ("10.0.0.5/24", "10.0.0.77", False),
        ("10.0.0.5/24", "10.0.0.5", False),
        ("10.0.0.5/32", "10.0.0.5", True),
        (" 127.0.0.1", "127.0.0.1", False),
        ("127.0.0.1 ", "127.0.0.1", False),
        ("127.0.0.01", "127.0.0.1", False),
        ("0127.0.0.1", "127.0.0.1", False),
        ("127.000.0.1", "127.0.0.1", False),
        ("127.0.0.1/33", "127.0.0.1", False),
        ("127.0.0.1/-1", "127.0.0.1", False),
        ("127.0.0.1/", "127.0.0.1", False),
        ("127.0.0.0/08", "127.0.0.1", False),
        ("127.0.0.0/255.0.0.0", "127.0.0.1", False),
        ("127.0.0.0 /8", "127.0.0.1", False),
        ("127.0.0.1", "127.0.0.2", False),
        ("2001:db8::1", "2001:db8::1", True),
        ("2001:db8::1", "2001:db8::2", False),
        ("2001:DB8::1", "2001:db8::1", False),
        ("::1", "::1", True),
        ("2001:db8::/32", "2001:db8::1", False),  # only IPv4 CIDR is an accepted entry
        ("0.0.0.0/0", "2001:db8::1", False),
        ("", "127.0.0.1", False),
        ("*", "127.0.0.1", False),
    ],
)
def test_entry_matches(entry: str, caller: str, admitted: bool) -> None:
    assert ipallow.allowed([entry], caller) is admitted


def test_any_entry_of_the_list_admits() -> None:
    assert ipallow.allowed(["bad entry", "10.0.0.0/8"], "10.1.2.3")
    assert not ipallow.allowed([], "10.1.2.3")


@pytest.mark.parametrize("caller", ["", "garbage", "unix:/tmp/socket"])
def test_unreadable_caller_is_never_admitted(caller: str) -> None:
    assert not ipallow.allowed([caller, "0.0.0.0/0"], caller)


TRUSTED = frozenset({PROXY, INNER_PROXY})


@pytest.mark.parametrize(
    ("peer", "forwarded", "expected"),
    [
        (CLIENT, None, CLIENT),
        ("::ffff:203.0.113.7", None, CLIENT),
        ("198.51.100.9", CLIENT, "198.51.100.9"),  # untrusted peer: header ignored
        (PROXY, None, PROXY),
        (PROXY, "", PROXY),
        (PROXY, CLIENT, CLIENT),
        ("::ffff:10.0.0.1", CLIENT, CLIENT),
        (PROXY, f"::ffff:{CLIENT}", CLIENT),
        (PROXY, f"198.51.100.1, {CLIENT}", CLIENT),  # the leftmost hop is the client's to write
        (PROXY, f"{CLIENT}, {INNER_PROXY}", CLIENT),
        (PROXY, f"{INNER_PROXY}, {PROXY}", INNER_PROXY),  # every hop trusted: the first
        (PROXY, f"garbage, {CLIENT}", CLIENT),
        (PROXY, f"{CLIENT}, garbage", "garbage"),
        (PROXY, f"{CLIENT},{INNER_PROXY}", CLIENT),
    ],
)
def test_client_address(peer: str, forwarded: str | None, expected: str) -> None:
    assert ipallow.client_address(peer, forwarded, TRUSTED) == expected


# -- through the pipeline -------------------------------------------------------------


@pytest.fixture
def behind_proxy() -> Sandbox:
    return Sandbox(config=EngineConfig(trusted_proxies=frozenset({PROXY})))


@pytest.fixture
def shop(behind_proxy: Sandbox) -> Merchant:
    return behind_proxy.create_merchant("Loja")


def test_forwarded_for_from_a_trusted_proxy(
    connect: Connect, behind_proxy: Sandbox, shop: Merchant
) -> None:
    key = behind_proxy.issue_api_key(shop.id, ip_whitelist=[CLIENT])
    via_proxy = connect(behind_proxy, key, client_ip=PROXY)
    assert via_proxy("GET", "/balance", headers={"x-forwarded-for": CLIENT}).status_code == 200
    assert via_proxy("GET", "/balance").json() == NOT_LISTED
    spoofed = via_proxy("GET", "/balance", headers={"x-forwarded-for": f"{CLIENT}, 198.51.100.1"})
    assert spoofed.json() == NOT_LISTED


def test_forwarded_for_from_anyone_else_is_ignored(
    connect: Connect, behind_proxy: Sandbox, shop: Merchant
) -> None:
    key = behind_proxy.issue_api_key(shop.id, ip_whitelist=[CLIENT])
    direct = connect(behind_proxy, key, client_ip="198.51.100.1")
    response = direct("GET", "/balance", headers={"x-forwarded-for": CLIENT})
    assert (response.status_code, response.json()) == (403, NOT_LISTED)


def test_the_proxy_itself_is_not_the_caller(
    connect: Connect, behind_proxy: Sandbox, shop: Merchant
) -> None:
    key = behind_proxy.issue_api_key(shop.id, ip_whitelist=[PROXY])
    via_proxy = connect(behind_proxy, key, client_ip=PROXY)
    assert via_proxy("GET", "/balance").status_code == 200
    assert via_proxy("GET", "/balance", headers={"x-forwarded-for": CLIENT}).json() == NOT_LISTED
    garbage = via_proxy("GET", "/balance", headers={"x-forwarded-for": f"{CLIENT}, not-an-ip"})
    assert garbage.json() == NOT_LISTED


def test_rate_limit_follows_the_forwarded_client(connect: Connect) -> None:
    sandbox = Sandbox(
        rate_limit_per_minute=1, config=EngineConfig(trusted_proxies=frozenset({PROXY}))
    )
    owner = sandbox.create_merchant("Loja")
    key = sandbox.issue_api_key(owner.id, ip_whitelist=["203.0.113.0/24"])
    via_proxy = connect(sandbox, key, client_ip=PROXY)
    first = {"x-forwarded-for": "203.0.113.1"}
    second = {"x-forwarded-for": "203.0.113.2"}
    assert via_proxy("GET", "/webhooks", headers=first).status_code != 429
    assert via_proxy("GET", "/webhooks", headers=first).status_code == 429
    assert via_proxy("GET", "/webhooks", headers=second).status_code != 429


def test_ipv4_mapped_peer_is_normalised(
    connect: Connect, sandbox: Sandbox, merchant: Merchant
) -> None:
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=[CLIENT])
    assert connect(sandbox, key, client_ip=f"::ffff:{CLIENT}")("GET", "/balance").status_code == 200


@pytest.mark.parametrize(
    ("entry", "peer", "status"),
    [
        ("10.1.0.0/16", "10.1.200.3", 200),
        ("10.1.0.0/16", "10.2.0.1", 403),
        ("2001:db8::1", "2001:db8::1", 200),
        ("2001:db8::1", "2001:0db8::0001", 200),  # the peer is normalised, not the entry
        ("2001:db8::1", "2001:db8::2", 403),
        ("::1", "::1", 200),
    ],
)
def test_whitelist_entries_through_the_pipeline(
    connect: Connect, sandbox: Sandbox, merchant: Merchant, entry: str, peer: str, status: int
) -> None:
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=[entry])
    response = connect(sandbox, key, client_ip=peer)("GET", "/balance")
    assert response.status_code == status
    if status == 403:
        assert response.json() == NOT_LISTED


NEVER_MATCHING = [
    (" 10.1.2.3", "10.1.2.3"),
    ("10.1.2.3 ", "10.1.2.3"),
    ("10.01.2.3", "10.1.2.3"),
    ("10.1.2.3/40", "10.1.2.3"),
    ("10.0.0.5/24", "10.0.0.77"),  # issue 8.2: host bits set admitted the whole /24
    ("10.0.0.5/24", "10.0.0.5"),
    ("2001:DB8::1", "2001:db8::1"),
    ("2001:db8::/32", "2001:db8::1"),
    ("::ffff:10.1.2.3", "10.1.2.3"),
    ("", "10.1.2.3"),
]


@pytest.mark.parametrize(("entry", "peer"), NEVER_MATCHING)
def test_a_stored_entry_that_is_not_canonical_admits_nobody(
    connect: Connect, sandbox: Sandbox, merchant: Merchant, entry: str, peer: str
) -> None:
    """Entries written before issuance refused them (or by hand) still match nothing."""
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=["192.0.2.1"])
    with sandbox.engine.store.transaction() as conn:
        conn.execute(
            "UPDATE api_keys SET ip_whitelist = ? WHERE client_id = ?",
            (json.dumps([entry]), key.client_id),
        )
    response = connect(sandbox, key, client_ip=peer)("GET", "/balance")
    assert (response.status_code, response.json()) == (403, NOT_LISTED)


@pytest.mark.parametrize(("entry", "peer"), NEVER_MATCHING)
def test_an_entry_that_can_never_match_is_refused_at_issue(
    sandbox: Sandbox, merchant: Merchant, entry: str, peer: str
) -> None:
    with pytest.raises(AdminError, match="ip_whitelist entries never match"):
        sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1", entry])


@pytest.mark.parametrize(
    "entry", ["127.0.0.1", "10.0.0.0/24", "10.0.0.5/32", "0.0.0.0/0", "2001:db8::1", "::1"]
)
def test_canonical_entries_are_accepted_at_issue(entry: str) -> None:
    assert ipallow.entry_problem(entry) is None


def test_entry_problem_says_what_is_wrong() -> None:
    assert ipallow.entry_problem(5) == "must be a string"
    problem = ipallow.entry_problem("10.0.0.5/24")
    assert problem is not None
    assert "host bits" in problem
    assert "10.0.0.0/24" in problem


def test_repeated_forwarded_for_lines_are_read_in_order(
    connect: Connect, behind_proxy: Sandbox, shop: Merchant
) -> None:
    """The client forges the first line; the proxy appends the real address on its own."""
    key = behind_proxy.issue_api_key(shop.id, ip_whitelist=[CLIENT])
    via_proxy = connect(behind_proxy, key, client_ip=PROXY)
    authorization = ("authorization", f"ApiKey {key.client_id}:{key.client_secret}")
    forged = [authorization, ("x-forwarded-for", CLIENT), ("x-forwarded-for", "198.51.100.66")]
    response = via_proxy.client.get("/balance", headers=forged)
    assert (response.status_code, response.json()) == (403, NOT_LISTED)
    honest = [authorization, ("x-forwarded-for", "198.51.100.66"), ("x-forwarded-for", CLIENT)]
    assert via_proxy.client.get("/balance", headers=honest).status_code == 200
