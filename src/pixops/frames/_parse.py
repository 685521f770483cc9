"""Raw statement pages (JSON bytes) straight into Arrow, without Python objects per row.

Each page body is one JSON object ``{"worked": true, "data": [...], ...}``. Pages are
joined as lines and handed to Arrow's C++ JSON reader with an explicit schema, and the
``data`` lists are flattened into columns; no ``json.loads`` and no dict per row.
Raw newlines in valid JSON are always whitespace (strings escape them), so replacing
them keeps one page per line.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from pixops.frames._ids import may_repeat
from pixops.frames._schema import (
    CATEGORICAL_COLUMNS,
    STATEMENT_SCHEMA,
    WIRE_RENAMES,
    empty_statement_table,
)

__all__ = ["PageParseError", "deduplicate_by_id", "parse_pages"]

#: Pages are parsed in batches of about this many bytes: the reader's working memory
#: (kept by the allocator for reuse) stays small, and a batch is still ~1,500 rows.
BATCH_BYTES = 1 << 20

_WIRE_TYPES: dict[str, pa.DataType] = {
    "amount": pa.int64(),
    "fee_amount": pa.int64(),
    "net_amount": pa.int64(),
    "created_at": pa.timestamp("ms", tz="UTC"),
    "completed_at": pa.timestamp("ms", tz="UTC"),
}
_FRAME_TO_WIRE = {frame: wire for wire, frame in WIRE_RENAMES.items()}
_WIRE_ITEM = pa.struct(
    [
        pa.field(
            _FRAME_TO_WIRE.get(field.name, field.name),
            _WIRE_TYPES.get(_FRAME_TO_WIRE.get(field.name, field.name), pa.string()),
        )
        for field in STATEMENT_SCHEMA
    ]
)
_WIRE_PAGE = pa.schema([pa.field("worked", pa.bool_()), pa.field("data", pa.list_(_WIRE_ITEM))])


class PageParseError(ValueError):
    """A page body is not a statement page (bad JSON, a wrong type, no ``data`` list)."""


def parse_pages(pages: Iterable[bytes], *, batch_bytes: int = BATCH_BYTES) -> pa.Table:
    """Every item of every page as one table of the declared statement schema.

    Rows are kept in page order and NOT de-duplicated (see `deduplicate_by_id`).
    Unknown fields are ignored; a missing optional field is null.
    """
    if isinstance(pages, (bytes, bytearray, str)):
        raise TypeError("pages must be an iterable of page bodies (bytes), not one body")
    if not isinstance(batch_bytes, int) or isinstance(batch_bytes, bool) or batch_bytes < 1:
        raise ValueError("batch_bytes must be a positive integer")
    pool = pa.default_memory_pool()
    tables = []
    for batch in _batches(pages, batch_bytes):
        tables.append(_finish(_parse_batch(batch)))
        # The reader's working buffers of this batch are free now; hand them back so the
        # allocator's reserve does not grow batch after batch (peak memory, not speed).
        pool.release_unused()
    if not tables:
        return empty_statement_table()
    return pa.concat_tables(tables).unify_dictionaries()


def _batches(pages: Iterable[bytes], batch_bytes: int) -> Iterator[list[bytes]]:
    batch: list[bytes] = []
    size = 0
    for number, page in enumerate(pages, start=1):
        if not isinstance(page, (bytes, bytearray, memoryview)):
            raise TypeError(f"page {number} is {type(page).__name__}, not bytes")
        body = bytes(page)
        if b"\n" in body or b"\r" in body:
            body = body.replace(b"\r", b" ").replace(b"\n", b" ")
        if not body.strip():
            raise PageParseError(f"page {number} is empty")
        batch.append(body)
        size += len(body)
        if size >= batch_bytes:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _parse_batch(batch: list[bytes]) -> pa.Table:
    joined = b"\n".join(batch)
    try:
        pages = pa_json.read_json(
            io.BytesIO(joined),
            read_options=pa_json.ReadOptions(block_size=max(len(joined) + 1, 1 << 20)),
            parse_options=pa_json.ParseOptions(
                explicit_schema=_WIRE_PAGE, unexpected_field_behavior="ignore"
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise PageParseError(f"not a statement page: {error}") from None
    if pages.num_rows != len(batch):
        raise PageParseError(f"expected {len(batch)} JSON objects, read {pages.num_rows}")
    data = pages.column("data")
    if data.null_count:
        raise PageParseError("a page has no 'data' list")
    if pc.any(pc.invert(pc.fill_null(pages.column("worked"), False))).as_py():
        raise PageParseError("a page says worked is not true")
    items = data.combine_chunks().flatten()
    return pa.Table.from_struct_array(items)


def _finish(table: pa.Table) -> pa.Table:
    """Rename wire fields, cast to the declared types, check the non-null columns.

    Every column is copied into right-sized buffers, so the JSON reader's larger
    working buffers of this batch are released before the next batch is read.
    """
    columns: list[pa.Array] = []
    for field in STATEMENT_SCHEMA:
        column = table.column(_FRAME_TO_WIRE.get(field.name, field.name)).combine_chunks()
        if not field.nullable and column.null_count:
            raise PageParseError(f"{column.null_count} rows without {field.name!r}")
        if field.name in CATEGORICAL_COLUMNS:
            column = pc.dictionary_encode(column)
        elif column.type != field.type:
            column = column.cast(field.type)
        else:
            column = pa.concat_arrays([column])
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=STATEMENT_SCHEMA)


def deduplicate_by_id(table: pa.Table) -> pa.Table:
    """One row per ``id``: the LAST one seen wins (later pages carry the newer state).

    Order is that of each id's first appearance, so a page-ordered table stays in order.
    """
    if table.num_rows == 0:
        return table
    ids = table.column("id")
    if not may_repeat(ids):
        return table
    position = pa.array(range(table.num_rows), type=pa.int64())
    indexed = pa.table({"id": ids, "position": position})
    grouped = indexed.group_by("id", use_threads=False).aggregate(
        [("position", "min"), ("position", "max")]
    )
    order = pc.sort_indices(grouped, sort_keys=[("position_min", "ascending")])
    keep = pc.take(grouped.column("position_max"), order)
    return table.take(keep).combine_chunks()
