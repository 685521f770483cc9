"""Exact money amounts in centavos and base units.

The service takes request amounts in centavos (1.00 BRL = 100) and returns
amounts in base units (1.00 BRL = 10000). Everything here works on ``int`` and
``Decimal``; floats are refused because they cannot hold 0.10 exactly.

Money is shown to people by one function, `format_brl_base` (pt-BR, never a non-zero
digit hidden: ``R$ 0,1305``, ``R$ 0,13``, ``R$ 1.234,50``), in every panel, table,
chart label, report, command line and export.

Text amounts (``parse_centavos``, ``parse_base``) follow these rules:

* Surrounding spaces are ignored. An optional ``-`` comes first, then an
  optional ``R$`` prefix (spaces may follow it), then the number, so
  ``"-R$ 1.234,56"`` (what :func:`format_brl` writes) is accepted. No ``+``.
* The number is one of:

  - plain digits: ``"12"``;
  - one decimal point: ``"12.34"``, ``"1234.5"``;
  - one decimal comma: ``"12,34"``, ``"1234,56"``;
  - pt-BR grouping, dots between groups of three with an optional decimal
    comma: ``"1.234,56"``, ``"1.234.567"``.

* US grouping (a comma before a dot, ``"1,234.56"``), thousands grouped by
  spaces (``"1 000,00"``, said so in the error) and any other form are
  refused: only pt-BR grouping is accepted, since accepting both groupings
  would turn every amount with a separator into a guess.
* A single ``.`` or ``,`` after one to three digits (no leading zero) and
  followed by exactly three digits (``"1.234"``, ``"12,500"``) is ambiguous
  between pt-BR thousands and a decimal mark. It is refused rather than
  guessed, because a wrong guess is a factor of 1000. Write ``"1234"``,
  ``"1.234,00"`` or ``"1.2340"`` instead. ``"0.123"`` and ``"1234.567"`` are
  not ambiguous (thousands groups never look like that) and are accepted.
* Only ASCII digits count, and text longer than 64 characters is refused.
"""

import re
from decimal import Decimal
from typing import Final, NewType

from pixops.errors import PixopsError

__all__ = [
    "CENTAVO_IN_BASE",
    "INT64_MAX",
    "INT64_MIN",
    "BaseUnits",
    "Centavos",
    "MoneyError",
    "base_to_centavos",
    "centavos_to_base",
    "check_int64",
    "format_brl",
    "format_brl_base",
    "format_brl_display",
    "parse_base",
    "parse_centavos",
]

CENTAVO_IN_BASE: Final = 100
"""Base units in one centavo (1 centavo = 100 base units)."""

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1

Centavos = NewType("Centavos", int)
"""Request unit: 1.00 BRL = 100."""

BaseUnits = NewType("BaseUnits", int)
"""Response unit: 1.00 BRL = 10000."""

_CENTAVO_PLACES: Final = 2
_BASE_PLACES: Final = 4
_MAX_TEXT_LENGTH: Final = 64

_PLAIN_RE: Final = re.compile(r"(?P<int>[0-9]+)")
_DECIMAL_RE: Final = re.compile(r"(?P<int>[0-9]+)[.,](?P<frac>[0-9]+)")
_GROUPED_RE: Final = re.compile(r"(?P<int>[1-9][0-9]{0,2}(?:\.[0-9]{3})+)(?:,(?P<frac>[0-9]+))?")
_AMBIGUOUS_RE: Final = re.compile(r"[1-9][0-9]{0,2}[.,][0-9]{3}")
_SPACE_GROUPED_RE: Final = re.compile(r"[0-9]{1,3}(?:[ \u00a0\u202f][0-9]{3})+(?:[.,][0-9]+)?")


class MoneyError(PixopsError, ValueError):
    """An amount that is not an exact, in-range value of the wanted unit."""


