"""The declared schema of statement and transaction frames, and the check that enforces it.

Money columns are ``int64`` in base units (1 centavo = 100) and name their unit
(``amount_base``); timestamps are UTC; status, type and direction are dictionary-encoded
(categorical); every other text column is a nullable string. The wire names
(``amount``, ``fee_amount``, ``net_amount``) are renamed when a page is parsed.
"""

from __future__ import annotations

from typing import Final

import pandas as pd
import pyarrow as pa

from pixops.errors import PixopsError

__all__ = [
    "CATEGORICAL_COLUMNS",
    "MONEY_COLUMNS",
    "STATEMENT_SCHEMA",
    "TRANSACTIONS_SCHEMA",
    "WIRE_RENAMES",
    "SchemaDriftError",
    "check_frame",
    "check_table",
    "conform_table",
    "empty_statement_table",
    "to_frame",
]

_TEXT = pa.string()
_CATEGORY = pa.dictionary(pa.int32(), pa.string())
_MONEY = pa.int64()
_UTC = pa.timestamp("us", tz="UTC")

#: Wire field -> frame column, so every money column says its unit.
WIRE_RENAMES: Final[dict[str, str]] = {
    "amount": "amount_base",
    "fee_amount": "fee_base",
    "net_amount": "net_base",
}

MONEY_COLUMNS: Final = ("amount_base", "fee_base", "net_base")
CATEGORICAL_COLUMNS: Final = ("type", "status", "payment_status", "direction")

STATEMENT_SCHEMA: Final = pa.schema(
    [
        pa.field("id", _TEXT, nullable=False),
        pa.field("transaction_id", _TEXT, nullable=False),
        pa.field("end_to_end_id", _TEXT),
        pa.field("external_id", _TEXT),
        pa.field("tag", _TEXT),
        pa.field("type", _CATEGORY),
        pa.field("status", _CATEGORY),
        pa.field("payment_status", _CATEGORY),
        pa.field("direction", _CATEGORY),
        pa.field("amount_base", _MONEY, nullable=False),
        pa.field("fee_base", _MONEY, nullable=False),
        pa.field("net_base", _MONEY, nullable=False),
        pa.field("description", _TEXT),
        pa.field("counterparty_name", _TEXT),
        pa.field("recipient_key", _TEXT),
        pa.field("payer_document", _TEXT),
        pa.field("recipient_document", _TEXT),
        pa.field("payer_ispb", _TEXT),
        pa.field("payer_bank_name", _TEXT),
        pa.field("original_transaction_id", _TEXT),
        pa.field("created_at", _UTC, nullable=False),
        pa.field("completed_at", _UTC),
    ]
)
"""Columns of a statement frame, in order. ``tag`` is null in `GET /statement` rows and
``original_transaction_id`` is filled for refunds when the loader links them."""

#: `GET /transactions` has the statement's shape plus `tag`: one schema serves both.
TRANSACTIONS_SCHEMA: Final = STATEMENT_SCHEMA


class SchemaDriftError(PixopsError, ValueError):
    """A frame or table does not have the declared columns and types."""


def _arrow_type_of(dtype: object) -> pa.DataType | None:
    return dtype.pyarrow_dtype if isinstance(dtype, pd.ArrowDtype) else None


def check_table(table: pa.Table, schema: pa.Schema = STATEMENT_SCHEMA) -> pa.Table:
    """Return ``table`` unchanged if it has exactly the declared columns and types."""
    if not isinstance(table, pa.Table):
        raise SchemaDriftError(f"expected a pyarrow.Table, got {type(table).__name__}")
    _refuse_repeated(table.column_names)
    problems = _problems(
        {field.name: field.type for field in table.schema},
        schema,
        {name: table.column(name).null_count for name in table.column_names},
    )
    if problems:
        raise SchemaDriftError("schema drift: " + "; ".join(problems))
    return table


def check_frame(frame: pd.DataFrame, schema: pa.Schema = STATEMENT_SCHEMA) -> pd.DataFrame:
    """Return ``frame`` unchanged if every column is Arrow-backed with the declared type.

    A money column that became ``float64`` (or a plain NumPy ``int64``) is drift, as is a
    missing, extra or reordered column, or a null in a column declared non-null.
    """
    if not isinstance(frame, pd.DataFrame):
        raise SchemaDriftError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    _refuse_repeated([str(name) for name in frame.columns])
    types: dict[str, pa.DataType | None] = {}
    for name in frame.columns:
        types[str(name)] = _arrow_type_of(frame[name].dtype)
    nulls = {str(name): int(frame[name].isna().sum()) for name in frame.columns}
    problems = _problems(types, schema, nulls, dtypes={str(n): frame[n].dtype for n in frame})
    if problems:
        raise SchemaDriftError("schema drift: " + "; ".join(problems))
    return frame


