"""BR Code: the EMV merchant-presented QR payload of PIX ("copia e cola").

A payload is a list of fields, each ``ID`` (2 digits) + ``LENGTH`` (2 digits) +
``VALUE``, ending with field ``63``: the CRC-16/CCITT-FALSE of everything before
its value. A static code carries the PIX key (``26``/``01``); a dynamic one
carries the URL of its payload (``26``/``25``, without ``https://``).

Lengths count characters and the CRC is taken over the UTF-8 bytes, as common
implementations do. :func:`encode` writes fields in ID order (sub-fields too);
:func:`decode` accepts any order between ``00`` (first) and ``63`` (last), reads
the amount written as ``10``, ``10.5`` or ``10.50``, accepts the GUI in any case,
and ignores fields it does not model (other schemes' templates, ``80``-``99``). A
payload written in the canonical form therefore survives ``encode(decode(p))``
byte for byte. Both run the same checks, so whatever :func:`decode` returns,
:func:`encode` accepts.
"""

import binascii
import re
from dataclasses import dataclass
from typing import Final

from pixops.errors import PixopsError

__all__ = [
    "GUI",
    "BRCode",
    "BRCodeError",
    "CRCMismatchError",
    "TruncatedFieldError",
    "UnknownLayoutError",
    "crc16_ccitt_false",
    "decode",
    "encode",
    "parse_fields",
]

GUI: Final = "br.gov.bcb.pix"
"""Globally unique identifier of the PIX arrangement (field ``26``/``00``)."""

MAX_VALUE_LENGTH: Final = 99
MAX_PAYLOAD_LENGTH: Final = 512
MAX_NAME_LENGTH: Final = 25
MAX_CITY_LENGTH: Final = 15
MAX_AMOUNT_LENGTH: Final = 13
MAX_KEY_LENGTH: Final = 77
MAX_STATIC_TXID_LENGTH: Final = 25

_PAYLOAD_FORMAT = "00"
_INITIATION = "01"
_ACCOUNT = "26"
_MCC = "52"
_CURRENCY = "53"
_AMOUNT = "54"
_COUNTRY = "58"
_NAME = "59"
_CITY = "60"
_POSTAL_CODE = "61"
_ADDITIONAL = "62"
_CRC = "63"
_MANDATORY = (_PAYLOAD_FORMAT, _ACCOUNT, _MCC, _CURRENCY, _COUNTRY, _NAME, _CITY, _ADDITIONAL)

_SUB_GUI = "00"
_SUB_KEY = "01"
_SUB_DESCRIPTION = "02"
_SUB_LOCATION = "25"
_SUB_TXID = "05"

_AMOUNT_TEXT = re.compile(r"([0-9]+)(?:\.([0-9]{1,2}))?")
_TXID = re.compile(r"[a-zA-Z0-9]{1,25}")
_CRC_TEXT = re.compile(r"[0-9A-F]{4}")
_COUNTRY_CODE = re.compile(r"[A-Z]{2}")
#: A field's length as written: "00" to "99" (MAX_VALUE_LENGTH).
_TWO_DIGITS: Final = tuple(f"{length:02d}" for length in range(MAX_VALUE_LENGTH + 1))


class BRCodeError(PixopsError, ValueError):
    """A BR Code payload, or a :class:`BRCode` to encode, is invalid."""


class CRCMismatchError(BRCodeError):
    """The CRC written in field 63 is not the CRC of the payload."""


class TruncatedFieldError(BRCodeError):
    """A field's header or declared length runs past the end of its container."""


class UnknownLayoutError(BRCodeError):
    """The fields are well formed but not a PIX BR Code (missing, misplaced, wrong GUI)."""


