"""The reconciliation's ledger and webhook inputs in their canonical Arrow form.

A merchant ledger is a CSV, Parquet or DataFrame of orders and payments; `LedgerMapping`
says which of its columns hold what, in which unit and how its text is written, and what
it leaves unsaid is detected and stated (`LedgerReading.line`) or, when the file could be
read two ways, asked for. CSV cells are read as text (never through float) and converted
with integer arithmetic.
"""

from __future__ import annotations

import contextlib
import csv
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, tzinfo
from decimal import Decimal
from pathlib import Path
from typing import Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from pixops.frames import parse_day, parse_tz
from pixops.money import INT64_MAX, MoneyError, check_int64, parse_base
from pixops.recon._arrow import frame_table
from pixops.recon._database import cursor
from pixops.recon._encoding import UTF8, csv_encoding, not_text_message
from pixops.recon._ledger_extras import extra_columns
from pixops.recon._ledger_text import (
    Mark,
    MixedMarksError,
    OutOfRangeError,
    amount_base,
    column_mark,
)
from pixops.recon._mapping import (
    CANONICAL_MAPPING,
    DATE_FORMATS,
    ENCODINGS,
    MATCH_WITHOUT_REFERENCE,
    PER_UNIT,
    SEPARATORS,
    LedgerError,
    LedgerMapping,
    Unit,
    check_columns,
)
from pixops.recon._reading import LedgerReading

__all__ = [
    "CANONICAL_MAPPING",
    "LEDGER_SCHEMA",
    "WEBHOOKS_SCHEMA",
    "LedgerError",
    "LedgerHead",
    "LedgerMapping",
    "LedgerReading",
    "LoadedLedger",
    "days_or_none",
    "ledger_head",
    "load_ledger",
    "read_ledger",
    "webhooks_table",
]

LEDGER_SCHEMA: Final = pa.schema(
    [
        pa.field("entry_id", pa.string(), nullable=False),
        pa.field("reference", pa.string(), nullable=False),
        pa.field("direction", pa.string()),
        pa.field("amount_base", pa.int64(), nullable=False),
        pa.field("fee_base", pa.int64()),
        pa.field("status", pa.string()),
        pa.field("booked_on", pa.date32(), nullable=False),
    ]
)
WEBHOOKS_SCHEMA: Final = pa.schema(
    [
        pa.field("event_type", pa.string()),
        pa.field("transaction_id", pa.string()),
        pa.field("original_transaction_id", pa.string()),
        pa.field("created_at", pa.timestamp("us", tz="UTC")),
    ]
)
_DIRECTIONS: Final = ("inbound", "outbound")
_STATUSES: Final = ("settled", "rejected", "failed", "processing")


#: pt-BR words a back office writes for a status or a direction (lower case).
_STATUS_WORDS: Final = {
    **dict.fromkeys(("liquidado", "liquidada", "pago", "paga", "concluído"), "settled"),
    **dict.fromkeys(("rejeitado", "rejeitada", "recusado", "recusada"), "rejected"),
    **dict.fromkeys(("falhou", "falha", "falhado", "falhada"), "failed"),
    **dict.fromkeys(("processando", "em processamento"), "processing"),
}
_DIRECTION_WORDS: Final = {
    **dict.fromkeys(("entrada", "crédito", "credito"), "inbound"),
    **dict.fromkeys(("saída", "saida", "débito", "debito"), "outbound"),
}
_BOM: Final = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class LoadedLedger:
    """A ledger read: its table (`LEDGER_SCHEMA`, money in base units) and how it was
    read (`LedgerReading`: what was detected, the precision it is compared at)."""

    table: pa.Table
    reading: LedgerReading