def _refuse_repeated(names: list[str]) -> None:
    """A column name that appears twice is drift: which of the two is meant is a guess
    (Arrow itself refuses to pick one, with a KeyError from deep inside)."""
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise SchemaDriftError(
            f"schema drift: columns {repeated} appear more than once; keep one of each"
            " (for a DataFrame: frame.loc[:, ~frame.columns.duplicated()])"
        )


def _problems(
    types: dict[str, pa.DataType | None],
    schema: pa.Schema,
    nulls: dict[str, int],
    dtypes: dict[str, object] | None = None,
) -> list[str]:
    problems: list[str] = []
    expected = list(schema.names)
    missing = [name for name in expected if name not in types]
    extra = [name for name in types if name not in schema.names]
    if missing:
        problems.append(f"missing columns {missing}")
    if extra:
        # An analyst's merge adds columns: say how to keep the declared ones.
        keep = "frame[STATEMENT_SCHEMA.names]" if schema.equals(STATEMENT_SCHEMA) else None
        problems.append(
            f"unexpected columns {extra}"
            + (f" (keep the declared ones first: {keep})" if keep and not missing else "")
        )
    if not missing and not extra and list(types) != expected:
        problems.append("columns out of order")
    for field in schema:
        if field.name not in types:
            continue
        actual = types[field.name]
        if actual is None:
            shown = dtypes[field.name] if dtypes is not None else "non-Arrow"
            problems.append(
                f"{field.name}: {shown} is not Arrow-backed (want {pd.ArrowDtype(field.type)})"
            )
        elif not _same_type(actual, field.type):
            problems.append(f"{field.name}: {actual} (want {field.type})")
        elif not field.nullable and nulls.get(field.name, 0):
            problems.append(f"{field.name}: {nulls[field.name]} nulls in a non-null column")
    return problems


def _same_type(actual: pa.DataType, wanted: pa.DataType) -> bool:
    if pa.types.is_timestamp(wanted):
        # DuckDB hands UTC back as "Etc/UTC"; the instant is the same.
        return bool(
            pa.types.is_timestamp(actual)
            and actual.unit == wanted.unit
            and actual.tz in ("UTC", "Etc/UTC", "+00:00")
        )
    if pa.types.is_dictionary(wanted):
        return bool(pa.types.is_dictionary(actual) and pa.types.is_string(actual.value_type))
    return bool(actual == wanted)


def _check_castable(field: pa.Field, actual: pa.DataType) -> None:
    """Casts that would change what a value means are drift, not conversions: money from
    floats or text (a float near money is a bug even when it looks whole), an instant from
    a timestamp without a zone (its zone would be guessed as UTC) or from text."""
    if pa.types.is_null(actual):
        return
    if field.name in MONEY_COLUMNS and not pa.types.is_integer(actual):
        raise SchemaDriftError(f"schema drift: {field.name}: {actual} is not integer base units")
    if pa.types.is_timestamp(field.type) and not (
        pa.types.is_timestamp(actual) and actual.tz is not None
    ):
        raise SchemaDriftError(
            f"schema drift: {field.name}: {actual} is not a time-zone-aware timestamp"
        )


def empty_statement_table(schema: pa.Schema = STATEMENT_SCHEMA) -> pa.Table:
    """A table with the declared columns and no rows."""
    return schema.empty_table()


def to_frame(table: pa.Table) -> pd.DataFrame:
    """Zero-copy view of an Arrow table as a pandas frame with Arrow dtypes."""
    if not isinstance(table, pa.Table):
        raise TypeError(f"expected a pyarrow.Table, got {type(table).__name__}")
    frame: pd.DataFrame = table.to_pandas(types_mapper=pd.ArrowDtype)
    return frame


def conform_table(table: pa.Table, schema: pa.Schema = STATEMENT_SCHEMA) -> pa.Table:
    """Cast a table that has the declared columns (e.g. back from DuckDB) to their types.

    Text becomes dictionary-encoded where the schema says categorical, ``Etc/UTC``
    timestamps become ``UTC``; a missing column or a lossy cast raises `SchemaDriftError`.
    """
    if not isinstance(table, pa.Table):
        raise SchemaDriftError(f"expected a pyarrow.Table, got {type(table).__name__}")
    _refuse_repeated(table.column_names)
    missing = [name for name in schema.names if name not in table.column_names]
    if missing:
        raise SchemaDriftError(f"schema drift: missing columns {missing}")
    columns = []
    for field in schema:
        column = table.column(field.name)
        _check_castable(field, column.type)
        try:
            if pa.types.is_dictionary(field.type):
                if not pa.types.is_dictionary(column.type):
                    column = column.cast(pa.string()).dictionary_encode()
            elif column.type != field.type:
                column = column.cast(field.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
            raise SchemaDriftError(f"schema drift: {field.name}: {error}") from None
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=schema)
