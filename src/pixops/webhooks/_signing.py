"""Standard Webhooks signatures: sign on the sending side, verify on the receiving side.

The signed content is ``"{webhook-id}.{webhook-timestamp}.{raw body}"``, the MAC is
HMAC-SHA256 keyed with the base64-decoded part of the ``whsec_`` secret, and the
header carries space-separated ``v1,<base64>`` entries (several during key rotation).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pixops.errors import PixopsError

__all__ = [
    "DEFAULT_TOLERANCE_SECONDS",
    "SECRET_PREFIX",
    "Headers",
    "WebhookVerificationError",
    "generate_secret",
    "sign",
    "verify",
]

SECRET_PREFIX = "whsec_"  # noqa: S105 (a prefix, not a secret)
DEFAULT_TOLERANCE_SECONDS = 300
_SECRET_BYTES = 24
_REQUIRED = ("webhook-id", "webhook-timestamp", "webhook-signature")

Headers = Mapping[str, str] | Iterable[tuple[str, str]]
"""Request headers as a mapping (any case) or as (name, value) pairs."""


class WebhookVerificationError(PixopsError, ValueError):
    """A delivery failed verification; the message says why."""


def generate_secret() -> str:
    """A fresh signing secret: ``whsec_`` + base64 of 24 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(_SECRET_BYTES)).decode("ascii")


def secret_key(secret: str) -> bytes:
    """The HMAC key of a ``whsec_`` secret (the prefix is optional)."""
    if not isinstance(secret, str):
        raise TypeError("a webhook secret is a string like 'whsec_...'")
    encoded = secret.removeprefix(SECRET_PREFIX)
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("webhook secret is not 'whsec_' followed by standard base64") from None
    if not key:
        raise ValueError("webhook secret is empty")
    return key


def sign(message_id: str, timestamp: int, body: bytes, secret: str) -> str:
    """The ``v1,<base64>`` signature of one delivery attempt."""
    content = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_key(secret), content, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def verify(
    headers: Headers,
    body: bytes,
    secret: str | Sequence[str],
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: datetime | int | None = None,
) -> dict[str, Any]:
    """Check a delivery's signature and timestamp; return the parsed JSON event.

    `secret` may be several secrets (while rotating on the receiving side); any
    ``v1`` entry of the header that matches any secret is accepted. `now` defaults
    to the wall clock; pass a datetime or Unix seconds to verify against another clock.
    """
    folded = _fold(headers)
    missing = [name for name in _REQUIRED if not folded.get(name)]
    if missing:
        raise WebhookVerificationError(f"missing required header(s): {', '.join(missing)}")
    message_id = folded["webhook-id"]
    raw_timestamp = folded["webhook-timestamp"]
    raw_signatures = folded["webhook-signature"]
    timestamp = _parse_timestamp(raw_timestamp)
    current = _unix_seconds(now)
    if current - timestamp > tolerance_seconds:
        raise WebhookVerificationError(
            f"webhook-timestamp too old: {current - timestamp} s ago, "
            f"tolerance {tolerance_seconds} s"
        )
    if timestamp - current > tolerance_seconds:
        raise WebhookVerificationError(
            f"webhook-timestamp too new: {timestamp - current} s in the future, "
            f"tolerance {tolerance_seconds} s"
        )
    offered = [
        entry.split(",", 1)[1].encode("ascii", "replace")
        for entry in raw_signatures.split()
        if entry.startswith("v1,")
    ]
    if not offered:
        raise WebhookVerificationError("webhook-signature has no v1 signature")
    secrets_list = [secret] if isinstance(secret, str) else list(secret)
    if not secrets_list:
        raise ValueError("at least one secret is needed to verify")
    matched = False
    for candidate in secrets_list:
        expected = sign(message_id, timestamp, body, candidate).split(",", 1)[1].encode("ascii")
        for signature in offered:
            # Every pair is compared so the time taken does not reveal which one matched.
            matched |= hmac.compare_digest(expected, signature)
    if not matched:
        raise WebhookVerificationError("no matching signature: the body, id or timestamp changed")
    try:
        event = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        raise WebhookVerificationError("body is not valid JSON") from None
    if not isinstance(event, dict):
        raise WebhookVerificationError("body is not a JSON object")
    return event


def _fold(headers: Headers) -> dict[str, str]:
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    folded: dict[str, str] = {}
    for name, value in pairs:
        folded.setdefault(name.lower(), value.strip())
    return folded


def _parse_timestamp(raw: str) -> int:
    if not raw.isascii() or not raw.isdigit() or len(raw) > 12:
        raise WebhookVerificationError(f"webhook-timestamp is not Unix seconds: {raw!r}")
    return int(raw)


def _unix_seconds(now: datetime | int | None) -> int:
    if now is None:
        return int(datetime.now(UTC).timestamp())
    if isinstance(now, bool):
        raise TypeError("now must be a datetime or Unix seconds")
    if isinstance(now, int):
        return now
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    return int(now.timestamp())