@dataclass(frozen=True)
class BRCode:
    """The content of a PIX BR Code; exactly one of `key` and `location` is set."""

    merchant_name: str
    """Field 59, at most 25 characters."""
    merchant_city: str
    """Field 60, at most 15 characters."""
    key: str | None = None
    """Field 26/01: the PIX key of a static code."""
    location: str | None = None
    """Field 26/25: URL of a dynamic code's payload, written without ``https://``."""
    description: str | None = None
    """Field 26/02: free text shown to the payer."""
    amount_centavos: int | None = None
    """Field 54, written as ``"10.50"``; None lets the payer choose."""
    txid: str = "***"
    """Field 62/05: ``***`` when none, else 1-25 characters ``[a-zA-Z0-9]``."""
    reusable: bool | None = None
    """Field 01: True writes ``11``, False writes ``12``, None omits the field."""
    mcc: str = "0000"
    """Field 52: merchant category code, 4 digits (``0000`` if none)."""
    currency: str = "986"
    """Field 53: ISO 4217 numeric code, 3 digits (986 is BRL)."""
    country: str = "BR"
    """Field 58: ISO 3166 alpha-2 code."""
    postal_code: str | None = None
    """Field 61, optional."""

    @property
    def is_dynamic(self) -> bool:
        """Whether the code points to a payload URL instead of carrying a key."""
        return self.location is not None


