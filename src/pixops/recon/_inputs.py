"""The reconciliation's ledger and webhook inputs in their canonical Arrow form.

A merchant ledger is a CSV, Parquet or DataFrame of orders and payments; `LedgerMapping`
says which of its columns hold what, in which unit and how its text is written, and what
it leaves unsaid is detected and stated (`LedgerReading.line`) or, when the file could be
read two ways, asked for. CSV cells are read as text (never through float) and converted
with integer arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, tzinfo
from pathlib import Path
from typing import Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pixops.frames import parse_day, parse_tz
from pixops.money import INT64_MAX
from pixops.recon._arrow import frame_table
from pixops.recon._database import cursor
from pixops.recon._ledger_days import day_column
from pixops.recon._ledger_extras import extra_columns
from pixops.recon._ledger_money import money_columns
from pixops.recon._ledger_source import ledger_source, text_column
from pixops.recon._mapping import (
    CANONICAL_MAPPING,
    MATCH_WITHOUT_REFERENCE,
    PER_UNIT,
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


@dataclass(frozen=True)
class LoadedLedger:
    """A ledger read: its table (`LEDGER_SCHEMA`, money in base units) and how it was
    read (`LedgerReading`: what was detected, the precision it is compared at)."""

    table: pa.Table
    reading: LedgerReading


def _choice(
    values: pa.Array,
    allowed: Sequence[str],
    words: Mapping[str, str],
    name: str,
    where: Callable[[int], str],
) -> pa.Array:
    """The values, trimmed and lower-cased when that makes them allowed, pt-BR ``words``
    put in English (checked as they are first: a million valid cells are not rewritten;
    by equality with each allowed value, ~6x faster than hashing every cell with ``is_in``).
    Empty cells stay empty (docs/ledger-mapping.md says what each means); a value not
    allowed is refused, naming its line."""
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
        at = _first(bad)
        raise LedgerError(
            f"{where(at)}: column {name!r}: {values[at].as_py()!r} is not one of {list(allowed)}"
        )
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
    read = ledger_source(source, CANONICAL_MAPPING if mapping is None else mapping)
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
    source_ = ledger_source(source, mapping)
    table = source_.table
    zone = parse_tz(tz)
    check_columns(table, mapping)
    trim = source_.kind != "frame"
    entry_id = text_column(table, mapping.entry_id, trim=trim)
    reference = text_column(table, mapping.reference, trim=trim)
    money = money_columns(source_, mapping)
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
            text_column(table, mapping.direction, trim=False),
            _DIRECTIONS,
            _DIRECTION_WORDS,
            mapping.direction,
            source_.where,
        )
    status = (
        pa.nulls(table.num_rows, pa.string())
        if mapping.status is None
        else _choice(
            text_column(table, mapping.status, trim=False),
            _STATUSES,
            _STATUS_WORDS,
            mapping.status,
            source_.where,
        )
    )
    booked_on, day_form = day_column(table, mapping.booked_on, zone, mapping.date_format)
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
