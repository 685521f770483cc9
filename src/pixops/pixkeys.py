"""PIX keys: the five key types, auto-detection and canonical forms.

A cash-out names the recipient by key. :func:`detect_key_type` mirrors what
the service does when ``pix_key_type`` is omitted, and :func:`normalize_key`
checks a key against its type and returns the form the key directory uses.

An 11-digit key without a type may be a CPF or a mobile number, so it is
always ambiguous: :class:`AmbiguousPixKeyError` is raised and nothing is
guessed, even when the digits are not a valid CPF. Every public function
raises :class:`PixKeyError` for a key that is not a ``str``.
"""

import re
from collections.abc import Callable
from enum import StrEnum
from typing import Final

from pixops.documents import cnpj_check_digits, cpf_check_digits
from pixops.errors import PixopsError

__all__ = [
    "BRAZILIAN_AREA_CODES",
    "MAX_KEY_LENGTH",
    "AmbiguousPixKeyError",
    "PixKeyError",
    "PixKeyType",
    "detect_key_type",
    "is_valid_key",
    "normalize_key",
    "parse_key_type",
]


class PixKeyType(StrEnum):
    """The key types the service takes in ``pix_key_type``."""

    CPF = "cpf"
    CNPJ = "cnpj"
    EMAIL = "email"
    PHONE = "phone"
    EVP = "evp"


class PixKeyError(PixopsError, ValueError):
    """A key that is invalid for its type, or whose type cannot be detected."""


class AmbiguousPixKeyError(PixKeyError):
    """An 11-digit key without an explicit type: it may be a CPF or a phone."""


MAX_KEY_LENGTH: Final = 77
"""Longest key of any type, in characters."""

_AREA_CODES_BY_STATE: Final = {
    "SP": (11, 12, 13, 14, 15, 16, 17, 18, 19),
    "RJ": (21, 22, 24),
    "ES": (27, 28),
    "MG": (31, 32, 33, 34, 35, 37, 38),
    "PR": (41, 42, 43, 44, 45, 46),
    "SC": (47, 48, 49),
    "RS": (51, 53, 54, 55),
    "DF": (61,),
    "GO": (62, 64),
    "TO": (63,),
    "MT": (65, 66),
    "MS": (67,),
    "AC": (68,),
    "RO": (69,),
    "BA": (71, 73, 74, 75, 77),
    "SE": (79,),
    "PE": (81, 87),
    "AL": (82,),
    "PB": (83,),
    "RN": (84,),
    "CE": (85, 88),
    "PI": (86, 89),
    "PA": (91, 93, 94),
    "AM": (92, 97),
    "RR": (95,),
    "AP": (96,),
    "MA": (98, 99),
}

BRAZILIAN_AREA_CODES: Final = frozenset(
    code for codes in _AREA_CODES_BY_STATE.values() for code in codes
)
"""The 67 two-digit area codes (DDD) in use in Brazil, per Anatel's numbering plan."""

_ELEVEN_DIGITS_RE: Final = re.compile(r"[0-9]{11}")
_PHONE_RE: Final = re.compile(r"(?:\+55)?(?P<national>[0-9]{11})")
_CNPJ_SHAPE_RE: Final = re.compile(r"[0-9A-Z]{12}[0-9]{2}")
_CNPJ_KEY_RE: Final = re.compile(r"[0-9A-Za-z]{12}[0-9]{2}")
_UUID_RE: Final = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
# The WHATWG HTML e-mail pattern in lower case, with at least one dot in the domain.
_EMAIL_RE: Final = re.compile(
    r"[a-z0-9.!#$%&'*+/=?^_`{|}~-]+"
    r"@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
    r"(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+"
)

_ALLOWED_TYPES: Final = ", ".join(repr(key_type.value) for key_type in PixKeyType)


def parse_key_type(value: str) -> PixKeyType:
    """Return the key type named exactly (lower case) as the service spells it."""
    try:
        return PixKeyType(value)
    except ValueError:
        raise PixKeyError(f"unknown PIX key type {value!r}; allowed: {_ALLOWED_TYPES}") from None


def detect_key_type(key: str) -> PixKeyType:
    """Detect a key's type from its shape, as the service does without ``pix_key_type``.

    In order: 11 digits is ambiguous (:class:`AmbiguousPixKeyError`);
    ``+55`` and 11 digits is a phone; 12 characters of ``[0-9A-Z]`` and 2
    digits is a CNPJ; anything with ``@`` is an e-mail; a hyphenated UUID is
    an EVP. Only the shape is looked at; :func:`normalize_key` validates.
    """
    _require_str(key)
    if _ELEVEN_DIGITS_RE.fullmatch(key):
        raise AmbiguousPixKeyError(
            f"key {key!r} has 11 digits and may be a CPF or a phone number; "
            f"pass the key type explicitly"
        )
    if key.startswith("+55") and _ELEVEN_DIGITS_RE.fullmatch(key[3:]):
        return PixKeyType.PHONE
    if _CNPJ_SHAPE_RE.fullmatch(key):
        return PixKeyType.CNPJ
    if "@" in key:
        return PixKeyType.EMAIL
    if _UUID_RE.fullmatch(key):
        return PixKeyType.EVP
    raise PixKeyError(f"cannot detect the type of PIX key {key!r}")