def crc16_ccitt_false(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor.

    The standard library's `binascii.crc_hqx` is exactly this polynomial without
    reflection; started at 0xFFFF it is CCITT-FALSE, in C.
    """
    return binascii.crc_hqx(data, 0xFFFF)


def encode(code: BRCode) -> str:
    """The payload of `code`, CRC included; BRCodeError if a field breaks a rule."""
    _validate(code)
    account = _field(_SUB_GUI, GUI)
    if code.key is not None:
        account += _field(_SUB_KEY, code.key)
    if code.description is not None:
        account += _field(_SUB_DESCRIPTION, code.description)
    if code.location is not None:
        account += _field(_SUB_LOCATION, code.location)
    if len(account) > MAX_VALUE_LENGTH:
        raise BRCodeError(
            f"field 26 (GUI, key or location, description) is {len(account)} characters, "
            f"more than {MAX_VALUE_LENGTH}; shorten the description"
        )

    payload = _field(_PAYLOAD_FORMAT, "01")
    if code.reusable is not None:
        payload += _field(_INITIATION, "11" if code.reusable else "12")
    payload += _field(_ACCOUNT, account)
    payload += _field(_MCC, code.mcc)
    payload += _field(_CURRENCY, code.currency)
    if code.amount_centavos is not None:
        payload += _field(_AMOUNT, _format_amount(code.amount_centavos))
    payload += _field(_COUNTRY, code.country)
    payload += _field(_NAME, code.merchant_name)
    payload += _field(_CITY, code.merchant_city)
    if code.postal_code is not None:
        payload += _field(_POSTAL_CODE, code.postal_code)
    payload += _field(_ADDITIONAL, _field(_SUB_TXID, code.txid))
    payload += _CRC + "04"
    payload += f"{crc16_ccitt_false(_utf8(payload)):04X}"
    if len(payload) > MAX_PAYLOAD_LENGTH:
        raise BRCodeError(f"payload is {len(payload)} characters, more than {MAX_PAYLOAD_LENGTH}")
    return payload


def decode(payload: str) -> BRCode:
    """Read a payload; a precise BRCodeError subclass says what is wrong and where."""
    if not isinstance(payload, str):
        raise BRCodeError(f"payload must be a str, got {type(payload).__name__}")
    if not payload:
        raise UnknownLayoutError("payload is empty")
    if len(payload) > MAX_PAYLOAD_LENGTH:
        raise BRCodeError(f"payload is {len(payload)} characters, more than {MAX_PAYLOAD_LENGTH}")
    fields = _parse(payload, 0, "")
    _check_crc(payload, fields)

    if fields[0][0] != _PAYLOAD_FORMAT:
        raise UnknownLayoutError(
            f"field 00 (payload format) must come first, found field {fields[0][0]}"
        )
    values: dict[str, str] = {}
    for field_id, value, offset in fields:
        if field_id in values:
            raise UnknownLayoutError(f"field {field_id} appears twice (again at offset {offset})")
        values[field_id] = value
    for field_id in _MANDATORY:
        if field_id not in values:
            raise UnknownLayoutError(f"mandatory field {field_id} is missing")
    if values[_PAYLOAD_FORMAT] != "01":
        raise UnknownLayoutError(
            f"field 00 (payload format) must be '01', found {values[_PAYLOAD_FORMAT]!r}"
        )

    offsets = {field_id: offset for field_id, _, offset in fields}
    account = _subfields(values, offsets, _ACCOUNT)
    gui = account.get(_SUB_GUI)
    if gui is None:
        raise UnknownLayoutError("field 26/00 (GUI) is missing")
    if gui.lower() != GUI:
        raise UnknownLayoutError(f"field 26/00 (GUI) must be {GUI!r}, found {gui!r}")
    additional = _subfields(values, offsets, _ADDITIONAL)
    txid = additional.get(_SUB_TXID)
    if txid is None:
        raise UnknownLayoutError("field 62/05 (txid) is missing")

    code = BRCode(
        merchant_name=values[_NAME],
        merchant_city=values[_CITY],
        key=account.get(_SUB_KEY),
        location=account.get(_SUB_LOCATION),
        description=account.get(_SUB_DESCRIPTION),
        amount_centavos=_parse_amount(values[_AMOUNT]) if _AMOUNT in values else None,
        txid=txid,
        reusable=_parse_initiation(values[_INITIATION]) if _INITIATION in values else None,
        mcc=values[_MCC],
        currency=values[_CURRENCY],
        country=values[_COUNTRY],
        postal_code=values.get(_POSTAL_CODE),
    )
    _validate(code)
    return code


def parse_fields(payload: str) -> list[tuple[str, str]]:
    """The top-level ``(id, value)`` pairs of a payload, in order, for diagnostics.

    Only the TLV structure is checked (no CRC, no layout).
    """
    return [(field_id, value) for field_id, value, _ in _parse(payload, 0, "")]


def _field(field_id: str, value: str) -> str:
    if len(value) > MAX_VALUE_LENGTH:
        raise BRCodeError(
            f"field {field_id} is {len(value)} characters, more than {MAX_VALUE_LENGTH}"
        )
    return field_id + _TWO_DIGITS[len(value)] + value


def _parse(text: str, base: int, parent: str) -> list[tuple[str, str, int]]:
    """(id, value, absolute offset) of each field in `text`, which starts at `base`."""
    fields: list[tuple[str, str, int]] = []
    position = 0
    while position < len(text):
        offset = base + position
        header = text[position : position + 4]
        if header[0].isspace():
            raise BRCodeError(f"unexpected whitespace at offset {offset}; strip the payload")
        if len(header) < 4:
            raise TruncatedFieldError(
                f"field header at offset {offset} is cut short: {header!r} "
                "(an ID and a length need 4 characters)"
            )
        field_id = parent + header[:2]
        if not _is_digits(header[:2]):
            raise BRCodeError(f"field ID at offset {offset} is not two digits: {header[:2]!r}")
        if not _is_digits(header[2:]):
            raise BRCodeError(
                f"field {field_id} at offset {offset} has a non-numeric length {header[2:]!r}"
            )
        length = int(header[2:])
        start = position + 4
        available = len(text) - start
        if length > available:
            raise TruncatedFieldError(
                f"field {field_id} at offset {offset} declares length {length:02d} "
                f"but only {available} character(s) follow"
            )
        fields.append((header[:2], text[start : start + length], offset))
        position = start + length
    return fields


def _check_crc(payload: str, fields: list[tuple[str, str, int]]) -> None:
    last_id, crc_text, _ = fields[-1]
    if last_id != _CRC:
        raise UnknownLayoutError(f"field 63 (CRC) must come last, found field {last_id}")
    if len(crc_text) != 4:
        raise UnknownLayoutError(f"field 63 (CRC) must be 4 characters, found {crc_text!r}")
    if _CRC_TEXT.fullmatch(crc_text) is None:
        raise BRCodeError(f"field 63 (CRC) must be 4 upper-case hex digits, found {crc_text!r}")
    expected = crc16_ccitt_false(_utf8(payload[:-4]))
    if int(crc_text, 16) != expected:
        raise CRCMismatchError(
            f"CRC mismatch: computed {expected:04X} over the payload, field 63 says {crc_text}"
        )


def _subfields(values: dict[str, str], offsets: dict[str, int], parent: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for sub_id, value, offset in _parse(values[parent], offsets[parent] + 4, parent + "/"):
        if sub_id in found:
            raise UnknownLayoutError(
                f"field {parent}/{sub_id} appears twice (again at offset {offset})"
            )
        found[sub_id] = value
    return found


def _validate(code: BRCode) -> None:
    """The rules shared by encode and decode."""
    if (code.key is None) == (code.location is None):
        raise BRCodeError("exactly one of key (static) and location (dynamic) must be set")
    _check_text("merchant_name (59)", code.merchant_name, MAX_NAME_LENGTH)
    _check_text("merchant_city (60)", code.merchant_city, MAX_CITY_LENGTH)
    if code.key is not None:
        _check_text("key (26/01)", code.key, MAX_KEY_LENGTH)
    if code.location is not None:
        _check_text("location (26/25)", code.location, MAX_VALUE_LENGTH)
        if code.location.lower().startswith(("https://", "http://")):
            raise BRCodeError("location (26/25) is written without the scheme (https://)")
    if code.description is not None:
        _check_text("description (26/02)", code.description, MAX_VALUE_LENGTH)
    if code.postal_code is not None:
        _check_text("postal_code (61)", code.postal_code, MAX_VALUE_LENGTH)
    if code.amount_centavos is not None:
        amount = code.amount_centavos
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise BRCodeError(f"amount_centavos must be an int, got {type(amount).__name__}")
        if amount < 1:
            raise BRCodeError(f"amount (54) must be positive, got {amount} centavos")
        if len(_format_amount(amount)) > MAX_AMOUNT_LENGTH:
            raise BRCodeError(
                f"amount (54) {_format_amount(amount)} is longer than {MAX_AMOUNT_LENGTH}"
            )
    if code.txid != "***" and _TXID.fullmatch(code.txid) is None:
        raise BRCodeError(
            f"txid (62/05) must be '***' or 1-{MAX_STATIC_TXID_LENGTH} characters "
            f"[a-zA-Z0-9], got {code.txid!r}"
        )
    if not (len(code.mcc) == 4 and _is_digits(code.mcc)):
        raise BRCodeError(f"mcc (52) must be 4 digits, got {code.mcc!r}")
    if not (len(code.currency) == 3 and _is_digits(code.currency)):
        raise BRCodeError(f"currency (53) must be 3 digits, got {code.currency!r}")
    if _COUNTRY_CODE.fullmatch(code.country) is None:
        raise BRCodeError(f"country (58) must be 2 upper-case letters, got {code.country!r}")
    if code.reusable is not None and not isinstance(code.reusable, bool):
        raise BRCodeError(f"reusable must be a bool or None, got {code.reusable!r}")


def _check_text(name: str, value: str, limit: int) -> None:
    if not isinstance(value, str):
        raise BRCodeError(f"{name} must be a str, got {type(value).__name__}")
    if not 1 <= len(value) <= limit:
        raise BRCodeError(f"{name} must be 1 to {limit} characters, got {len(value)}")


def _format_amount(centavos: int) -> str:
    reais, cents = divmod(centavos, 100)
    return f"{reais}.{cents:02d}"


def _parse_amount(text: str) -> int:
    match = _AMOUNT_TEXT.fullmatch(text)
    if match is None:
        raise BRCodeError(f"field 54 (amount) is not a decimal like '10.50': {text!r}")
    if len(text) > MAX_AMOUNT_LENGTH:
        raise BRCodeError(f"field 54 (amount) is longer than {MAX_AMOUNT_LENGTH}: {text!r}")
    reais, cents = match.group(1), match.group(2) or "0"
    return int(reais) * 100 + int(cents.ljust(2, "0"))


def _parse_initiation(text: str) -> bool:
    if text == "11":
        return True
    if text == "12":
        return False
    raise BRCodeError(f"field 01 (point of initiation) must be '11' or '12', got {text!r}")


def _is_digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise BRCodeError("payload contains characters that cannot be written as UTF-8") from None