def check_int64(value: int) -> int:
    """Return ``value`` if it is an ``int`` in the signed 64-bit range.

    The service stores amounts as signed 64-bit integers; anything outside
    would be truncated or rejected there, so it is refused here first.
    ``bool`` is refused although it is an ``int`` subclass.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise MoneyError(f"amount must be an int, got {type(value).__name__}: {value!r}")
    if not INT64_MIN <= value <= INT64_MAX:
        raise MoneyError(f"amount {value} is outside the signed 64-bit range")
    return value


def centavos_to_base(amount_centavos: int) -> int:
    """Convert centavos (request unit) to base units (response unit)."""
    check_int64(amount_centavos)
    return check_int64(amount_centavos * CENTAVO_IN_BASE)


def base_to_centavos(amount_base: int) -> int:
    """Convert base units to centavos; refuse a fraction of a centavo."""
    check_int64(amount_base)
    centavos, remainder = divmod(amount_base, CENTAVO_IN_BASE)
    if remainder:
        raise MoneyError(f"{amount_base} base units is not a whole number of centavos")
    return centavos


def parse_centavos(value: str | Decimal | int) -> int:
    """Parse an amount in reais into centavos.

    A ``str`` or ``Decimal`` is an amount in reais (``"12.34"`` -> 1234).
    An ``int`` is already a count of centavos and is only range-checked.
    See the module docstring for the accepted text forms.
    """
    return _parse(value, _CENTAVO_PLACES, "centavos")


def parse_base(value: str | Decimal | int) -> int:
    """Parse an amount in reais into base units.

    A ``str`` or ``Decimal`` is an amount in reais (``"12.3456"`` -> 123456).
    An ``int`` is already a count of base units and is only range-checked.
    See the module docstring for the accepted text forms.
    """
    return _parse(value, _BASE_PLACES, "base units")


def format_brl(amount_centavos: int) -> str:
    """Centavos (a request's unit) as pt-BR reais: ``"R$ 1.234,56"``, ``"-R$ 0,05"``;
    the same text as `format_brl_base` of the same amount in base units."""
    check_int64(amount_centavos)
    reais, centavos = divmod(abs(amount_centavos), 10**_CENTAVO_PLACES)
    return _format(amount_centavos < 0, reais, centavos, _CENTAVO_PLACES)


def format_brl_base(amount_base: int) -> str:
    """Base units as pt-BR reais: THE rule for showing money to people, everywhere.

    Never hides a digit that is not zero, so two figures that look equal are equal: two
    decimals when the amount is whole centavos (``"R$ 1.234,50"``, ``"R$ 0,13"``), all
    four when it has a fraction of a centavo (``"R$ 0,1305"``, ``"-R$ 0,0050"``).
    `parse_base` reads the text back to the same base units.
    """
    check_int64(amount_base)
    if amount_base % CENTAVO_IN_BASE == 0:
        return format_brl(amount_base // CENTAVO_IN_BASE)
    reais, fraction = divmod(abs(amount_base), 10**_BASE_PLACES)
    return _format(amount_base < 0, reais, fraction, _BASE_PLACES)


#: The same function as `format_brl_base` (its earlier name rounded to the centavo and
#: hid sub-centavo digits; it now follows the one rule).
format_brl_display = format_brl_base


def _format(negative: bool, reais: int, fraction: int, places: int) -> str:
    grouped = f"{reais:,}".replace(",", ".")
    sign = "-" if negative else ""
    return f"{sign}R$ {grouped},{fraction:0{places}d}"


def _parse(value: object, places: int, unit: str) -> int:
    if isinstance(value, bool):
        raise MoneyError(f"amount must not be a bool, got {value!r}")
    if isinstance(value, int):
        return check_int64(value)
    if isinstance(value, Decimal):
        return _parse_decimal(value, places, unit)
    if isinstance(value, str):
        return _parse_text(value, places, unit)
    if isinstance(value, float):
        raise MoneyError(f"float amounts are not accepted (inexact), got {value!r}")
    raise MoneyError(f"amount must be str, Decimal or int, got {type(value).__name__}")


def _parse_decimal(value: Decimal, places: int, unit: str) -> int:
    if not value.is_finite():
        raise MoneyError(f"amount must be finite, got Decimal({str(value)!r})")
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite, so never "n", "N" or "F"
    coefficient = int("".join(map(str, digits)))
    if coefficient == 0:
        return 0
    shift = exponent + places
    if shift >= 0:
        # 10**19 already exceeds int64; stop before building a huge int.
        if shift > 19:
            raise MoneyError(f"amount {value} is outside the signed 64-bit range of {unit}")
        amount = coefficient * 10**shift
    else:
        # A coefficient shorter than the shift cannot be a multiple of it.
        if -shift > len(digits) or coefficient % 10**-shift:
            raise MoneyError(f"amount {value} is not a whole number of {unit}")
        amount = coefficient // 10**-shift
    amount = -amount if sign else amount
    try:
        return check_int64(amount)
    except MoneyError:
        raise MoneyError(f"amount {value} is outside the signed 64-bit range of {unit}") from None


def _parse_text(text: str, places: int, unit: str) -> int:
    number = text.strip()
    if not number:
        raise MoneyError(f"amount is empty: {text!r}")
    if len(number) > _MAX_TEXT_LENGTH:
        raise MoneyError(f"amount text is too long ({len(number)} characters)")
    negative = number.startswith("-")
    number = number.removeprefix("-")
    if number.startswith("R$"):
        number = number.removeprefix("R$").lstrip()
    if _AMBIGUOUS_RE.fullmatch(number):
        raise MoneyError(
            f"amount {text!r} is ambiguous: a single separator followed by three digits "
            f"may be pt-BR thousands or a decimal mark; write '1234' or '1.234,00' "
            f"for thousands, or '1.2340' for a decimal"
        )
    if "," in number and "." in number and number.index(",") < number.rindex("."):
        raise MoneyError(
            f"amount {text!r} uses US-style grouping, which is not accepted; "
            f"write '1234.56' or '1.234,56'"
        )
    parts = _match_number(number)
    if parts is None and _SPACE_GROUPED_RE.fullmatch(number):
        raise MoneyError(
            f"amount {text!r} groups thousands with spaces, which is not accepted; "
            f"write '1000,00' or '1.000,00'"
        )
    if parts is None:
        raise MoneyError(f"amount {text!r} is not a number in a supported format")
    integer = parts["int"].replace(".", "")
    fraction = parts.groupdict().get("frac") or ""
    if fraction[places:].strip("0"):
        raise MoneyError(f"amount {text!r} is not a whole number of {unit}")
    amount = int(integer) * 10**places + int(fraction[:places].ljust(places, "0"))
    try:
        return check_int64(-amount if negative else amount)
    except MoneyError:
        raise MoneyError(f"amount {text!r} is outside the signed 64-bit range of {unit}") from None


def _match_number(number: str) -> re.Match[str] | None:
    for pattern in (_PLAIN_RE, _DECIMAL_RE, _GROUPED_RE):
        match = pattern.fullmatch(number)
        if match is not None:
            return match
    return None
