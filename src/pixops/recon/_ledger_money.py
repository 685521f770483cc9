"""A ledger's money columns in base units: one decimal mark and one unit for the amount
and the fee, as given or as their cells say, converted with integer arithmetic; a bad
cell is named by where it is."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

from pixops.money import MoneyError, check_int64, parse_base
from pixops.recon._ledger_source import Source, column_of, is_text
from pixops.recon._ledger_text import (
    Mark,
    MixedMarksError,
    OutOfRangeError,
    amount_base,
    column_mark,
)
from pixops.recon._mapping import PER_UNIT, LedgerError, LedgerMapping, Unit

__all__ = ["LedgerMoney", "money_columns"]


@dataclass(frozen=True)
class LedgerMoney:
    """The money columns as base units, with the decimal mark and unit they were read in."""

    amount: pa.Array
    fee: pa.Array
    mark: str
    unit: Unit


def money_columns(source: Source, mapping: LedgerMapping) -> LedgerMoney:
    """The amount and fee columns in base units: one decimal mark and one unit for both,
    as given or as their cells say (asked for when they could be read two ways)."""
    table = source.table
    names = [mapping.amount, *([] if mapping.fee is None else [mapping.fee])]
    columns = {name: column_of(table, name, pa.string()) for name in names}
    for name, column in columns.items():
        if pa.types.is_floating(column.type):
            raise LedgerError(
                f"column {name!r} is {column.type}: write amounts as integers or text, not"
                " floats (pandas reads a column with an empty cell as floats: give the"
                " file's path, or read it with dtype=str)"
            )
    cells = {name: column.to_pylist() for name, column in columns.items() if is_text(column)}
    mark = _mark(cells, mapping, source)
    unit = _unit(columns, cells, mark, mapping)
    amount = _money(source, mapping.amount, columns[mapping.amount], cells, unit, mark)
    fee = (
        pa.nulls(table.num_rows, pa.int64())
        if mapping.fee is None
        else _money(source, mapping.fee, columns[mapping.fee], cells, unit, mark)
    )
    return LedgerMoney(amount, fee, mark or "whole", unit)


def _mark(
    cells: Mapping[str, list[str | None]], mapping: LedgerMapping, source: Source
) -> Mark | None:
    """The decimal mark given, else the one the cells say (None: digits only)."""
    if mapping.decimal is not None:
        return mapping.decimal
    said: list[str] = []
    for name, values in cells.items():
        try:
            said.append(column_mark(values))
        except MixedMarksError as error:
            raise LedgerError(
                f"column {name!r}: {error}: say which the ledger uses (--decimal comma or"
                " point; decimal in a mapping file)"
            ) from None
    marks = {mark for mark in said if mark in ("comma", "point")}
    if len(marks) > 1:
        raise LedgerError(
            "the amount and fee columns use different decimal marks: say which the ledger"
            " uses (--decimal comma or point; decimal in a mapping file)"
        )
    if marks:
        return marks.pop()  # type: ignore[return-value]
    if "either" in said:
        name = next(n for n, mark in zip(cells, said, strict=True) if mark == "either")
        example = next(c for c in cells[name] if c and any(sep in c for sep in ".,")).strip()
        raise LedgerError(
            f"column {name!r}: {example!r} reads as thousands with a decimal comma or as a"
            " decimal with a decimal point, and no cell says which: give --decimal comma or"
            " --decimal point (decimal in a mapping file)"
        )
    return None


def _unit(
    columns: Mapping[str, pa.ChunkedArray],
    cells: Mapping[str, list[str | None]],
    mark: Mark | None,
    mapping: LedgerMapping,
) -> Unit:
    """The unit given or named by the amount column, else reais when an amount has
    decimals (centavos and base units are whole); whole numbers alone are asked about."""
    given = mapping.unit_for(mapping.amount)
    if given is not None:
        return given
    separator = {"comma": ",", "point": "."}.get(mark or "")
    for name, column in columns.items():
        if separator is not None and any(
            c is not None and separator in c for c in cells.get(name, ())
        ):
            return "reais"
        if pa.types.is_decimal(column.type) and any(
            v is not None and v != v.to_integral_value() for v in column.to_pylist()
        ):
            return "reais"
    raise LedgerError(
        f"column {mapping.amount!r} holds whole numbers: say their unit with --amount-unit"
        " reais, centavos or base (amount_unit in a mapping file or LedgerMapping;"
        " R$ 1,00 is 1 real, 100 centavos, 10000 base units)"
    )


def _money(
    source: Source,
    name: str,
    column: pa.ChunkedArray,
    cells: Mapping[str, list[str | None]],
    unit: Unit,
    mark: Mark | None,
) -> pa.Array:
    """Integers of ``unit`` or money text, to base units; a bad cell is named by where
    it is (`Source.where`)."""
    factor = PER_UNIT[unit]
    if pa.types.is_decimal(column.type):  # exact: Decimal reais (`frames.reais_decimal`)
        return pa.array(
            [
                None if cell is None else _decimal_cell(cell, unit, factor, name, source.where(n))
                for n, cell in enumerate(column.to_pylist())
            ],
            type=pa.int64(),
        )
    if pa.types.is_integer(column.type):
        try:
            values = column.cast(pa.int64()).combine_chunks()
            return pc.multiply_checked(values, pa.scalar(factor, pa.int64()))
        except pa.ArrowInvalid:
            raise LedgerError(f"column {name!r} overflows 64-bit base units") from None
    if name not in cells:
        raise LedgerError(f"column {name!r} must hold integers or text, not {column.type}")
    converted: list[int | None] = []
    for n, cell in enumerate(cells[name]):
        if cell is None or not cell.strip():
            converted.append(None)
            continue
        converted.append(_money_cell(cell, unit, factor, mark, name, source.where(n)))
    return pa.array(converted, type=pa.int64())


#: How a bad cell's message names each unit, with what a whole amount of it looks like.
_UNIT_WORDS: Final = {
    "base": "base units (R$ 1,00 is 10000)",
    "centavos": "centavos (R$ 1,00 is 100)",
    "reais": "reais",
}


def _money_cell(cell: str, unit: str, factor: int, mark: Mark | None, name: str, where: str) -> int:
    try:
        try:
            return amount_base(cell, mark, factor)
        except OutOfRangeError:
            raise
        except MoneyError as error:
            if unit == "reais":
                if mark is None:  # digits expected: say what the cell is instead
                    parse_base(cell)
                raise MoneyError(f"{error} of reais") from None
            hint = ""
            with contextlib.suppress(MoneyError):  # reais text: say how to read it
                parse_base(cell) if mark is None else amount_base(cell, mark, 10_000)
                hint = (
                    "; for amounts in reais give --amount-unit reais"
                    " (LedgerMapping(amount_unit='reais'))"
                )
            raise MoneyError(f"not a whole number of {_UNIT_WORDS[unit]}{hint}") from None
    except MoneyError as error:
        raise LedgerError(f"{where}, column {name!r}: {cell!r}: {error}") from None


def _decimal_cell(cell: Decimal, unit: str, factor: int, name: str, where: str) -> int:
    """A Decimal amount of ``unit`` in base units, exactly; a fraction of the unit's
    smallest step (a fifth decimal of reais, a fraction of a centavo) is refused."""
    try:
        if unit == "reais":
            return parse_base(cell)
        if not cell.is_finite() or cell != cell.to_integral_value():
            raise MoneyError(f"not a whole number of {_UNIT_WORDS[unit]}")
        return check_int64(int(cell) * factor)
    except MoneyError as error:
        raise LedgerError(f"{where}, column {name!r}: {cell}: {error}") from None