@dataclass(frozen=True)
class _Source:
    """The ledger's cells as read, with where they came from: ``kind`` is ``csv``,
    ``parquet`` or ``frame`` (a cell is a line of a CSV file, a row otherwise)."""

    table: pa.Table
    kind: str
    separator: str | None = None
    encoding: str | None = None

    def where(self, index: int) -> str:
        """The cell at ``index`` (0-based) as people find it: line n (the header is line
        1) of a CSV file, row n of anything else."""
        return f"line {index + 2}" if self.kind == "csv" else f"row {index + 1}"


def _source(source: object, mapping: LedgerMapping) -> _Source:
    if isinstance(source, pa.Table):
        return _Source(source, "frame")
    if isinstance(source, pd.DataFrame):
        return _Source(_from_pandas(source, "ledger"), "frame")
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            raise LedgerError(f"{path} is a folder, not a ledger file")
        if not path.is_file():
            raise LedgerError(f"no such ledger file: {path}")
        suffix = path.suffix.lower()
        try:
            if suffix == ".parquet":
                return _Source(pq.read_table(path), "parquet")
            if suffix in (".csv", ".txt"):
                return _read_csv(path, mapping)
        except (pa.ArrowInvalid, OSError) as error:
            raise LedgerError(f"cannot read {path}: {error}") from None
        raise LedgerError(f"ledger must be .csv or .parquet, not {path.name}")
    raise LedgerError(f"ledger must be a path, a DataFrame or a pyarrow.Table, not {source!r}")


def _from_pandas(frame: pd.DataFrame, what: str) -> pa.Table:
    """The frame as Arrow; a column Arrow cannot type (mixed values) is named, not leaked."""
    return frame_table(frame, what, LedgerError)


def _encoding_of(path: Path, mapping: LedgerMapping) -> str:
    given = None if mapping.encoding is None else ENCODINGS[mapping.encoding]
    try:
        return csv_encoding(path, given)
    except UnicodeDecodeError as error:
        if given is None:
            raise LedgerError(not_text_message(path, error)) from error
        other = "windows-1252" if mapping.encoding == "utf-8" else "utf-8"
        raise LedgerError(
            f"{path} is not {mapping.encoding} text (it holds the byte"
            f" 0x{error.object[error.start]:02x}): give encoding {other}, or leave it out"
            " to detect it"
        ) from error


def _separator_of(header: str, path: Path, mapping: LedgerMapping) -> str:
    """The separator given, else the one the header line uses most; a header using two
    of them as often is asked about, not guessed."""
    if mapping.separator is not None:
        return SEPARATORS[mapping.separator]
    counts = sorted(((header.count(sep), name) for name, sep in SEPARATORS.items()), reverse=True)
    (most, name), (next_most, other) = counts[0], counts[1]
    if most and most == next_most:
        raise LedgerError(
            f"{path}: the header line holds as many {name}s as {other}s: say which separates"
            f" the fields (--separator {name} or {other}; separator in a mapping file)"
        )
    return SEPARATORS[name] if most else ","


def _read_csv(path: Path, mapping: LedgerMapping) -> _Source:
    """Every cell as text: money and ids never pass through float or int guessing. The
    text is UTF-8 or, failing that, Windows-1252 (Excel's plain "CSV" in Brazil; a byte
    order mark before it is skipped too); the separator is the one the header line uses
    most."""
    encoding = _encoding_of(path, mapping)
    with path.open("rb") as raw:
        skip = len(_BOM) if raw.read(len(_BOM)) == _BOM else 0
        raw.seek(skip)
        header = raw.readline().decode(encoding)
        header_only = raw.read(1) == b""
    separator = _separator_of(header, path, mapping)
    encoding_name = next(name for name, codec in ENCODINGS.items() if codec == encoding)
    separator_name = next(name for name, sep in SEPARATORS.items() if sep == separator)
    names = next(csv.reader([header.lstrip("\ufeff")], delimiter=separator), [])
    if not names:
        raise LedgerError(f"{path} has no header row")
    if header_only:  # Arrow cannot read a header alone without its line end
        table = pa.Table.from_arrays([pa.array([], pa.string()) for _ in names], names=names)
        return _Source(table, "csv", separator_name, encoding_name)
    try:
        with path.open("rb") as raw:
            raw.seek(0 if encoding == UTF8 else skip)  # Arrow skips a UTF-8 mark itself
            table = pa_csv.read_csv(
                raw,
                # Arrow reads UTF-8 itself; other text it recodes.
                read_options=pa_csv.ReadOptions(encoding="utf8" if encoding == UTF8 else encoding),
                parse_options=pa_csv.ParseOptions(delimiter=separator),
                convert_options=pa_csv.ConvertOptions(
                    column_types={name: pa.string() for name in names},
                    strings_can_be_null=True,
                ),
            )
    except pa.ArrowInvalid as error:
        uneven = _UNEVEN_ROW.match(str(error))
        if uneven is None:
            raise
        expected, got, text = uneven.groups()
        quoted = "a comma" if separator == "," else repr(separator)
        raise LedgerError(
            f"{path}: a line has {got} fields where the header has {expected}"
            f" ({text[:60]!r}); a field that holds {quoted} needs double quotes"
        ) from None
    return _Source(table, "csv", separator_name, encoding_name)


