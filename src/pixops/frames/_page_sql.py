"""Page bodies (an Arrow string column) into one row per item, with DuckDB's JSON reader.

``json_transform`` reads each body into a struct of the declared fields (unknown ones
skipped, missing ones null) in C++, on `THREADS` threads, with no Python object per row.
DuckDB's own BIGINT conversion is lax (``10.5``, ``"12"``, ``true`` and ``1e3`` would
all become integers), so the three money fields are read as JSON: their text is the
value re-written by DuckDB's JSON library, bare digits for a JSON integer and nothing
else (``12.0``, ``"12"``, ``true``), and Arrow's strict cast turns digits, and only
digits, into int64. Text fields are read as text (see `_page_check` for what that lets
through), times as text (converted in Arrow, which insists on an offset).
"""

from __future__ import annotations

from typing import Final

import duckdb
import pyarrow as pa

from pixops.frames._page_check import MONEY_FIELDS, STRING_FIELDS, TIME_FIELDS, PageParseError

__all__ = ["WIRE_FIELDS", "page_reader", "read_items"]

WIRE_FIELDS: Final = STRING_FIELDS + MONEY_FIELDS + TIME_FIELDS

#: DuckDB's cores, and its memory for a batch: this many times the batch's bytes, at
#: least `MEMORY_FLOOR`. DuckDB keeps what it once used up to its limit until the
#: connection closes, so a tight limit is what keeps the peak of a long statement low
#: (a limit of 256 MB adds ~50 MB to the peak of loading 1,000,000 rows). A batch that
#: needs more (very long texts) is read again with `MEMORY_RETRY` times the limit.
THREADS: Final = 2
MEMORY_PER_BYTE: Final = 3
MEMORY_FLOOR: Final = 32 << 20
MEMORY_RETRY: Final = 8


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _query() -> str:
    types = dict.fromkeys(WIRE_FIELDS, "VARCHAR") | dict.fromkeys(MONEY_FIELDS, "JSON")
    item = "{" + ", ".join(f'"{name}": "{kind}"' for name, kind in types.items()) + "}"
    structure = '{"worked": "JSON", "data": [' + item + "]}"
    columns = ", ".join(f"i.{_quoted(name)}" for name in types)
    # Built once from the constant field names above; no value is ever spliced in.
    return f"""
        WITH page AS (
            SELECT n, json_transform(body, '{structure}') AS p FROM bodies
        ), items AS (
            SELECT n, unnest(CASE
                WHEN p IS NULL OR p.data IS NULL
                    THEN error(printf('page %d has no "data" list', n))
                WHEN p.worked IS NULL OR p.worked::VARCHAR <> 'true'
                    THEN error(printf('page %d: "worked" is not true', n))
                ELSE p.data END) AS i
            FROM page
        )
        SELECT n, {columns} FROM items
    """  # noqa: S608


_QUERY: Final = _query()


def page_reader() -> duckdb.DuckDBPyConnection:
    """A private DuckDB connection with bounded memory and threads."""
    return duckdb.connect(
        config={
            "memory_limit": f"{MEMORY_FLOOR}B",
            "threads": THREADS,
        }
    )


def read_items(connection: duckdb.DuckDBPyConnection, pages: pa.Table) -> pa.Table:
    """One row per item of ``pages`` (columns ``n``: page number, ``body``), in order.

    Columns are ``n`` and the wire fields, all still text (money as its JSON text).
    """
    limit = max(MEMORY_FLOOR, MEMORY_PER_BYTE * pages.nbytes)
    connection.register("bodies", pages)
    try:
        try:
            return _run(connection, limit)
        except duckdb.OutOfMemoryException:
            return _run(connection, limit * MEMORY_RETRY)
    except (duckdb.InvalidInputException, duckdb.ConversionException) as error:
        raise PageParseError(_message(error)) from None
    finally:
        connection.unregister("bodies")


def _run(connection: duckdb.DuckDBPyConnection, limit: int) -> pa.Table:
    connection.execute(f"SET memory_limit = '{limit}B'")
    return connection.sql(_QUERY).to_arrow_table()


def _message(error: duckdb.Error) -> str:
    text = str(error)
    for prefix in ("Invalid Input Error: ", "Conversion Error: "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    if text.startswith("Malformed JSON"):
        return f"not valid JSON: {text[:300]}"
    return text[:300]
