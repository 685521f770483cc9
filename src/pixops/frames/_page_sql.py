"""Page bodies (an Arrow string column) into one row per item, with DuckDB's JSON reader.

``json_transform`` reads each body into a struct of the declared fields (unknown ones
skipped, missing ones null) in C++, on `THREADS` threads, with no Python object per row.
DuckDB's own conversions are lax (``10.5``, ``"12"``, ``true`` and ``1e3`` would all
become integers, and a number in a text field its text), so every field is read as
JSON: its text is the value re-written by DuckDB's JSON library. For money that is bare
digits for a JSON integer and nothing else (``12.0``, ``"12"``, ``true``), which Arrow's
strict cast turns, and only those, into int64; for text and times it is a quoted string
for a JSON string and nothing else (`_page_check.json_strings`).
"""

from __future__ import annotations

from typing import Final

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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


def _query() -> str:
    item = "{" + ", ".join(f'"{name}": "JSON"' for name in WIRE_FIELDS) + "}"
    structure = '{"worked": "JSON", "data": [' + item + "]}"
    # Built once from the constant field names above; no value is ever spliced in. The
    # items stay a list a page: Arrow flattens it for free, DuckDB's unnest would copy.
    return f"""
        WITH page AS (
            SELECT n, json_transform(body, '{structure}') AS p FROM bodies
        )
        SELECT n, CASE
            WHEN p IS NULL OR p.data IS NULL
                THEN error(printf('page %d has no "data" list', n))
            WHEN p.worked IS NULL OR p.worked::VARCHAR <> 'true'
                THEN error(printf('page %d: "worked" is not true', n))
            ELSE p.data END AS data
        FROM page
    """  # noqa: S608


_QUERY: Final = _query()
_ITEMS_SCHEMA: Final = pa.schema(
    [pa.field("n", pa.int64()), *(pa.field(name, pa.string()) for name in WIRE_FIELDS)]
)


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

    Columns are ``n`` and the wire fields, each value still its JSON text.
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
    pages = connection.sql(_QUERY).to_arrow_table()
    return pa.Table.from_batches(
        [_items(batch) for batch in pages.to_batches()], schema=_ITEMS_SCHEMA
    )


def _items(pages: pa.RecordBatch) -> pa.RecordBatch:
    """One row per item of ``pages`` (``n``, ``data``: a list of items a page)."""
    lists = pages.column("data")
    numbers = np.repeat(
        pages.column("n").to_numpy(), pc.list_value_length(lists).to_numpy(zero_copy_only=False)
    )
    fields = lists.flatten().flatten()  # the items, then their fields (a null item: nulls)
    return pa.RecordBatch.from_arrays([pa.array(numbers), *fields], schema=_ITEMS_SCHEMA)


def _message(error: duckdb.Error) -> str:
    text = str(error)
    for prefix in ("Invalid Input Error: ", "Conversion Error: "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    if text.startswith("Malformed JSON"):
        return f"not valid JSON: {text[:300]}"
    return text[:300]