def normalize_key(key: str, key_type: PixKeyType) -> str:
    """Validate ``key`` as a ``key_type`` key and return its canonical form.

    * cpf: 11 digits, no punctuation, valid check digits.
    * cnpj: 14 characters, no punctuation, valid check digits; letters are
      upper-cased.
    * email: lower-cased; one ``@``, a non-empty local part, a domain with a
      dot, ASCII only, no spaces.
    * phone: 11 digits or ``+55`` and 11 digits; a real area code and a
      9-digit mobile number starting with 9; returned as ``+55`` + 11 digits.
    * evp: a hyphenated UUID version 4 (RFC 4122 variant), returned lower-cased.

    Any key longer than :data:`MAX_KEY_LENGTH` is refused.
    """
    _require_str(key)
    normalizer = _normalizer_for(key_type)
    if len(key) > MAX_KEY_LENGTH:
        raise PixKeyError(f"PIX key is {len(key)} characters long; at most {MAX_KEY_LENGTH}")
    return normalizer(key)


def is_valid_key(key: str, key_type: PixKeyType) -> bool:
    """Tell whether ``key`` is a valid ``key_type`` key.

    A key that is not a ``str`` or an unknown key type still raises
    :class:`PixKeyError`: those are programming errors, not invalid keys.
    """
    _require_str(key)
    _normalizer_for(key_type)
    try:
        normalize_key(key, key_type)
    except PixKeyError:
        return False
    return True


def _require_str(key: object) -> None:
    if not isinstance(key, str):
        raise PixKeyError(f"PIX key must be a str, got {type(key).__name__}: {key!r}")


def _normalizer_for(key_type: PixKeyType) -> Callable[[str], str]:
    try:
        return _NORMALIZERS[PixKeyType(key_type)]
    except ValueError:
        raise PixKeyError(f"unknown PIX key type {key_type!r}; allowed: {_ALLOWED_TYPES}") from None


def _normalize_cpf(key: str) -> str:
    if not _ELEVEN_DIGITS_RE.fullmatch(key):
        raise PixKeyError(f"CPF key {key!r} must be exactly 11 digits without punctuation")
    if len(set(key)) == 1:
        raise PixKeyError(f"CPF key {key!r} has all digits equal")
    if cpf_check_digits(key[:9]) != key[9:]:
        raise PixKeyError(f"CPF key {key!r} has wrong check digits")
    return key


def _normalize_cnpj(key: str) -> str:
    if not _CNPJ_KEY_RE.fullmatch(key):
        raise PixKeyError(
            f"CNPJ key {key!r} must be 12 characters of 0-9 or A-Z and 2 digits, "
            f"without punctuation"
        )
    canonical = key.upper()
    if len(set(canonical)) == 1:
        raise PixKeyError(f"CNPJ key {key!r} has all characters equal")
    if cnpj_check_digits(canonical[:12]) != canonical[12:]:
        raise PixKeyError(f"CNPJ key {key!r} has wrong check digits")
    return canonical


def _normalize_email(key: str) -> str:
    if not key.isascii():
        raise PixKeyError(f"e-mail key {key!r} must be ASCII")
    canonical = key.lower()
    if canonical.count("@") != 1:
        raise PixKeyError(f"e-mail key {key!r} must contain exactly one '@'")
    local, domain = canonical.split("@")
    if not local:
        raise PixKeyError(f"e-mail key {key!r} has an empty local part")
    if "." not in domain:
        raise PixKeyError(f"e-mail key {key!r} needs a domain with a dot")
    if not _EMAIL_RE.fullmatch(canonical):
        raise PixKeyError(f"e-mail key {key!r} is not a valid address")
    return canonical


def _normalize_phone(key: str) -> str:
    match = _PHONE_RE.fullmatch(key)
    if match is None:
        raise PixKeyError(f"phone key {key!r} must be 11 digits (DDD + number), optionally '+55'")
    national = match["national"]
    if int(national[:2]) not in BRAZILIAN_AREA_CODES:
        raise PixKeyError(f"phone key {key!r} has unknown area code (DDD) {national[:2]}")
    if national[2] != "9":
        raise PixKeyError(f"phone key {key!r} must be a mobile number starting with 9")
    return "+55" + national


def _normalize_evp(key: str) -> str:
    if not _UUID_RE.fullmatch(key):
        raise PixKeyError(
            f"EVP key {key!r} must be a UUID like xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"
        )
    canonical = key.lower()
    if canonical[14] != "4":
        raise PixKeyError(f"EVP key {key!r} must be a UUID version 4, got version {canonical[14]}")
    if canonical[19] not in "89ab":
        raise PixKeyError(f"EVP key {key!r} must have the RFC 4122 variant (8, 9, a or b)")
    return canonical


_NORMALIZERS: Final[dict[PixKeyType, Callable[[str], str]]] = {
    PixKeyType.CPF: _normalize_cpf,
    PixKeyType.CNPJ: _normalize_cnpj,
    PixKeyType.EMAIL: _normalize_email,
    PixKeyType.PHONE: _normalize_phone,
    PixKeyType.EVP: _normalize_evp,
}
