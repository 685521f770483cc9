"""Brazilian taxpayer documents: CPF (people) and CNPJ (companies).

``is_valid_*`` answer for the bare form only (CPF: 11 digits; CNPJ: 12
characters of ``[0-9A-Z]`` then 2 digits), which is how the service sends and
takes documents. ``normalize_*`` accept the usual punctuation and return the
bare form, or raise :class:`DocumentError`. Every public function raises
:class:`DocumentError` for an argument that is not a ``str``.

Check digits follow the Receita Federal rules, including the alphanumeric
CNPJ issued from July 2026, where a character is worth ``ord(c) - 48``
(``"0"`` = 0 ... ``"9"`` = 9, ``"A"`` = 17 ... ``"Z"`` = 42).
"""

import re
import string
from typing import Final

from pixops.errors import PixopsError

__all__ = [
    "DocumentError",
    "cnpj_check_digits",
    "cpf_check_digits",
    "format_cnpj",
    "format_cpf",
    "is_valid_cnpj",
    "is_valid_cpf",
    "normalize_cnpj",
    "normalize_cpf",
    "only_digits",
]

_CPF_WEIGHTS_1: Final = tuple(range(10, 1, -1))
_CPF_WEIGHTS_2: Final = tuple(range(11, 1, -1))
_CNPJ_WEIGHTS_1: Final = (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)
_CNPJ_WEIGHTS_2: Final = (6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)

_CPF_RE: Final = re.compile(r"[0-9]{11}")
_CPF_BODY_RE: Final = re.compile(r"[0-9]{9}")
_CNPJ_RE: Final = re.compile(r"[0-9A-Z]{12}[0-9]{2}")
_CNPJ_BODY_RE: Final = re.compile(r"[0-9A-Z]{12}")

_CPF_PUNCTUATION: Final = str.maketrans("", "", ".-")
_CNPJ_PUNCTUATION: Final = str.maketrans(string.ascii_lowercase, string.ascii_uppercase, "./-")


class DocumentError(PixopsError, ValueError):
    """A CPF or CNPJ that is malformed, has wrong check digits, or is not a str."""


def only_digits(value: str) -> str:
    """Return the ASCII digits of ``value`` in order, dropping everything else."""
    _require_str(value)
    return "".join(char for char in value if char in string.digits)


def cpf_check_digits(first_nine: str) -> str:
    """Return the two CPF check digits for the first nine digits."""
    _require_str(first_nine)
    if not _CPF_BODY_RE.fullmatch(first_nine):
        raise DocumentError(f"CPF body must be exactly 9 digits, got {first_nine!r}")
    first = _mod11_digit(first_nine, _CPF_WEIGHTS_1)
    second = _mod11_digit(first_nine + first, _CPF_WEIGHTS_2)
    return first + second


def is_valid_cpf(value: str) -> bool:
    """Tell whether ``value`` is a valid bare CPF: 11 digits, right check digits.

    Punctuation makes it invalid (use :func:`normalize_cpf`), and so do
    all-equal digits such as ``"11111111111"``, which pass the checksum but are
    never issued.
    """
    _require_str(value)
    return _cpf_problem(value) is None


def normalize_cpf(value: str) -> str:
    """Return the bare 11-digit CPF, accepting ``.`` and ``-`` anywhere.

    Raises :class:`DocumentError` for any other character or an invalid CPF.
    """
    _require_str(value)
    bare = value.translate(_CPF_PUNCTUATION)
    problem = _cpf_problem(bare)
    if problem is not None:
        raise DocumentError(f"invalid CPF {value!r}: {problem}")
    return bare


def format_cpf(value: str) -> str:
    """Format a CPF as ``"529.982.247-25"`` after validating it like :func:`normalize_cpf`."""
    bare = normalize_cpf(value)
    return f"{bare[:3]}.{bare[3:6]}.{bare[6:9]}-{bare[9:]}"


def cnpj_check_digits(first_twelve: str) -> str:
    """Return the two CNPJ check digits for the first twelve characters.

    The body may be numeric or alphanumeric (upper-case ``A``-``Z``).
    """
    _require_str(first_twelve)
    if not _CNPJ_BODY_RE.fullmatch(first_twelve):
        raise DocumentError(
            f"CNPJ body must be exactly 12 characters of 0-9 or A-Z, got {first_twelve!r}"
        )
    first = _mod11_digit(first_twelve, _CNPJ_WEIGHTS_1)
    second = _mod11_digit(first_twelve + first, _CNPJ_WEIGHTS_2)
    return first + second


def is_valid_cnpj(value: str) -> bool:
    """Tell whether ``value`` is a valid bare CNPJ.

    Bare means 12 characters of ``[0-9A-Z]`` then 2 check digits. Punctuation
    and lower-case letters make it invalid (use :func:`normalize_cnpj`), and
    so do all-equal characters such as ``"00000000000000"``.
    """
    _require_str(value)
    return _cnpj_problem(value) is None


def normalize_cnpj(value: str) -> str:
    """Return the bare 14-character CNPJ.

    Drops ``.``, ``/`` and ``-`` anywhere and upper-cases ASCII letters.
    Raises :class:`DocumentError` for any other character or an invalid CNPJ.
    """
    _require_str(value)
    bare = value.translate(_CNPJ_PUNCTUATION)
    problem = _cnpj_problem(bare)
    if problem is not None:
        raise DocumentError(f"invalid CNPJ {value!r}: {problem}")
    return bare


def format_cnpj(value: str) -> str:
    """Format a CNPJ as ``"11.222.333/0001-81"`` after validating it like :func:`normalize_cnpj`."""
    bare = normalize_cnpj(value)
    return f"{bare[:2]}.{bare[2:5]}.{bare[5:8]}/{bare[8:12]}-{bare[12:]}"


def _require_str(value: object) -> None:
    if not isinstance(value, str):
        raise DocumentError(f"document must be a str, got {type(value).__name__}: {value!r}")


def _mod11_digit(body: str, weights: tuple[int, ...]) -> str:
    """One check digit: 0 when the remainder is below 2, else 11 - remainder."""
    total = 0
    for char, weight in zip(body, weights, strict=True):
        total += (ord(char) - 48) * weight  # 48 is ord("0")
    remainder = total % 11
    return "0" if remainder < 2 else str(11 - remainder)


def _cpf_problem(bare: str) -> str | None:
    if not _CPF_RE.fullmatch(bare):
        return "must be exactly 11 digits"
    if len(set(bare)) == 1:
        return "all digits are equal"
    if cpf_check_digits(bare[:9]) != bare[9:]:
        return "check digits do not match"
    return None


def _cnpj_problem(bare: str) -> str | None:
    if not _CNPJ_RE.fullmatch(bare):
        return "must be 12 characters of 0-9 or A-Z followed by 2 digits"
    if len(set(bare)) == 1:
        return "all characters are equal"
    if cnpj_check_digits(bare[:12]) != bare[12:]:
        return "check digits do not match"
    return None