#: How Arrow's CSV reader words a row of the wrong width.
_UNEVEN_ROW: Final = re.compile(r"CSV parse error: Expected (\d+) columns, got (\d+): (.*)", re.S)


def _column(table: pa.Table, name: str, empty: pa.DataType) -> pa.ChunkedArray:
    """The column ``name``; one of Arrow's null type (a frame's column of None only) is
    read as empty cells of type ``empty``, as the same column of a CSV file is."""
    found = table.column_names.count(name)
    if not found:
        raise LedgerError(
            f"ledger has no column {name!r} (its columns: {', '.join(table.column_names)})"
        )
    if found > 1:
        raise LedgerError(f"ledger has {found} columns named {name!r}; which one is meant?")
    column = table.column(name)
    if pa.types.is_null(column.type):
        return pa.chunked_array([pa.nulls(table.num_rows, empty)], type=empty)
    return column


def _text(table: pa.Table, name: str, trim: bool = True) -> pa.Array:
    """The column as text; from files, surrounding whitespace removed (spreadsheets add it)."""
    column = _column(table, name, pa.string())
    if not (
        pa.types.is_integer(column.type)
        or pa.types.is_string(column.type)
        or pa.types.is_large_string(column.type)
        or pa.types.is_dictionary(column.type)
    ):
        raise LedgerError(f"column {name!r} must be text, not {column.type}")
    text = column.cast(pa.string()).combine_chunks()
    return pc.utf8_trim_whitespace(text) if trim else text


def _is_text(column: pa.ChunkedArray) -> bool:
    return bool(pa.types.is_string(column.type) or pa.types.is_large_string(column.type))


@dataclass(frozen=True)
class _Money:
    """The money columns as base units, with the decimal mark and unit they were read in."""

    amount: pa.Array
    fee: pa.Array
    mark: str
    unit: Unit


def _money_columns(source: _Source, mapping: LedgerMapping) -> _Money:
    """The amount and fee columns in base units: one decimal mark and one unit for both,
    as given or as their cells say (asked for when they could be read two ways)."""
    table = source.table
    names = [mapping.amount, *([] if mapping.fee is None else [mapping.fee])]
    columns = {name: _column(table, name, pa.string()) for name in names}
    for name, column in columns.items():
        if pa.types.is_floating(column.type):
            raise LedgerError(
                f"column {name!r} is {column.type}: write amounts as integers or text, not"
                " floats (pandas reads a column with an empty cell as floats: give the"
                " file's path, or read it with dtype=str)"
            )
    cells = {name: column.to_pylist() for name, column in columns.items() if _is_text(column)}
    mark = _mark(cells, mapping, source)
    unit = _unit(columns, cells, mark, mapping)
    amount = _money(source, mapping.amount, columns[mapping.amount], cells, unit, mark)
    fee = (
        pa.nulls(table.num_rows, pa.int64())
        if mapping.fee is None
        else _money(source, mapping.fee, columns[mapping.fee], cells, unit, mark)
    )
    return _Money(amount, fee, mark or "whole", unit)


