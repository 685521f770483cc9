"""The ledger columns the rules beyond identifiers read: when a payment was recorded, the
counterparty's document and name, a settlement key and the kind of a day's line."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pixops.recon._mapping import LedgerError, LedgerMapping

__all__ = ["EXTRA_FIELDS", "KINDS", "extra_columns", "padded", "seconds_since_epoch"]

_UTC_US: Final = pa.timestamp("us", tz="UTC")

#: The extra columns of a ledger table, by the mapping field that names them.
EXTRA_FIELDS: Final = (
    pa.field("booked_at", _UTC_US),
    pa.field("document", pa.string()),
    pa.field("name", pa.string()),
    pa.field("settlement", pa.string()),
    pa.field("kind", pa.string()),
)
#: What a ``kind`` cell may say: a day's fees, or a day's movements of one direction.
KINDS: Final = ("fees", "inbound", "outbound")


def extra_columns(
    table: pa.Table, mapping: LedgerMapping, zone: tzinfo, *, from_file: bool
) -> list[tuple[pa.Field, pa.Array]]:
    """The extra columns the mapping names, converted; a bad cell is named by its line
    (a file's header is line 1) or row."""
    found = []
    for field in EXTRA_FIELDS:
        column_name = getattr(mapping, field.name)
        if column_name is None:
            continue
        column = table.column(column_name).combine_chunks()
        if field.name == "booked_at":
            values = _times(column, column_name, zone, from_file)
        else:
            values = _cleaned(_as_text(column, column_name))
            if field.name == "document":
                values = pc.replace_substring_regex(values, r"[.\-/\s]", "")
                values = pc.if_else(pc.equal(values, ""), pa.scalar(None, pa.string()), values)
            elif field.name == "kind":
                values = _kinds(values, column_name, from_file)
        found.append((field, values))
    return found


def padded(ledger: pa.Table) -> pa.Table:
    """The ledger with every extra column (empty where the mapping named none), and
    ``booked_at`` as whole seconds since the epoch (``booked_at_s``), as the SQL reads."""
    for field in EXTRA_FIELDS:
        if field.name not in ledger.column_names:
            ledger = ledger.append_column(field, pa.nulls(ledger.num_rows, field.type))
    seconds = seconds_since_epoch(ledger.column("booked_at"))
    ledger = ledger.append_column("booked_at_s", seconds)
    return ledger.drop_columns(["booked_at"])


def seconds_since_epoch(times: pa.ChunkedArray | pa.Array) -> pa.Array:
    """Instants as whole seconds since 1970-01-01 UTC (floored; nulls kept), the form the
    portable SQL compares times in (no interval arithmetic)."""
    micros = pc.cast(times, pa.timestamp("us", tz="UTC")).cast(pa.int64())
    if isinstance(micros, pa.ChunkedArray):
        micros = micros.combine_chunks()
    values = micros.to_numpy(zero_copy_only=False)
    mask = micros.is_null().to_numpy(zero_copy_only=False)
    floored = np.floor_divide(np.where(mask, 0, values).astype(np.int64), 1_000_000)
    return pa.array(floored, pa.int64(), mask=mask)


def _as_text(column: pa.Array, name: str) -> pa.Array:
    if pa.types.is_null(column.type):
        return pa.nulls(len(column), pa.string())
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if not (
        pa.types.is_string(column.type)
        or pa.types.is_large_string(column.type)
        or pa.types.is_integer(column.type)
    ):
        raise LedgerError(f"column {name!r} must be text, not {column.type}")
    return column.cast(pa.string())


def _cleaned(values: pa.Array) -> pa.Array:
    """Trimmed text, an empty cell read as none."""
    values = pc.utf8_trim_whitespace(values)
    return pc.if_else(pc.equal(values, ""), pa.scalar(None, pa.string()), values)


def _kinds(values: pa.Array, name: str, from_file: bool) -> pa.Array:
    lowered = pc.utf8_lower(values)
    bad = pc.and_(pc.is_valid(lowered), pc.invert(pc.is_in(lowered, pa.array(list(KINDS)))))
    if pc.any(bad).as_py():
        row = int(pc.index(bad, True).as_py())
        where = f"line {row + 2}" if from_file else f"row {row + 1}"
        raise LedgerError(
            f"{where}, column {name!r}: {values[row].as_py()!r} is not a kind of day line;"
            f" one of {list(KINDS)} or empty"
        )
    return lowered


def _times(column: pa.Array, name: str, zone: tzinfo, from_file: bool) -> pa.Array:
    """Instants in UTC: a time-zone-aware timestamp column as it is, a naive one and text
    without an offset read in ``zone``, ISO text with an offset (``Z`` too) as written."""
    if pa.types.is_null(column.type):
        return pa.nulls(len(column), _UTC_US)
    if pa.types.is_timestamp(column.type):
        if column.type.tz is not None:
            return column.cast(_UTC_US)
        values = column.to_pylist()
    elif pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        values = []
        for row, cell in enumerate(column.to_pylist()):
            text = None if cell is None else cell.strip()
            if not text:
                values.append(None)
                continue
            try:
                values.append(datetime.fromisoformat(text))
            except ValueError:
                where = f"line {row + 2}" if from_file else f"row {row + 1}"
                raise LedgerError(
                    f"{where}, column {name!r}: {cell!r} is not a time written"
                    " YYYY-MM-DDTHH:MM:SS (with an offset such as -03:00, or in the"
                    " reconciliation's time zone)"
                ) from None
    else:
        raise LedgerError(f"column {name!r} must hold times, not {column.type}")
    instants = [
        None if value is None else (value if value.tzinfo else value.replace(tzinfo=zone))
        for value in values
    ]
    return pa.array(
        [None if value is None else value.astimezone(UTC) for value in instants], _UTC_US
    )
