"""A statement or transaction list saved to a file, read back into its declared schema.

``frame.to_parquet(path)`` and ``frame.to_csv(path, index=False)`` are how an analyst
keeps a month; pandas alone cannot read either back as it was: ``pd.read_parquet``
fails on the categorical columns (it cannot rebuild their Arrow dictionary type without
``dtype_backend="pyarrow"``), and ``pd.read_csv`` turns money into NumPy ``int64`` (or
``float64`` with a gap), ids into numbers, and instants into text.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pyarrow as pa

from pixops.frames._schema import (
    STATEMENT_SCHEMA,
    TRANSACTIONS_SCHEMA,
    SchemaDriftError,
    check_table,
    conform_table,
    to_frame,
)

__all__ = ["read_statement", "read_transactions"]


def read_statement(path: str | Path) -> pd.DataFrame:
    """A statement saved with ``to_parquet`` or ``to_csv(index=False)``, read back with the
    declared types (`STATEMENT_SCHEMA`); `SchemaDriftError` names what does not fit."""
    return to_frame(_read(path, STATEMENT_SCHEMA))


def read_transactions(path: str | Path) -> pd.DataFrame:
    """A transaction list saved as `read_statement` reads, with `TRANSACTIONS_SCHEMA`."""
    return to_frame(_read(path, TRANSACTIONS_SCHEMA))


def _read(given: object, schema: pa.Schema) -> pa.Table:
    if not isinstance(given, (str, os.PathLike)):
        raise TypeError(
            f"path must be a file path (str or pathlib.Path), not {type(given).__name__}"
        )
    path = Path(given)
    if path.is_dir():
        raise ValueError(f"{path} is a folder, not a .parquet or .csv file")
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            import pyarrow.parquet as pq  # on use: it weighs ~6 MiB beside a big load

            table = pq.read_table(path)
        elif suffix == ".csv":
            table = _read_csv(path, schema)
        else:
            raise ValueError(f"{path.name}: read a .parquet or .csv file, not {suffix or 'this'}")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        if suffix == ".csv" and _not_utf8(path, error):
            raise SchemaDriftError(
                f"{path.name} is not UTF-8 text (Excel's 'CSV' is often Windows-1252 or"
                " UTF-16): save it as 'CSV UTF-8', which is what to_csv writes"
            ) from None
        raise SchemaDriftError(f"{path.name} does not read as this schema: {error}") from None
    # A value missing from a column that may not lack one (money, the time) is refused.
    return check_table(conform_table(table, schema), schema)


def _not_utf8(path: Path, error: Exception) -> bool:
    """Whether Arrow failed on the file's encoding: a UTF-16 byte-order mark, or a byte
    that UTF-8 cannot hold (Arrow says "invalid UTF8")."""
    with path.open("rb") as file:
        start = file.read(2)
    return start in (b"\xff\xfe", b"\xfe\xff") or "UTF8" in str(error)


def _read_csv(path: Path, schema: pa.Schema) -> pa.Table:
    """Each declared column as its type, never guessed (a CPF keeps its leading zero, a
    gap in money is refused, not a float); an empty cell is a missing value."""
    import pyarrow.csv as pa_csv

    types = {
        field.name: pa.string() if pa.types.is_dictionary(field.type) else field.type
        for field in schema
    }
    options = pa_csv.ConvertOptions(column_types=types, strings_can_be_null=True)
    return pa_csv.read_csv(path, convert_options=options)