def _mark(
    cells: Mapping[str, list[str | None]], mapping: LedgerMapping, source: _Source
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
    source: _Source,
    name: str,
    column: pa.ChunkedArray,
    cells: Mapping[str, list[str | None]],
    unit: Unit,
    mark: Mark | None,
) -> pa.Array:
    """Integers of ``unit`` or money text, to base units; a bad cell is named by where
    it is (`_Source.where`)."""
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


#: The forms a ledger day is detected in: ISO, and the pt-BR form Excel in Brazil
#: writes beside its ``;`` separator (day first, like the Excel-friendly export).
_DETECTED_DAYS: Final = ("yyyy-mm-dd", "dd/mm/yyyy")


def _days(
    table: pa.Table, name: str, zone: tzinfo, given: str | None
) -> tuple[pa.Array, str | None]:
    """The column as days, with the form its text was read in (None: not text)."""
    column = _column(table, name, pa.date32()).combine_chunks()
    if pa.types.is_date32(column.type):
        return column, None
    if pa.types.is_date64(column.type):
        return column.cast(pa.date32()), None
    if pa.types.is_timestamp(column.type):
        if column.type.tz is None:
            # A naive midnight is a day (``pd.to_datetime`` of "2026-01-15"); a naive time
            # of day would need a zone to say which day it is.
            midnight = pc.equal(column, pc.floor_temporal(column, unit="day"))
            if pc.all(midnight).as_py() is False:
                raise LedgerError(
                    f"column {name!r} holds times of day without a time zone: give days"
                    " (`.dt.date`) or time-zone-aware timestamps (`.dt.tz_localize`)"
                )
            return column.cast(pa.date32()), None
        values = [None if v is None else v.astimezone(zone).date() for v in column.to_pylist()]
        return pa.array(values, type=pa.date32()), None
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        column = pc.utf8_trim_whitespace(column)
        for shown in (given,) if given is not None else _DETECTED_DAYS:
            form = DATE_FORMATS[shown]
            try:
                days = pc.strptime(column, format=form, unit="s").cast(pa.date32())
            except pa.ArrowInvalid:
                if given is not None:
                    bad = _first_not_a_day(column, form)
                    raise LedgerError(
                        f"column {name!r}: {bad!r} is not a day written {shown.upper()}"
                    ) from None
                continue
            # strptime rolls an impossible day over (2026-02-30 reads as 2026-03-02): only
            # a day that writes back as the cell's own text is that day.
            changed = pc.invert(pc.equal(pc.strftime(days, format=form), column))
            if pc.any(changed).as_py():
                first = pc.filter(column, changed)[0].as_py()
                raise LedgerError(
                    f"column {name!r}: {first!r} is not a day written {shown.upper()}"
                )
            return days, shown
        raise LedgerError(
            f"column {name!r} must hold days as YYYY-MM-DD or DD/MM/YYYY, all in one form;"
            f" for another form give --date-format ({', '.join(DATE_FORMATS)})"
        )
    raise LedgerError(f"column {name!r} must hold dates, not {column.type}")


def _first_not_a_day(column: pa.Array, form: str) -> str:
    """The first cell that is not a day in ``form`` (cells are few to look at: it stops)."""
    from datetime import datetime

    for cell in column.to_pylist():
        if cell is None:
            continue
        try:
            datetime.strptime(cell, form)
        except ValueError:
            return str(cell)
    return ""


