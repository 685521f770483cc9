"""Standard Webhooks signatures: verify on the receiving side (signing, shared with the
engine that sends, is the primitive `pixops._standard_webhooks`).

The signed content is ``"{webhook-id}.{webhook-timestamp}.{raw body}"``, the MAC is
HMAC-SHA256 keyed with the base64-decoded part of the ``whsec_`` secret, and the
header carries space-separated ``v1,<base64>`` entries (several during key rotation).
"""

from __future__ import annotations

import base64
import hmac
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from pixops._standard_webhooks import (
    SECRET_PREFIX,
    WebhookSetupError,
    WebhookVerificationError,
    check_id,
    generate_secret,
    mac,
    raw_body,
    secret_key,
    shown,
    sign,
)
from pixops.webhooks._events import parse_event

__all__ = [
    "DEFAULT_TOLERANCE_SECONDS",
    "SECRET_PREFIX",
    "Headers",
    "WebhookSetupError",
    "WebhookVerificationError",
    "generate_secret",
    "sign",
    "verify",
]

DEFAULT_TOLERANCE_SECONDS = 300
_REQUIRED = ("webhook-id", "webhook-timestamp", "webhook-signature")
_SINGLE = ("webhook-id", "webhook-timestamp")  # a list header (signature) may repeat

Headers = Mapping[str, str] | Iterable[tuple[str, str]]
"""Request headers as a mapping (any case) or as (name, value) pairs."""


def secret_keys(secret: str | Iterable[str]) -> list[bytes]:
    """The HMAC keys of one secret or of several (receiver-side rotation)."""
    if isinstance(secret, str):
        return [secret_key(secret)]
    if not isinstance(secret, Iterable) or isinstance(secret, bytes | bytearray | Mapping):
        raise WebhookSetupError(
            f"secret must be a 'whsec_...' string or a list of them, not {type(secret).__name__}"
        )
    keys = [secret_key(each) for each in secret]
    if not keys:
        raise WebhookSetupError("at least one secret is needed to verify")
    return keys


def check_tolerance(tolerance_seconds: int) -> int:
    """`tolerance_seconds` if it is a whole number of seconds, zero or more."""
    if isinstance(tolerance_seconds, bool) or not isinstance(tolerance_seconds, int):
        raise WebhookSetupError(
            f"tolerance_seconds must be an int, not {type(tolerance_seconds).__name__}"
        )
    if tolerance_seconds < 0:
        raise WebhookSetupError(f"tolerance_seconds must be 0 or more, not {tolerance_seconds}")
    return tolerance_seconds


def verify(
    headers: Headers,
    body: bytes,
    secret: str | Iterable[str],
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: datetime | int | None = None,
) -> dict[str, Any]:
    """Check a delivery's signature and timestamp; return the parsed JSON event.

    `secret` may be several secrets (while rotating on the receiving side); any
    ``v1`` entry of the header that matches any secret is accepted. `now` defaults
    to the wall clock; pass a datetime or Unix seconds to verify against another clock.
    Wrong arguments raise `WebhookSetupError`; a bad delivery `WebhookVerificationError`.
    """
    keys = secret_keys(secret)
    tolerance = check_tolerance(tolerance_seconds)
    current = _unix_seconds(now)
    raw = raw_body(body)
    folded = _fold(headers)
    missing = [name for name in _REQUIRED if not folded.get(name)]
    if missing:
        raise WebhookVerificationError(f"missing required header(s): {', '.join(missing)}")
    message_id = folded["webhook-id"]
    check_id(message_id, WebhookVerificationError)
    timestamp = _parse_timestamp(folded["webhook-timestamp"])
    if current - timestamp > tolerance:
        raise WebhookVerificationError(
            f"webhook-timestamp too old: {current - timestamp} s ago, tolerance {tolerance} s"
        )
    if timestamp - current > tolerance:
        raise WebhookVerificationError(
            f"webhook-timestamp too new: {timestamp - current} s in the future, "
            f"tolerance {tolerance} s"
        )
    offered = [
        entry.split(",", 1)[1].encode("ascii", "replace")
        for entry in folded["webhook-signature"].split()
        if entry.startswith("v1,")
    ]
    if not offered:
        raise WebhookVerificationError("webhook-signature has no v1 signature")
    matched = False
    for key in keys:
        expected = base64.b64encode(mac(key, message_id, timestamp, raw))
        for signature in offered:
            # Every pair is compared so the time taken does not reveal which one matched.
            matched |= hmac.compare_digest(expected, signature)
    if not matched:
        raise WebhookVerificationError("no matching signature: the body, id or timestamp changed")
    return parse_event(raw)


def _fold(headers: Headers) -> dict[str, str]:
    """Lower-case names; a repeated id or timestamp must repeat the same value, repeated
    signature headers are one list."""
    if isinstance(headers, str | bytes | bytearray) or not isinstance(headers, Iterable):
        raise WebhookSetupError(
            f"headers must be a mapping or (name, value) pairs, not {type(headers).__name__}"
        )
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    folded: dict[str, str] = {}
    for pair in pairs:
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise WebhookSetupError(f"a header must be a (name, value) pair, not {pair!r:.60}")
        name, value = pair
        if not isinstance(name, str) or not isinstance(value, str):
            wrong = name if not isinstance(name, str) else value
            raise WebhookSetupError(
                f"header names and values must be str, not {type(wrong).__name__} "
                f"(in header {name!r:.40}); decode ASGI's bytes as latin-1"
            )
        key, text = name.lower(), value.strip()
        if key not in folded:
            folded[key] = text
        elif key == "webhook-signature":
            folded[key] = f"{folded[key]} {text}"
        elif key in _SINGLE and text != folded[key]:
            raise WebhookVerificationError(f"{key} header given twice with different values")
    return folded


def _parse_timestamp(raw: str) -> int:
    if not raw.isascii() or not raw.isdigit() or len(raw) > 12:
        raise WebhookVerificationError(f"webhook-timestamp is not Unix seconds: {shown(raw)}")
    return int(raw)


def _unix_seconds(now: datetime | int | None) -> int:
    if now is None:
        return int(datetime.now(UTC).timestamp())
    if isinstance(now, int) and not isinstance(now, bool):
        return now
    if not isinstance(now, datetime):
        raise WebhookSetupError(
            f"now must be a datetime or Unix seconds (int), not {type(now).__name__}"
        )
    if now.tzinfo is None:
        raise WebhookSetupError("now must be timezone-aware")
    return int(now.timestamp())
