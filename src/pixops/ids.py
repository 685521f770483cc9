"""Identifiers of the PIX service and of the central bank.

Every generator takes the :class:`random.Random` to draw from, so a seeded
sandbox produces the same IDs on every run; nothing here touches the global
``random`` module.

End-to-end IDs come in two strengths:

* :func:`is_strict_end_to_end_id` is the central bank's layout: a prefix letter,
  the ISPB (8 characters ``[0-9A-Z]``), ``yyyyMMddHHmm`` in UTC that must be a real
  minute, and 11 characters ``[a-zA-Z0-9]`` (32 in total).
* :func:`is_end_to_end_id` is the service's looser published rule: the prefix
  letter, 8 digits, then 22 to 26 characters ``[a-zA-Z0-9]``. It does not look
  at the date and, as published, it only allows digits in the ISPB.

Both take ``prefixes``, the letters allowed first: ``"E"`` (a payment, the
default), ``"D"`` (a return/refund) or ``"ED"`` (either).
"""

import hashlib
import random
import re
import string
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Literal

from pixops.errors import PixopsError

__all__ = [
    "CASH_IN_PREFIX",
    "CASH_OUT_PREFIX",
    "REFUND_PREFIX",
    "EndToEndParts",
    "IdError",
    "cash_in_transaction_id",
    "cash_out_transaction_id",
    "derive_end_to_end_id",
    "end_to_end_parts",
    "hex_to_uuid",
    "is_charge_txid",
    "is_end_to_end_id",
    "is_strict_end_to_end_id",
    "new_charge_txid",
    "new_end_to_end_id",
    "new_hex_id",
    "new_outbound_request_id",
    "new_prefixed_id",
    "new_return_id",
    "refund_transaction_id",
]

CASH_IN_PREFIX: Final = "PIXIN"
"""Transaction ID of a received PIX: this prefix immediately followed by the E-ID."""

REFUND_PREFIX: Final = "PIXRET"
"""Transaction ID of a refund: this prefix immediately followed by the D-ID."""

CASH_OUT_PREFIX: Final = "PIXOUT"
"""Transaction ID of a cash-out: this prefix immediately followed by the E-ID."""

ALPHANUMERIC: Final = string.ascii_uppercase + string.ascii_lowercase + string.digits
"""The 62 characters of end-to-end tails and charge txids."""

LOWER_ALPHANUMERIC: Final = string.ascii_lowercase + string.digits
"""The 36 characters of prefixed IDs (``evt_…``)."""

END_TO_END_LENGTH: Final = 32
TAIL_LENGTH: Final = 11
CHARGE_TXID_LENGTH: Final = 32

_ISPB = re.compile(r"[0-9A-Z]{8}")
_LOOSE_BODY = re.compile(r"[0-9]{8}[a-zA-Z0-9]{22,26}")
_STRICT_BODY = re.compile(r"([0-9A-Z]{8})([0-9]{12})([a-zA-Z0-9]{11})")
_CHARGE_TXID = re.compile(r"[a-zA-Z0-9]{26,35}")
_HEX32 = re.compile(r"[0-9a-fA-F]{32}")
_DERIVE_DOMAIN = b"pixops/derive_end_to_end_id/v1"
#: The variant (RFC 4122) and version (4) bits of a UUID, as uuid.UUID sets them.
_UUID_CLEAR: Final = ~(0xC000 << 48 | 0xF000 << 64)
_UUID4_SET: Final = 0x8000 << 48 | 4 << 76


class IdError(PixopsError, ValueError):
    """An identifier, or an input to build one, is malformed."""


@dataclass(frozen=True)
class EndToEndParts:
    """The pieces of a strict end-to-end ID."""

    prefix: str
    """``"E"`` for a payment, ``"D"`` for a return."""
    ispb: str
    """Institution code of the payer (payment) or of the returning institution."""
    created_minute: datetime
    """The minute written in the ID, timezone-aware UTC."""
    tail: str
    """The 11 alphanumeric characters that make the ID unique."""


def new_end_to_end_id(
    ispb: str, at: datetime, rng: random.Random, *, prefix: Literal["E", "D"] = "E"
) -> str:
    """A fresh central-bank end-to-end ID for `ispb`, stamped with `at`'s UTC minute."""
    head = _head(prefix, ispb, at)
    return head + "".join(rng.choices(ALPHANUMERIC, k=TAIL_LENGTH))


def new_return_id(ispb: str, at: datetime, rng: random.Random) -> str:
    """A fresh return (refund) ID: the end-to-end layout with prefix ``D``."""
    return new_end_to_end_id(ispb, at, rng, prefix="D")


def derive_end_to_end_id(
    ispb: str, *, amount_centavos: int, pix_key: str, merchant_id: str, at: datetime
) -> str:
    """A deterministic end-to-end ID for a cash-out.

    The same ISPB, amount, key and merchant within the same UTC minute give the
    same ID, so a repeated transfer is recognised as a duplicate by the payment
    system even without an ``Idempotency-Key``. The tail is taken from a SHA-256
    over the inputs, each length-prefixed so that no two different inputs share
    an encoding. The key is hashed exactly as given; normalise it first.
    """
    if isinstance(amount_centavos, bool) or not isinstance(amount_centavos, int):
        raise IdError(f"amount_centavos must be an int, got {type(amount_centavos).__name__}")
    if amount_centavos < 1:
        raise IdError(f"amount_centavos must be positive, got {amount_centavos}")
    head = _head("E", ispb, at)
    minute = head[9:]
    digest = hashlib.sha256(_DERIVE_DOMAIN)
    for part in (ispb, str(amount_centavos), pix_key, merchant_id, minute):
        try:
            data = part.encode("utf-8")
        except UnicodeEncodeError:
            raise IdError(f"cannot encode {part!r} as UTF-8") from None
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    number = int.from_bytes(digest.digest(), "big")
    tail = []
    for _ in range(TAIL_LENGTH):
        number, index = divmod(number, len(ALPHANUMERIC))
        tail.append(ALPHANUMERIC[index])
    return head + "".join(tail)