def _choice(
    values: pa.Array, allowed: Sequence[str], words: Mapping[str, str], name: str
) -> pa.Array:
    """The values, trimmed and lower-cased when that makes them allowed, pt-BR ``words``
    put in English (checked as they are first: a million valid cells are not rewritten;
    by equality with each allowed value, ~6x faster than hashing every cell with ``is_in``)."""
    valid = None
    for value in allowed:
        equal = pc.equal(values, value)
        valid = equal if valid is None else pc.or_(valid, equal)
    if valid is not None and pc.all(valid).as_py() is not False:  # nulls are allowed
        return values
    values = pc.utf8_trim_whitespace(values)
    lowered = pc.utf8_lower(values)
    keys = pa.array(list(words), pa.string())
    found = pc.index_in(lowered, value_set=keys)
    translated = pc.take(pa.array(list(words.values()), pa.string()), found)
    lowered = pc.if_else(pc.is_valid(found), translated, lowered)
    bad = pc.and_(pc.is_valid(lowered), pc.invert(pc.is_in(lowered, pa.array(list(allowed)))))
    if pc.any(bad).as_py():
        first = pc.filter(values, bad)[0].as_py()
        raise LedgerError(f"column {name!r}: {first!r} is not one of {list(allowed)}")
    return lowered


@dataclass(frozen=True)
class LedgerHead:
    """A ledger file's first rows as they are written (every cell as text), with its
    columns and, for a CSV file, the separator and encoding it was read with."""

    columns: list[str]
    rows: list[list[str | None]]
    table: pa.Table
    separator: str | None
    encoding: str | None
    total_rows: int


def ledger_head(
    source: str | Path | pd.DataFrame | pa.Table,
    mapping: LedgerMapping | None = None,
    rows: int = 5,
) -> LedgerHead:
    """The first ``rows`` of a ledger before any mapping (what a mapping panel shows);
    the separator and encoding from ``mapping`` when it says them, else detected."""
    read = _source(source, CANONICAL_MAPPING if mapping is None else mapping)
    head = read.table.slice(0, max(rows, 0))
    cells = [
        [None if value is None else str(value) for value in row.values()]
        for row in head.to_pylist()
    ]
    return LedgerHead(
        columns=list(read.table.column_names),
        rows=cells,
        table=head,
        separator=read.separator,
        encoding=read.encoding,
        total_rows=read.table.num_rows,
    )


def read_ledger(
    source: str | Path | pd.DataFrame | pa.Table,
    mapping: LedgerMapping | None = None,
    *,
    tz: str | tzinfo | None = "America/Sao_Paulo",
) -> pa.Table:
    """The ledger as a table of `LEDGER_SCHEMA` (money in base units), validated.

    Without a mapping, the columns are `LEDGER_SCHEMA`'s names (amounts in base units),
    as in `data/sample_ledger.csv`; extra columns (a memo) are ignored. A CSV file is
    UTF-8 (or Windows-1252, the plain "CSV" of a pt-BR Excel), its fields separated by
    commas, semicolons (the same Excel's separator) or tabs. `load_ledger` says how it
    was read, too.
    """
    return load_ledger(source, mapping, tz=tz).table


