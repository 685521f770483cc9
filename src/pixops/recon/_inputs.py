"""The reconciliation's ledger and webhook inputs in their canonical Arrow form.

A merchant ledger is a CSV, Parquet or DataFrame of orders and payments; `LedgerMapping`
says which of its columns hold what and in which unit the amounts are written. CSV
cells are read as text (never through float) and converted with integer arithmetic.
"""

from __future__ import annotations

import contextlib
import csv
import re
from collections.abc import Sequence
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
from pixops.money import MoneyError, check_int64, parse_base
from pixops.recon._arrow import frame_table
from pixops.recon._database import cursor
from pixops.recon._encoding import UTF8, csv_encoding, csv_separator, not_text_message
from pixops.recon._ledger_extras import extra_columns
from pixops.recon._mapping import (
    CANONICAL_MAPPING,
    MATCH_WITHOUT_REFERENCE,
    PER_UNIT,
    LedgerError,
    LedgerMapping,
    check_columns,
)

__all__ = [
    "CANONICAL_MAPPING",
    "LEDGER_SCHEMA",
    "WEBHOOKS_SCHEMA",
    "LedgerError",
    "LedgerMapping",
    "days_or_none",
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


def _source_table(source: object) -> pa.Table:
    if isinstance(source, pa.Table):
        return source
    if isinstance(source, pd.DataFrame):
        return _from_pandas(source, "ledger")
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            raise LedgerError(f"{path} is a folder, not a ledger file")
        if not path.is_file():
            raise LedgerError(f"no such ledger file: {path}")
        suffix = path.suffix.lower()
        try:
            if suffix == ".parquet":
                return pq.read_table(path)
            if suffix in (".csv", ".txt"):
                return _read_csv(path)
        except (pa.ArrowInvalid, OSError) as error:
            raise LedgerError(f"cannot read {path}: {error}") from None
        raise LedgerError(f"ledger must be .csv or .parquet, not {path.name}")
    raise LedgerError(f"ledger must be a path, a DataFrame or a pyarrow.Table, not {source!r}")


def _from_pandas(frame: pd.DataFrame, what: str) -> pa.Table:
    """The frame as Arrow; a column Arrow cannot type (mixed values) is named, not leaked."""
    return frame_table(frame, what, LedgerError)


def _read_csv(path: Path) -> pa.Table:
    """Every cell as text: money and ids never pass through float or int guessing. The
    text is UTF-8 or, failing that, Windows-1252 (Excel's plain "CSV" in Brazil); the
    separator is the one the header line uses most."""
    try:
        encoding = csv_encoding(path)
    except UnicodeDecodeError as error:
        raise LedgerError(not_text_message(path, error)) from error
    with path.open(encoding=encoding, newline="") as handle:
        header = handle.readline()
        header_only = handle.read(1) == ""
    separator = csv_separator(header)
    names = next(csv.reader([header], delimiter=separator), [])
    if not names:
        raise LedgerError(f"{path} has no header row")
    if header_only:  # Arrow cannot read a header alone without its line end
        return pa.Table.from_arrays([pa.array([], pa.string()) for _ in names], names=names)
    try:
        return pa_csv.read_csv(
            path,
            # Arrow reads UTF-8 itself (a byte order mark skipped); other text it recodes.
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


def _money(table: pa.Table, name: str, unit: str, *, from_file: bool = False) -> pa.Array:
    """Integers of ``unit`` or money text, to base units; a float column is refused.
    A bad cell is named by its line when the table is a file's (the header is line 1)."""
    column = _column(table, name, pa.string())
    factor = PER_UNIT[unit]
    if pa.types.is_floating(column.type):
        raise LedgerError(
            f"column {name!r} is {column.type}: write amounts as integers or text, not floats"
            " (pandas reads a column with an empty cell as floats: give the file's path, or"
            " read it with dtype=str)"
        )
    if pa.types.is_decimal(column.type):  # exact: Decimal reais (`frames.reais_decimal`)
        where = "line" if from_file else "row"
        cells = column.to_pylist()
        return pa.array(
            [
                None if cell is None else _decimal_cell(cell, unit, factor, name, f"{where} {n}")
                for n, cell in enumerate(cells, start=2 if from_file else 1)
            ],
            type=pa.int64(),
        )
    if pa.types.is_integer(column.type):
        try:
            values = column.cast(pa.int64()).combine_chunks()
            return pc.multiply_checked(values, pa.scalar(factor, pa.int64()))
        except pa.ArrowInvalid:
            raise LedgerError(f"column {name!r} overflows 64-bit base units") from None
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        raise LedgerError(f"column {name!r} must hold integers or text, not {column.type}")
    converted: list[int | None] = []
    for row, cell in enumerate(column.to_pylist(), start=1):
        if cell is None or not cell.strip():
            converted.append(None)
            continue
        where = f"line {row + 1}" if from_file else f"row {row}"
        converted.append(_money_cell(cell, unit, factor, name, where))
    return pa.array(converted, type=pa.int64())


#: How a bad cell's message names each unit, with what a whole amount of it looks like.
_UNIT_WORDS: Final = {
    "base": "base units (R$ 1,00 is 10000)",
    "centavos": "centavos (R$ 1,00 is 100)",
}


def _money_cell(cell: str, unit: str, factor: int, name: str, where: str) -> int:
    text = cell.strip()
    try:
        if unit == "reais":
            return parse_base(text)
        digits = text[1:] if text.startswith("-") else text
        if not digits.isascii() or not digits.isdigit():
            hint = ""
            with contextlib.suppress(MoneyError):  # reais text: say how to read it
                parse_base(text)
                hint = "; for amounts in reais give LedgerMapping(amount_unit='reais')"
            raise MoneyError(f"not a whole number of {_UNIT_WORDS[unit]}{hint}")
        return check_int64(int(text, 10) * factor)
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


#: The forms a ledger day may be written in: ISO, and the pt-BR form Excel in Brazil
#: writes beside its ``;`` separator (day first, like the Excel-friendly export).
_DAY_FORMATS: Final = {"%Y-%m-%d": "YYYY-MM-DD", "%d/%m/%Y": "DD/MM/YYYY"}


def _days(table: pa.Table, name: str, zone: tzinfo) -> pa.Array:
    column = _column(table, name, pa.date32()).combine_chunks()
    if pa.types.is_date32(column.type):
        return column
    if pa.types.is_date64(column.type):
        return column.cast(pa.date32())
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
            return column.cast(pa.date32())
        values = [None if v is None else v.astimezone(zone).date() for v in column.to_pylist()]
        return pa.array(values, type=pa.date32())
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        for form, shown in _DAY_FORMATS.items():  # one form for the whole column, never a mix
            try:
                days = pc.strptime(column, format=form, unit="s").cast(pa.date32())
            except pa.ArrowInvalid:
                continue
            # strptime rolls an impossible day over (2026-02-30 reads as 2026-03-02): only
            # a day that writes back as the cell's own text is that day.
            changed = pc.invert(pc.equal(pc.strftime(days, format=form), column))
            if pc.any(changed).as_py():
                first = pc.filter(column, changed)[0].as_py()
                raise LedgerError(f"column {name!r}: {first!r} is not a day written {shown}")
            return days
        raise LedgerError(
            f"column {name!r} must hold days as YYYY-MM-DD or DD/MM/YYYY, all in one form"
        )
    raise LedgerError(f"column {name!r} must hold dates, not {column.type}")


def _choice(values: pa.Array, allowed: Sequence[str], name: str) -> pa.Array:
    """The values, trimmed and lower-cased when that makes them allowed (checked as they
    are first: a million valid cells are not rewritten; by equality with each allowed
    value, ~6x faster than hashing every cell with ``is_in``)."""
    valid = None
    for value in allowed:
        equal = pc.equal(values, value)
        valid = equal if valid is None else pc.or_(valid, equal)
    if valid is not None and pc.all(valid).as_py() is not False:  # nulls are allowed
        return values
    values = pc.utf8_trim_whitespace(values)
    lowered = pc.utf8_lower(values)
    bad = pc.and_(pc.is_valid(lowered), pc.invert(pc.is_in(lowered, pa.array(list(allowed)))))
    if pc.any(bad).as_py():
        first = pc.filter(values, bad)[0].as_py()
        raise LedgerError(f"column {name!r}: {first!r} is not one of {list(allowed)}")
    return lowered


def read_ledger(
    source: str | Path | pd.DataFrame | pa.Table,
    mapping: LedgerMapping | None = None,
    *,
    tz: str | tzinfo | None = "America/Sao_Paulo",
) -> pa.Table:
    """The ledger as a table of `LEDGER_SCHEMA` (money in base units), validated, then
    the columns the other rules read that the mapping names (`LedgerMapping`: booked_at,
    document, name, settlement, kind; an entry may then lack a reference).

    Without a mapping, the columns are `LEDGER_SCHEMA`'s names (amounts in base units),
    as in `data/sample_ledger.csv`; extra columns (a memo) are ignored. A CSV file is
    UTF-8 (or Windows-1252, the plain "CSV" of a pt-BR Excel), its fields separated by
    commas, semicolons (the same Excel's separator) or tabs.
    """
    table = _source_table(source)
    mapping = CANONICAL_MAPPING if mapping is None else mapping
    if not isinstance(mapping, LedgerMapping):
        raise LedgerError("mapping must be a LedgerMapping")
    zone = parse_tz(tz)
    check_columns(table, mapping)
    from_file = isinstance(source, (str, Path))
    entry_id = _text(table, mapping.entry_id, trim=from_file)
    reference = _text(table, mapping.reference, trim=from_file)
    amount = _money(table, mapping.amount, mapping.amount_unit, from_file=from_file)
    if mapping.direction is None:
        negative = pc.less(amount, 0)
        direction = pc.if_else(negative, "outbound", "inbound")
        try:
            amount = pc.abs_checked(amount)
        except pa.ArrowInvalid:
            raise LedgerError(f"column {mapping.amount!r} overflows 64-bit base units") from None
    else:
        direction = _choice(
            _text(table, mapping.direction, trim=False), _DIRECTIONS, mapping.direction
        )
    fee = (
        pa.nulls(table.num_rows, pa.int64())
        if mapping.fee is None
        else _money(table, mapping.fee, mapping.amount_unit, from_file=from_file)
    )
    status = (
        pa.nulls(table.num_rows, pa.string())
        if mapping.status is None
        else _choice(_text(table, mapping.status, trim=False), _STATUSES, mapping.status)
    )
    booked_on = _days(table, mapping.booked_on, zone)
    extras = extra_columns(table, mapping, zone, from_file=from_file)
    optional = [name for name in MATCH_WITHOUT_REFERENCE if getattr(mapping, name) is not None]
    schema = LEDGER_SCHEMA
    if optional:  # an entry may go without a reference: another rule can match it
        reference = pc.if_else(pc.equal(reference, ""), pa.scalar(None, pa.string()), reference)
        schema = schema.set(1, schema.field("reference").with_nullable(True))
    for field_, _ in extras:
        schema = schema.append(field_)
    ledger = pa.Table.from_arrays(
        [entry_id, reference, direction, amount, fee, status, booked_on]
        + [values for _, values in extras],
        schema=schema,
    )
    _check_ledger(ledger, optional)
    return ledger


def _check_ledger(ledger: pa.Table, optional: Sequence[str] = ()) -> None:
    for field_ in ledger.schema:
        nulls = ledger.column(field_.name).null_count
        if not field_.nullable and nulls:
            hint = (
                "; to match entries without one, name the ledger's booked_at, document,"
                " name, settlement or kind column in the LedgerMapping"
                if field_.name == "reference"
                else ""
            )
            raise LedgerError(f"{nulls} ledger rows without {field_.name}{hint}")
    empty = pc.sum(pc.equal(ledger.column("reference"), "")).as_py() or 0
    if empty:
        raise LedgerError(f"{empty} ledger rows with an empty reference")
    if pc.any(pc.less(ledger.column("amount_base"), 0)).as_py():
        raise LedgerError("with a direction column, amounts must not be negative")
    negative_fees = pc.sum(pc.less(ledger.column("fee_base"), 0)).as_py() or 0
    if negative_fees:
        raise LedgerError(
            f"{negative_fees} ledger rows with a negative fee: a fee is what the service"
            " charged, written as a positive amount"
        )
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
