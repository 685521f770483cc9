"""API key credentials: parsing the Authorization header and checking secrets.

Secrets are 256-bit random strings, so a single SHA-256 is the right stored form
(as for any high-entropy token); a slow password hash would only cost latency.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

from pixops.engine.errors import MalformedCredentialsError as MalformedCredentialsError
from pixops.engine.errors import MissingCredentialsError as MissingCredentialsError

CLIENT_ID_PREFIX = "cli_"
SECRET_PREFIX = "sk_"  # noqa: S105 - a prefix, not a secret
_DUMMY_HASH = hashlib.sha256(b"pixops-dummy-secret").hexdigest()


def new_client_id() -> str:
    return CLIENT_ID_PREFIX + secrets.token_hex(12)


def new_client_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def secret_matches(secret: str, stored_hash: str | None) -> bool:
    """Constant-time comparison; an unknown key still costs one comparison."""
    expected = _DUMMY_HASH if stored_hash is None else stored_hash
    return hmac.compare_digest(hash_secret(secret), expected) and stored_hash is not None


def parse_authorization(header: str | None) -> tuple[str, str]:
    """`ApiKey id:secret` or `Basic base64(id:secret)` -> (client_id, client_secret)."""
    if header is None or not header.strip():
        raise MissingCredentialsError
    scheme, _, value = header.strip().partition(" ")
    scheme = scheme.lower()
    value = value.strip()
    if scheme == "apikey":
        pair = value
    elif scheme == "basic":
        try:
            pair = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise MalformedCredentialsError from exc
    else:
        raise MissingCredentialsError
    client_id, colon, secret = pair.partition(":")
    if not colon or not client_id or not secret:
        raise MalformedCredentialsError
    return client_id, secret