def load_ledger(
    source: str | Path | pd.DataFrame | pa.Table,
    mapping: LedgerMapping | None = None,
    *,
    tz: str | tzinfo | None = "America/Sao_Paulo",
) -> LoadedLedger:
    """`read_ledger`, with how the ledger was read (`LedgerReading`: its one line names
    the separator, encoding, decimal mark, form of the days and unit)."""
    mapping = CANONICAL_MAPPING if mapping is None else mapping
    if not isinstance(mapping, LedgerMapping):
        raise LedgerError("mapping must be a LedgerMapping")
    source_ = _source(source, mapping)
    table = source_.table
    zone = parse_tz(tz)
    check_columns(table, mapping)
    trim = source_.kind != "frame"
    entry_id = _text(table, mapping.entry_id, trim=trim)
    reference = _text(table, mapping.reference, trim=trim)
    money = _money_columns(source_, mapping)
    amount = money.amount
    if mapping.direction is None:
        negative = pc.less(amount, 0)
        direction = pc.if_else(negative, "outbound", "inbound")
        try:
            amount = pc.abs_checked(amount)
        except pa.ArrowInvalid:
            raise LedgerError(f"column {mapping.amount!r} overflows 64-bit base units") from None
    else:
        direction = _choice(
            _text(table, mapping.direction, trim=False),
            _DIRECTIONS,
            _DIRECTION_WORDS,
            mapping.direction,
        )
    status = (
        pa.nulls(table.num_rows, pa.string())
        if mapping.status is None
        else _choice(
            _text(table, mapping.status, trim=False), _STATUSES, _STATUS_WORDS, mapping.status
        )
    )
    booked_on, day_form = _days(table, mapping.booked_on, zone, mapping.date_format)
    extras = extra_columns(table, mapping, zone, from_file=trim)
    schema = LEDGER_SCHEMA
    if any(getattr(mapping, name) is not None for name in MATCH_WITHOUT_REFERENCE):
        # An entry may go without a reference: another rule can match it.
        reference = pc.if_else(pc.equal(reference, ""), pa.scalar(None, pa.string()), reference)
        schema = schema.set(1, schema.field("reference").with_nullable(True))
    for field_, _ in extras:
        schema = schema.append(field_)
    ledger = pa.Table.from_arrays(
        [entry_id, reference, direction, amount, money.fee, status, booked_on]
        + [values for _, values in extras],
        schema=schema,
    )
    _check_ledger(ledger, mapping, source_.where)
    reading = LedgerReading(
        separator=source_.separator,
        encoding=source_.encoding,
        decimal=money.mark,
        date_format=day_form,
        amount_unit=money.unit,
        step_base=_step_base(ledger, money.unit),
    )
    return LoadedLedger(ledger, reading)


def _step_base(ledger: pa.Table, unit: Unit) -> int:
    """The precision the ledger keeps, in base units: its unit's (a centavo for centavos),
    and for reais the centavo when every amount and fee is whole centavos (as a ledger in
    reais with two decimals is), else the base unit."""
    if unit != "reais":
        return PER_UNIT[unit] if unit == "centavos" else 1
    for name in ("amount_base", "fee_base"):
        values = pc.fill_null(ledger.column(name), 0).to_numpy()
        if np.any(values % 100):
            return 1
    return 100


def _check_ledger(ledger: pa.Table, mapping: LedgerMapping, where: Callable[[int], str]) -> None:
    columns = {
        "entry_id": mapping.entry_id,
        "reference": mapping.reference,
        "amount_base": mapping.amount,
        "booked_on": mapping.booked_on,
    }
    for field_ in LEDGER_SCHEMA:
        column = ledger.column(field_.name)
        if not ledger.schema.field(field_.name).nullable and column.null_count:
            first = _first(pc.is_null(column))
            hint = (
                "; to match entries without one, name the ledger's booked_at, document,"
                " name, settlement or kind column in the mapping"
                if field_.name == "reference"
                else ""
            )
            raise LedgerError(
                f"{where(first)}: column {columns[field_.name]!r} is empty"
                f" ({column.null_count} ledger rows without {field_.name}){hint}"
            )
    empty = pc.equal(ledger.column("reference"), "")
    if pc.any(empty).as_py():
        count = pc.sum(empty).as_py()
        raise LedgerError(
            f"{where(_first(empty))}: column {mapping.reference!r} is empty"
            f" ({count} ledger rows with an empty reference)"
        )
    negative = pc.less(ledger.column("amount_base"), 0)
    if pc.any(negative).as_py():
        raise LedgerError(
            f"{where(_first(negative))}: column {mapping.amount!r} is negative: with a"
            " direction column, amounts must not be negative (without one, the sign says"
            " the direction: map direction to none)"
        )
    negative_fees = pc.less(ledger.column("fee_base"), 0)
    if pc.any(negative_fees).as_py():
        raise LedgerError(
            f"{where(_first(negative_fees))}: column {mapping.fee!r}:"
            f" {pc.sum(negative_fees).as_py()} ledger rows with a negative fee: a fee is what"
            " the service charged, written as a positive amount"
        )
    _check_sums(ledger, mapping, where)
    # Distinct 64-bit hashes prove the ids distinct (sorted in place: 8 bytes an id, no hash
    # set of strings); only when two hashes meet are the ids themselves grouped.
    with cursor() as con:
        con.register("ledger", ledger.select(["entry_id"]))
        hashes = con.sql("SELECT hash(entry_id) AS h FROM ledger").to_arrow_table().column("h")
        ordered = np.sort(hashes.to_numpy())
        if not np.any(ordered[1:] == ordered[:-1]):
            return
        repeated = con.execute(
            "SELECT entry_id FROM ledger GROUP BY entry_id HAVING COUNT(*) > 1"
            " ORDER BY entry_id LIMIT 3"
        ).fetchall()
    if repeated:
        raise LedgerError(f"entry_id must be unique; repeated: {[row[0] for row in repeated]}")


