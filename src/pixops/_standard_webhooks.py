"""Standard Webhooks signing, shared by the sender (the engine) and the receiver
(`pixops.webhooks`): one implementation, so what the engine signs is what a receiver
verifies, and the engine needs nothing of the receiving side.

The signed content is ``"{webhook-id}.{webhook-timestamp}.{raw body}"``, the MAC is
HMAC-SHA256 keyed with the base64-decoded part of the ``whsec_`` secret, and the
header carries space-separated ``v1,<base64>`` entries (several during key rotation).
A primitive: the standard library and `pixops.errors` only.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

from pixops.errors import PixopsError

__all__ = [
    "SECRET_PREFIX",
    "WebhookSetupError",
    "WebhookVerificationError",
    "check_id",
    "generate_secret",
    "mac",
    "raw_body",
    "secret_key",
    "sign",
]

SECRET_PREFIX = "whsec_"  # noqa: S105 (a prefix, not a secret)
_SECRET_BYTES = 24
_SHOWN = 40  # characters of a bad header value quoted in an error


class WebhookVerificationError(PixopsError, ValueError):
    """A delivery failed verification, or its event cannot be kept; the message says why."""


class WebhookSetupError(PixopsError, TypeError, ValueError):
    """pixops.webhooks was called wrongly (a set-up error, not a bad delivery).

    Also a `TypeError` and a `ValueError`, what such mistakes raised before."""


def generate_secret() -> str:
    """A fresh signing secret: ``whsec_`` + base64 of 24 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(_SECRET_BYTES)).decode("ascii")


def secret_key(secret: str) -> bytes:
    """The HMAC key of a ``whsec_`` secret (the prefix is optional)."""
    if not isinstance(secret, str):
        raise WebhookSetupError(
            f"a webhook secret is a string like 'whsec_...', not {type(secret).__name__}"
        )
    encoded = secret.removeprefix(SECRET_PREFIX)
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise WebhookSetupError(
            "webhook secret is not 'whsec_' followed by standard base64"
            + (" (it has surrounding whitespace)" if secret != secret.strip() else "")
        ) from None
    if not key:
        raise WebhookSetupError("webhook secret is empty")
    return key


def sign(message_id: str, timestamp: int, body: bytes, secret: str) -> str:
    """The ``v1,<base64>`` signature of one delivery attempt."""
    key = secret_key(secret)
    check_id(message_id, WebhookSetupError)
    if isinstance(timestamp, bool) or not isinstance(timestamp, int) or timestamp < 0:
        raise WebhookSetupError(f"timestamp must be Unix seconds (an int >= 0), not {timestamp!r}")
    return "v1," + base64.b64encode(mac(key, message_id, timestamp, raw_body(body))).decode("ascii")


def mac(key: bytes, message_id: str, timestamp: int, body: bytes) -> bytes:
    """The HMAC-SHA256 of one delivery's signed content."""
    content = f"{message_id}.{timestamp}.".encode("ascii") + body
    return hmac.new(key, content, hashlib.sha256).digest()


def raw_body(body: bytes) -> bytes:
    """`body` as bytes (a bytearray or memoryview copied); text is refused, with why."""
    if isinstance(body, bytes):
        return body
    if isinstance(body, bytearray | memoryview):
        return bytes(body)
    hint = " (pass the raw request bytes: re-encoding text can change them)"
    raise WebhookSetupError(
        f"body must be bytes, not {type(body).__name__}" + (hint if isinstance(body, str) else "")
    )


def check_id(message_id: str, error: type[PixopsError]) -> None:
    """Refuse (with `error`) a webhook-id that is not a non-empty printable ASCII string."""
    if not isinstance(message_id, str) or not message_id:
        raise error(f"webhook-id must be a non-empty string, not {message_id!r}")
    if not message_id.isascii() or not message_id.isprintable():
        raise error(f"webhook-id must be printable ASCII, got {shown(message_id)}")


def shown(raw: str) -> str:
    """`raw` quoted for an error message, cut after 40 characters."""
    return repr(raw) if len(raw) <= _SHOWN else repr(raw[:_SHOWN]) + f"... ({len(raw)} chars)"