def is_end_to_end_id(value: object, *, prefixes: str = "E") -> bool:
    """The service's published rule: prefix letter, 8 digits, 22 to 26 alphanumerics."""
    if not isinstance(value, str) or not value or value[0] not in prefixes:
        return False
    return _LOOSE_BODY.fullmatch(value, 1) is not None


def is_strict_end_to_end_id(value: object, *, prefixes: str = "E") -> bool:
    """The central bank's exact 32-character layout, including a real date and time."""
    if not isinstance(value, str) or not value or value[0] not in prefixes:
        return False
    match = _STRICT_BODY.fullmatch(value, 1)
    return match is not None and _parse_minute(match.group(2)) is not None


def end_to_end_parts(value: str) -> EndToEndParts:
    """Split a strict end-to-end or return ID (prefix ``E`` or ``D``) into its parts."""
    if not is_strict_end_to_end_id(value, prefixes="ED"):
        raise IdError(f"not a strict end-to-end ID: {value!r}")
    minute = _parse_minute(value[9:21])
    assert minute is not None
    return EndToEndParts(prefix=value[0], ispb=value[1:9], created_minute=minute, tail=value[21:])


def cash_in_transaction_id(end_to_end_id: str) -> str:
    """Public transaction ID of a received PIX: ``PIXIN`` + its end-to-end ID."""
    _require_end_to_end(end_to_end_id, "E")
    return CASH_IN_PREFIX + end_to_end_id


def refund_transaction_id(return_id: str) -> str:
    """Public transaction ID of a refund: ``PIXRET`` + its ``D`` return ID."""
    _require_end_to_end(return_id, "D")
    return REFUND_PREFIX + return_id


def cash_out_transaction_id(end_to_end_id: str) -> str:
    """Public transaction ID of a cash-out: ``PIXOUT`` + its end-to-end ID."""
    _require_end_to_end(end_to_end_id, "E")
    return CASH_OUT_PREFIX + end_to_end_id


def new_charge_txid(rng: random.Random) -> str:
    """A fresh charge txid: 32 characters ``[a-zA-Z0-9]`` (the central bank allows 26-35)."""
    return "".join(rng.choices(ALPHANUMERIC, k=CHARGE_TXID_LENGTH))


def is_charge_txid(value: object) -> bool:
    """Whether `value` is a central-bank charge txid, ``[a-zA-Z0-9]{26,35}``."""
    return isinstance(value, str) and _CHARGE_TXID.fullmatch(value) is not None


def new_hex_id(rng: random.Random) -> str:
    """A fresh internal ID: a version-4 UUID as 32 lowercase hex characters."""
    # What uuid.UUID(int=..., version=4).hex computes, without building the object.
    number = rng.getrandbits(128) & _UUID_CLEAR | _UUID4_SET
    return f"{number:032x}"


def hex_to_uuid(hex_id: str) -> str:
    """The hyphenated lowercase form of a 32-hex-character UUID."""
    if not isinstance(hex_id, str) or _HEX32.fullmatch(hex_id) is None:
        raise IdError(f"expected 32 hex characters, got {hex_id!r}")
    return str(uuid.UUID(hex=hex_id))


def new_outbound_request_id(rng: random.Random) -> str:
    """A fresh outbound request ID of a queued cash-out: 32 uppercase hex characters."""
    return f"{rng.getrandbits(128):032X}"


def new_prefixed_id(prefix: str, rng: random.Random, length: int = 24) -> str:
    """`prefix` + `length` characters ``[a-z0-9]``, e.g. ``evt_`` for events."""
    if length < 1:
        raise IdError(f"length must be at least 1, got {length}")
    return prefix + "".join(rng.choices(LOWER_ALPHANUMERIC, k=length))


def _head(prefix: str, ispb: str, at: datetime) -> str:
    """The validated first 21 characters: prefix, ISPB and the UTC minute."""
    if prefix not in ("E", "D"):
        raise IdError(f"prefix must be 'E' or 'D', got {prefix!r}")
    if not isinstance(ispb, str) or _ISPB.fullmatch(ispb) is None:
        raise IdError(f"ISPB must be 8 characters [0-9A-Z], got {ispb!r}")
    return prefix + ispb + _utc_minute(at)


def _utc_minute(at: datetime) -> str:
    if at.tzinfo is None or at.utcoffset() is None:
        raise IdError("the timestamp must be timezone-aware (naive datetimes are ambiguous)")
    try:
        utc = at.astimezone(UTC)
    except OverflowError:
        raise IdError(f"timestamp out of range: {at!r}") from None
    # Not strftime("%Y"): it does not zero-pad years before 1000 on every platform.
    return f"{utc.year:04d}{utc.month:02d}{utc.day:02d}{utc.hour:02d}{utc.minute:02d}"


def _parse_minute(digits: str) -> datetime | None:
    try:
        year, month, day = int(digits[0:4]), int(digits[4:6]), int(digits[6:8])
        hour, minute = int(digits[8:10]), int(digits[10:12])
        return datetime(year, month, day, hour, minute, tzinfo=UTC)
    except ValueError:
        return None


def _require_end_to_end(value: str, prefix: str) -> None:
    if not (
        is_end_to_end_id(value, prefixes=prefix) or is_strict_end_to_end_id(value, prefixes=prefix)
    ):
        raise IdError(f"not an end-to-end ID with prefix {prefix!r}: {value!r}")