def _first(mask: pa.Array | pa.ChunkedArray) -> int:
    """The position of the first true value of ``mask``."""
    return int(pc.index(mask, True).as_py())


def _check_sums(ledger: pa.Table, mapping: LedgerMapping, where: Callable[[int], str]) -> None:
    """The amounts and the fees each add up within 64 bits, which the reconciliation's
    sums are kept in (every subset of them then does, and so does a difference of two):
    else the column is named, with its largest cell, instead of the SQL failing later."""
    for name, column_name in (("amount_base", mapping.amount), ("fee_base", mapping.fee)):
        values = ledger.column(name).combine_chunks()
        if values.null_count == len(values):
            continue
        largest = pc.max(values).as_py()
        if largest is None or largest * len(values) <= INT64_MAX:
            continue  # the fast proof: no sum of them can pass it
        total = sum(pc.fill_null(values, 0).to_numpy().tolist())  # Python ints: exact
        if total > INT64_MAX:
            at = where(_first(pc.equal(values, largest)))
            raise LedgerError(
                f"column {column_name!r}: the {'amounts' if name == 'amount_base' else 'fees'}"
                f" add up past the 64-bit range a reconciliation sums in (R$"
                f" 922.337.203.685.477,5807); the largest, {largest} base units on {at},"
                " is no real amount: correct it"
            )


def webhooks_table(webhooks: pd.DataFrame | pa.Table | None) -> pa.Table:
    """The inbox frame (`pixops.webhooks.Inbox.to_frame`) as `WEBHOOKS_SCHEMA`."""
    if webhooks is None:
        return WEBHOOKS_SCHEMA.empty_table()
    if isinstance(webhooks, pd.DataFrame):
        webhooks = frame_table(webhooks, "webhooks")
    if not isinstance(webhooks, pa.Table):
        raise TypeError("webhooks must be Inbox.to_frame() (a DataFrame) or a pyarrow.Table")
    missing = {"type", "transaction_id", "original_transaction_id", "created_at"} - set(
        webhooks.column_names
    )
    if missing:
        raise ValueError(f"webhooks frame lacks columns {sorted(missing)}")
    created = webhooks.column("created_at")
    if not pa.types.is_timestamp(created.type) or created.type.tz is None:
        raise ValueError("webhooks created_at must be a time-zone-aware timestamp")
    try:
        columns = [
            webhooks.column(name).cast(pa.string())
            for name in ("type", "transaction_id", "original_transaction_id")
        ]
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise ValueError(f"webhooks type and ids must be text: {error}") from None
    return pa.Table.from_arrays(
        [*columns, created.cast(pa.timestamp("us", tz="UTC"))], schema=WEBHOOKS_SCHEMA
    )


def days_or_none(value: date | str | None, name: str) -> date | None:
    """A scope bound: None (open) or a day."""
    return None if value is None else parse_day(value, name)
