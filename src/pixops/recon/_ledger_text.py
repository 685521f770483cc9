"""Amounts a ledger writes as text, the pt-BR way (``1.234,56``) or the other (``1,234.56``):
which decimal mark a column uses, said by its cells and never guessed, and each cell in
base units with integer arithmetic only.

A cell is decisive when only one mark reads it (``13,18``, ``1.234,56``, ``1234.5``);
``1.234`` and ``12,500`` read both ways (thousands or a decimal) and are decided by the
column's decisive cells, or by the setting when there are none.
"""

from __future__ import annotations

import re
from typing import Final, Literal

from pixops.money import MoneyError, check_int64

__all__ = [
    "Mark",
    "MixedMarksError",
    "OutOfRangeError",
    "amount_base",
    "cell_mark",
    "column_mark",
]

Mark = Literal["comma", "point"]

#: A number with a decimal comma: dots between groups of three (no leading zero), or none.
_COMMA: Final = re.compile(r"(?P<int>[1-9][0-9]{0,2}(?:\.[0-9]{3})+|[0-9]+)(?:,(?P<frac>[0-9]+))?")
_POINT: Final = re.compile(r"(?P<int>[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]+)(?:\.(?P<frac>[0-9]+))?")
_PATTERNS: Final[dict[str, re.Pattern[str]]] = {"comma": _COMMA, "point": _POINT}
_MAX_TEXT: Final = 64


class OutOfRangeError(MoneyError):
    """An amount outside the signed 64-bit range of base units."""


class MixedMarksError(ValueError):
    """A column whose cells say both decimal marks (``1.234,56`` and ``1,234.56``)."""

    def __init__(self, comma_cell: str, point_cell: str) -> None:
        super().__init__(f"{comma_cell!r} has a decimal comma and {point_cell!r} a decimal point")
        self.comma_cell = comma_cell
        self.point_cell = point_cell


def _number(cell: str) -> tuple[bool, str]:
    """(negative, the number's text): spaces, one leading ``-`` and an ``R$`` taken off."""
    text = cell.strip()
    negative = text.startswith("-")
    text = text.removeprefix("-").strip()
    if text.startswith("R$"):
        text = text.removeprefix("R$").strip()
    if not negative and text.startswith("-"):  # R$ -1,00
        negative, text = True, text[1:].strip()
    return negative, text


def cell_mark(cell: str) -> Mark | Literal["whole", "either", "neither"]:
    """Which decimal mark reads ``cell``: one of them, ``whole`` (digits only), ``either``
    (``1.234``: thousands one way, a decimal the other) or ``neither`` (not a number)."""
    _, number = _number(cell)
    if len(number) > _MAX_TEXT:
        return "neither"
    if number.isascii() and number.isdigit():
        return "whole"
    comma = _COMMA.fullmatch(number) is not None
    point = _POINT.fullmatch(number) is not None
    if comma and point:
        return "either"
    if comma:
        return "comma"
    if point:
        return "point"
    return "neither"


def column_mark(cells: list[str | None]) -> Mark | Literal["whole", "either"]:
    """The decimal mark a column's cells say: the one its decisive cells use, ``whole``
    when every cell is digits only, ``either`` when the only cells with a mark read both
    ways. Cells that are not numbers are left to the parser, which names them; cells
    with both marks raise `MixedMarksError`."""
    first: dict[str, str] = {}
    for cell in cells:
        if cell is None or not cell.strip():
            continue
        mark = cell_mark(cell)
        first.setdefault(mark, cell)
        if "comma" in first and "point" in first:
            raise MixedMarksError(first["comma"], first["point"])
    if "comma" in first:
        return "comma"
    if "point" in first:
        return "point"
    return "either" if "either" in first else "whole"


def amount_base(cell: str, mark: Mark | None, factor: int) -> int:
    """``cell``, an amount of a unit of ``factor`` base units (10000: reais, which may
    have up to four decimals; centavos and base units are whole) written with the decimal
    ``mark`` (None: digits only), in base units; a fraction of the unit's step, text that
    is not such an amount, and a value outside 64 bits raise `MoneyError` saying which."""
    negative, number = _number(cell)
    if mark is None or (number.isascii() and number.isdigit()):
        if not (number.isascii() and number.isdigit()) or len(number) > _MAX_TEXT:
            raise MoneyError("not a whole number")
        integer, fraction = number, ""
    else:
        found = _PATTERNS[mark].fullmatch(number) if len(number) <= _MAX_TEXT else None
        if found is None:
            other = "point" if mark == "comma" else "comma"
            said = (
                f"; it reads with a decimal {other}" if _PATTERNS[other].fullmatch(number) else ""
            )
            raise MoneyError(f"not an amount written with a decimal {mark}{said}")
        integer = found["int"].replace("." if mark == "comma" else ",", "")
        fraction = found["frac"] or ""
    # Reais have decimals (four are whole base units); centavos and base units are whole.
    places = 4 if factor == 10_000 else 0
    if fraction[places:].strip("0"):
        raise MoneyError("a fraction of a base unit (R$ 0,0001)" if places else "not whole")
    digits = int(integer) * factor + int(fraction[:places].ljust(places, "0") or "0")
    try:
        return check_int64(-digits if negative else digits)
    except MoneyError:
        raise OutOfRangeError("outside the signed 64-bit range of base units") from None
