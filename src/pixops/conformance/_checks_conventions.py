"""Checks of the conventions every answer follows: camelCase keys on request, the rate
limit headers, time format and clock, and the public OpenAPI document."""

from __future__ import annotations

import email.utils
from datetime import UTC, datetime
from typing import Any, Final

from pixops import wire
from pixops.conformance._expect import (
    WIRE_TIME,
    MismatchError,
    key_paths,
    seen,
)
from pixops.conformance._model import CannotCheckError, Finding, Probe
from pixops.conformance._rules import MAX_SKEW_SECONDS
from pixops.conformance._session import Session

__all__ = [
    "ENDPOINT_TABLE",
    "camel_case_answers",
    "check_openapi",
    "clock_skew",
    "rate_limit",
    "time_format",
]


# -- conventions ------------------------------------------------------------------------


def _camel_keys(value: Any) -> list[str]:
    paths = key_paths(value)
    return sorted(p for p in paths if "_" in p.rsplit(".", 1)[-1])


def camel_case_answers(session: Session) -> Finding:
    for path in ("/balance", "/statement?per_page=1"):
        plain = session.send(Probe("GET", path))
        camel = session.send(Probe("GET", path, headers=(("x-key-case", "camelCase"),)))
        if plain.status != 200 or camel.status != 200:
            return Finding(False, f"GET {path}: {seen(plain)} / camelCase: {seen(camel)}")
        left = _camel_keys(camel.body)
        if left:
            return Finding(False, f"GET {path} with camelCase still has {', '.join(left[:4])}")
        want = {
            ".".join(wire.to_camel(p) for p in path_.split(".")) for path_ in key_paths(plain.body)
        }
        got = key_paths(camel.body)
        if want != got:
            return Finding(
                False, f"GET {path}: keys {sorted(got ^ want)[:4]} differ from snake_case"
            )
    return Finding(True, "GET /balance and /statement: every key camelCase, the same fields")


def rate_limit(session: Session) -> Finding:
    counts = []
    for _ in range(2):
        answer = session.send(Probe("GET", "/transactions?per_page=1"))
        value = answer.headers.get("x-ratelimit-remaining")
        if answer.status != 200 or value is None or not value.isdigit():
            return Finding(
                False, f"GET /transactions: HTTP {answer.status}, X-RateLimit-Remaining {value!r}"
            )
        counts.append(int(value))
    balance = session.send(Probe("GET", "/balance"))
    if counts[1] >= counts[0]:
        return Finding(False, f"X-RateLimit-Remaining {counts[0]} then {counts[1]}: no count down")
    if "x-ratelimit-remaining" in balance.headers:
        return Finding(False, "GET /balance carries X-RateLimit-Remaining (it is not rate-limited)")
    return Finding(
        True, f"X-RateLimit-Remaining {counts[0]} then {counts[1]}; none on GET /balance"
    )


def _served_time(session: Session) -> datetime:
    """The service's time: `as_of` of the balance, in the wire format."""

    def read() -> datetime:
        answer = session.send(Probe("GET", "/balance"))
        data = answer.body.get("data") if isinstance(answer.body, dict) else None
        as_of = data.get("as_of") if isinstance(data, dict) else None
        if answer.status != 200 or not isinstance(as_of, str):
            raise MismatchError(f"GET /balance gave no as_of: {seen(answer)}")
        if not WIRE_TIME.fullmatch(as_of):
            raise MismatchError(f"as_of {as_of!r} is not 2026-01-05T12:00:00.000Z-style UTC")
        served = datetime.fromisoformat(as_of.replace("Z", "+00:00"))
        date = answer.headers.get("date")
        if date is not None:
            try:
                email.utils.parsedate_to_datetime(date)
            except (TypeError, ValueError):
                raise MismatchError(f"unreadable Date header {date!r}") from None
        return served

    return session.once("served", read)


def time_format(session: Session) -> Finding:
    try:
        served = _served_time(session)
    except MismatchError as mismatch:
        return Finding(False, mismatch.got)
    shown = served.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return Finding(True, f"as_of {shown}; the Date header, when sent, readable")


def clock_skew(session: Session) -> Finding:
    try:
        served = _served_time(session)
    except MismatchError as mismatch:
        raise CannotCheckError(f"no served time to compare: {mismatch.got}") from None
    skew = (datetime.now(UTC) - served).total_seconds()
    text = f"this machine is {abs(skew):.0f} s {'ahead of' if skew >= 0 else 'behind'} the service"
    if abs(skew) > MAX_SKEW_SECONDS:
        return Finding(False, text + ": one of the two clocks is wrong (sync with NTP)")
    return Finding(True, text)


def check_openapi(session: Session) -> Finding:
    answer = session.send(Probe("GET", "/openapi.json", auth="none"))
    body = answer.body
    if answer.status != 200 or not isinstance(body, dict):
        return Finding(False, seen(answer))
    version = str(body.get("openapi", ""))
    found = body.get("paths")
    paths: dict[str, Any] = found if isinstance(found, dict) else {}
    missing = [
        f"{method} {path}"
        for method, path in ENDPOINT_TABLE
        if method.lower() not in paths.get(_openapi_path(path), {})
    ]
    if not version.startswith("3.1") or missing:
        return Finding(False, f"openapi {version!r}; missing {', '.join(missing[:4]) or 'none'}")
    return Finding(True, f"HTTP 200, OpenAPI {version}, all {len(ENDPOINT_TABLE)} operations")


def _openapi_path(path: str) -> str:
    return "/".join(
        "{" + part[1:] + "}" if part.startswith(":") else part for part in path.split("/")
    )


ENDPOINT_TABLE: Final = (
    ("POST", "/pix/cash-in"),
    ("POST", "/pix/cash-out"),
    ("POST", "/pix/refund"),
    ("POST", "/med/:id/defense"),
    ("POST", "/cpf/validate"),
    ("POST", "/webhooks"),
    ("GET", "/webhooks"),
    ("DELETE", "/webhooks/:id"),
    ("GET", "/balance"),
    ("GET", "/transactions"),
    ("GET", "/transactions/:id"),
    ("GET", "/transactions/e2e/:e2e_id"),
    ("GET", "/transactions/tag/:tag"),
    ("GET", "/transactions/ref/:external_id"),
    ("GET", "/transactions/:id/receipt"),
    ("GET", "/pix/keys"),
    ("GET", "/med"),
    ("GET", "/med/:id"),
    ("GET", "/statement"),
)
"""The spec's Endpoints table (method, path), copied from docs/api.md."""
