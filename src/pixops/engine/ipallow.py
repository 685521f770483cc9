"""The IP whitelist: caller address normalisation and the spec's exact-string matching.

Entries are matched as written: a single IPv4 or IPv6 address must equal the caller's
address in its standard text form, and an IPv4 CIDR must be written canonically
(no spaces, no leading zeros, mask 0-32, no host bits set: `10.0.0.5/24` is not a
network). Anything else never matches, and `entry_problem` refuses it at issue.
"""

from __future__ import annotations

import ipaddress
import re

_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}"
_CIDR = re.compile(rf"^({_IPV4})/(3[0-2]|[12]?[0-9])$")


def normalize_address(address: str) -> str | None:
    """Standard text form of a caller address; `::ffff:A.B.C.D` becomes `A.B.C.D`."""
    try:
        parsed = ipaddress.ip_address(address.strip())
    except ValueError:
        return None
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        return str(parsed.ipv4_mapped)
    return str(parsed)


def entry_problem(entry: object) -> str | None:
    """Why `entry` can never admit anyone, or None for an accepted entry: a single IPv4
    address, an IPv4 CIDR network, or an IPv6 address, each in its standard text form."""
    if not isinstance(entry, str):
        return "must be a string"
    if _CIDR.match(entry) is not None:
        if _network(entry) is None:
            return f"{entry!r} has host bits set; write the network address (e.g. 10.0.0.0/24)"
        return None
    if "/" in entry:
        return f"{entry!r} is not an IPv4 CIDR in standard form (IPv6 CIDR is not accepted)"
    if normalize_address(entry) != entry:
        return f"{entry!r} is not an IPv4 or IPv6 address in standard form"
    return None


def _network(entry: str) -> ipaddress.IPv4Network | None:
    """The network a canonical CIDR entry names; None when host bits are set."""
    try:
        return ipaddress.IPv4Network(entry, strict=True)
    except ValueError:
        return None


def entry_matches(entry: str, caller: str) -> bool:
    """Does one whitelist entry admit the (normalised) caller address?"""
    if entry == caller:
        return True
    if ":" in caller or _CIDR.match(entry) is None:
        return False
    network = _network(entry)
    return network is not None and ipaddress.IPv4Address(caller) in network


def allowed(whitelist: list[str], caller: str) -> bool:
    """Only a real address can match: an unreadable peer or hop is never admitted."""
    if normalize_address(caller) != caller:
        return False
    return any(entry_matches(entry, caller) for entry in whitelist)


def client_address(peer: str, forwarded_for: str | None, trusted_proxies: frozenset[str]) -> str:
    """The caller's address: the peer, or behind trusted proxies the nearest untrusted hop.

    Hops are read right to left (the order proxies append them), so whatever a client
    writes into the header itself is reached only after every trusted hop; an unreadable
    hop stops the walk and is returned as is, which no whitelist entry matches.
    """
    direct = normalize_address(peer) or peer
    if forwarded_for is None or not forwarded_for.strip() or direct not in trusted_proxies:
        return direct
    hops = forwarded_for.split(",")
    for hop in reversed(hops):
        address = normalize_address(hop)
        if address is None:
            return hop.strip()
        if address not in trusted_proxies:
            return address
    return normalize_address(hops[0]) or direct
