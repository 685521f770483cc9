"""Page bodies (an Arrow string column) into one row per item, with DuckDB's JSON reader.

``json_transform`` reads each body into a struct of the declared fields (unknown ones
skipped, missing ones null) in C++, a batch of pages per thread, with no Python object
per row.
DuckDB's own conversions are lax (``10.5``, ``"12"``, ``true`` and ``1e3`` would all
become integers, and a number in a text field its text), so every field is read as
JSON: its text is the value re-written by DuckDB's JSON library. For money that is bare
digits for a JSON integer and nothing else (``12.0``, ``"12"``, ``true``), which Arrow's
strict cast turns, and only those, into int64; for text and times it is a quoted string
for a JSON string and nothing else (`_page_check.json_strings`).
"""

from __future__ import annotations

import threading
from typing import Final

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pixops.frames._page_check import MONEY_FIELDS, STRING_FIELDS, TIME_FIELDS, PageParseError

__all__ = ["WIRE_FIELDS", "PageReader"]

WIRE_FIELDS: Final = STRING_FIELDS + MONEY_FIELDS + TIME_FIELDS

#: DuckDB's memory for a batch: this many times the batch's bytes, at least
#: `MEMORY_FLOOR`, for each batch read at once; a bound on a batch gone wrong (what DuckDB
#: keeps between batches is set by `FLUSH_BYTES`). A batch that needs more (very long
#: texts) is read again with `MEMORY_RETRY` times it.
MEMORY_PER_BYTE: Final = 3
MEMORY_FLOOR: Final = 32 << 20
MEMORY_RETRY: Final = 8
#: Freed memory DuckDB's allocator may keep after a task (its default is 128 MB; each
#: batch would otherwise leave its working memory behind, ~20 MB at 1,000,000 rows).
FLUSH_BYTES: Final = 4 << 20


def _query() -> str:
    item = "{" + ", ".join(f'"{name}": "JSON"' for name in WIRE_FIELDS) + "}"
    structure = '{"worked": "JSON", "data": [' + item + "]}"
    # Built once from the constant field names above; no value is ever spliced in. The
    # items stay a list a page: Arrow flattens it for free, DuckDB's unnest would copy.
    # The page checks are Arrow's too: in SQL they cost more to plan than to run.
    return f"SELECT n, json_transform(body, '{structure}') AS p FROM bodies"  # noqa: S608


_QUERY: Final = _query()
_NO_PAGES: Final = pa.table({"n": pa.array([], pa.int64()), "body": pa.array([], pa.string())})
_ITEMS_SCHEMA: Final = pa.schema(
    [pa.field("n", pa.int64()), *(pa.field(name, pa.string()) for name in WIRE_FIELDS)]
)


class PageReader:
    """A private in-memory DuckDB database that reads batches of pages, each batch on one
    thread of the caller's: several batches at once use several cores without DuckDB's
    own threads, which would wait for each other at every step. Each thread keeps its
    cursor and its query, planned once (planning costs ~2 ms, a tenth of a batch)."""

    def __init__(self, batches_at_once: int) -> None:
        self._batches_at_once = batches_at_once
        self._limit = MEMORY_FLOOR * batches_at_once
        self._lock = threading.Lock()
        self._database = duckdb.connect(config={"memory_limit": f"{self._limit}B", "threads": 1})
        # DuckDB's allocator otherwise keeps up to 128 MB of freed memory for reuse.
        self._database.execute(f"SET allocator_flush_threshold = '{FLUSH_BYTES}B'")
        self._database.execute(
            f"SET allocator_bulk_deallocation_flush_threshold = '{FLUSH_BYTES}B'"
        )
        self._own = threading.local()

    def read(self, pages: pa.Table) -> pa.Table:
        """One row per item of ``pages`` (columns ``n``: page number, ``body``), in
        order. Columns are ``n`` and the wire fields, each value still its JSON text."""
        needed = max(MEMORY_FLOOR, MEMORY_PER_BYTE * pages.nbytes) * self._batches_at_once
        self._allow(needed)
        cursor, query = self._cursor()
        cursor.register("bodies", pages)
        try:
            try:
                read = query.to_arrow_table()
            except duckdb.OutOfMemoryException:
                self._allow(needed * MEMORY_RETRY)
                read = query.to_arrow_table()
        except (duckdb.InvalidInputException, duckdb.ConversionException) as error:
            raise PageParseError(_message(error)) from None
        finally:
            cursor.unregister("bodies")
        return pa.Table.from_batches(
            [_items(batch) for batch in read.to_batches()], schema=_ITEMS_SCHEMA
        )

    def _cursor(self) -> tuple[duckdb.DuckDBPyConnection, duckdb.DuckDBPyRelation]:
        """This thread's cursor and its query (which reads whatever ``bodies`` is now)."""
        if not hasattr(self._own, "cursor"):
            self._own.cursor = self._database.cursor()
            self._own.cursor.register("bodies", _NO_PAGES)
            self._own.query = self._own.cursor.sql(_QUERY)
            self._own.cursor.unregister("bodies")
        return self._own.cursor, self._own.query

    def _allow(self, limit: int) -> None:
        """Raise the database's memory limit to ``limit`` (it is never lowered)."""
        with self._lock:
            if limit > self._limit:
                self._database.execute(f"SET memory_limit = '{limit}B'")
                self._limit = limit


def _items(pages: pa.RecordBatch) -> pa.RecordBatch:
    """One row per item of ``pages`` (``n``, ``p``: each page as read), once every page
    is checked to have a ``data`` list and ``"worked": true``."""
    numbers = pages.column("n")
    worked, lists = pages.column("p").flatten()
    no_list = lists.is_null()
    not_worked = pc.fill_null(pc.not_equal(worked, "true"), True)
    bad = pc.or_(no_list, not_worked)
    if pc.any(bad).as_py():
        first = int(pc.index(bad, True).as_py())
        number = numbers[first].as_py()
        if no_list[first].as_py():
            raise PageParseError(f'page {number} has no "data" list')
        raise PageParseError(f'page {number}: "worked" is not true')
    counts = pc.list_value_length(lists).to_numpy(zero_copy_only=False)
    fields = lists.flatten().flatten()  # the items, then their fields (a null item: nulls)
    return pa.RecordBatch.from_arrays(
        [pa.array(np.repeat(numbers.to_numpy(), counts)), *fields], schema=_ITEMS_SCHEMA
    )


def _message(error: duckdb.Error) -> str:
    text = str(error)
    for prefix in ("Invalid Input Error: ", "Conversion Error: "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    if text.startswith("Malformed JSON"):
        return f"not valid JSON: {text[:300]}"
    return text[:300]
