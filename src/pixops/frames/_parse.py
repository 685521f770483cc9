"""Raw statement pages (JSON bytes) straight into Arrow, without Python objects per row.

Each page body is one JSON object ``{"worked": true, "data": [...], ...}``. A batch of
pages becomes one Arrow string column; DuckDB's JSON reader turns it into one row per
item, each field as its JSON text (`_page_sql`), two batches at once on two cores.
Arrow then keeps only what is exactly of its declared JSON type (`_page_check`): text
from JSON strings, money as int64 from the JSON integer's own digits (never through a
float), times with an offset; the categorical columns are dictionary-encoded.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pixops.frames._ids import may_repeat
from pixops.frames._page_check import (
    PageParseError,
    check_suspect_pages,
    json_strings,
    suspect_pages,
)
from pixops.frames._page_sql import PageReader
from pixops.frames._schema import (
    CATEGORICAL_COLUMNS,
    STATEMENT_SCHEMA,
    WIRE_RENAMES,
    SchemaDriftError,
    empty_statement_table,
)

__all__ = ["PageParseError", "deduplicate_by_id", "parse_pages"]

#: Pages are parsed in batches of about this many bytes (~13,000 rows): DuckDB's and
#: Arrow's working memory stays a few tens of MB whatever the statement's length (a
#: batch in hand for each worker), and a batch's fixed cost (~4 ms: the query re-bound,
#: each column converted) is a small share of it.
BATCH_BYTES = 8 << 20
#: Each batch is handed to DuckDB in slices of about this many bytes (Arrow record
#: batches: DuckDB's unit of work). A slice's parsed documents then stay in the core's
#: cache: 256 KB slices read ~15% faster than 1 MB ones here, 4 MB ones ~25% slower.
SLICE_BYTES = 256 << 10
#: Batches read at once, each by one worker thread with its own DuckDB cursor: one a core.
WORKERS = 2
#: A batch's buffer is reserved for this much at most at first (it grows past it only
#: if the pages need it), plus room for the page that ends the batch.
_MOST_RESERVED = 64 << 20
_PAGE_ROOM = 256 << 10
#: The process's page reader and worker threads, by process id (see `_page_readers`).
_SHARED: dict[int, tuple[PageReader, ThreadPoolExecutor]] = {}
_SHARED_LOCK = threading.Lock()

_FRAME_TO_WIRE = {frame: wire for wire, frame in WIRE_RENAMES.items()}
#: The columns that are kept are copied out of DuckDB's result into right-sized buffers
#: of the system allocator: Arrow's default pool (mimalloc) keeps the partly used pages
#: that a batch's temporaries leave between them, ~70 MB more at 1,000,000 rows.
_KEPT = pa.system_memory_pool()


def parse_pages(pages: Iterable[bytes], *, batch_bytes: int = BATCH_BYTES) -> pa.Table:
    """Every item of every page as one table of the declared statement schema.

    Rows are kept in page order and NOT de-duplicated (see `deduplicate_by_id`).
    Unknown fields are ignored; a missing optional field is null. Anything else that is
    not a statement page raises `PageParseError` and nothing is returned.
    """
    if isinstance(pages, (bytes, bytearray, str)):
        raise TypeError("pages must be an iterable of page bodies (bytes), not one body")
    if not isinstance(pages, Iterable):
        raise TypeError(
            f"pages must be an iterable of page bodies (bytes), not {type(pages).__name__}"
        )
    if not isinstance(batch_bytes, int) or isinstance(batch_bytes, bool) or batch_bytes < 1:
        raise ValueError("batch_bytes must be a positive integer")
    read: list[Future[pa.Table]] = []
    reader, workers = _page_readers()
    batches = _batches(pages, batch_bytes)
    while True:
        try:
            first_number, bodies = next(batches)
        except StopIteration:
            break
        except BaseException:
            _results(read)  # the pages broke off: a refusal in an earlier batch first
            raise
        # Handed over in a box the worker empties: the bodies are freed as soon as
        # DuckDB has read them, not when the batch is finished.
        read.append(workers.submit(_read_batch, reader, [bodies], first_number))
        del bodies
        # No more batches in hand than workers; the next is made as soon as either
        # worker is free (waiting for the oldest would leave the other idle).
        running = [batch for batch in read if not batch.done()]
        if len(running) == WORKERS:
            wait(running, return_when=FIRST_COMPLETED)
        if any(batch.done() and batch.exception() for batch in read):
            _results(read)  # raises the first refusal in page order
    tables = _results(read)
    if not tables:
        return empty_statement_table()
    return pa.concat_tables(tables).unify_dictionaries(memory_pool=_KEPT)


def _page_readers() -> tuple[PageReader, ThreadPoolExecutor]:
    """The process's page reader and its `WORKERS` threads, made on first use and kept:
    opening DuckDB's database costs ~20 ms and each thread plans its query once (~2 ms),
    a tenth of reading 100,000 rows. A forked child makes its own."""
    with _SHARED_LOCK:
        if os.getpid() not in _SHARED:
            _SHARED.clear()
            workers = ThreadPoolExecutor(WORKERS, thread_name_prefix="pixops-pages")
            _SHARED[os.getpid()] = (PageReader(WORKERS), workers)
        return _SHARED[os.getpid()]


def _results(read: list[Future[pa.Table]]) -> list[pa.Table]:
    """The batches' tables in page order; the first batch that failed raises."""
    return [batch.result() for batch in read]


def _batches(pages: Iterable[bytes], batch_bytes: int) -> Iterator[tuple[int, pa.Array]]:
    """(number of the batch's first page, its bodies), each batch ~``batch_bytes``.

    Each page is copied into the batch's one buffer as it arrives and then let go, so a
    batch is in memory once. The buffer is Arrow's, not the C heap's: a batch-sized
    block freed there raises glibc's threshold for giving a block its own mapping, and
    the kept columns then fragment its heap (~15 MB more at 1,000,000 rows).
    """
    capacity = min(batch_bytes, _MOST_RESERVED) + _PAGE_ROOM
    joined = pa.allocate_buffer(capacity, resizable=True)
    target = memoryview(joined).cast("B")  # written page by page (one copy each)
    used = 0
    lengths: list[int] = []
    first = 0
    for number, page in enumerate(pages, start=1):
        if not isinstance(page, (bytes, bytearray, memoryview)):
            raise TypeError(f"page {number} is {type(page).__name__}, not bytes")
        body = bytes(page)
        if not body or body.isspace():
            raise PageParseError(f"page {number} is empty")
        if not lengths:
            first = number
        if used + len(body) > joined.size:
            joined.resize(max(2 * joined.size, used + len(body)))
            target = memoryview(joined).cast("B")
        target[used : used + len(body)] = body
        used += len(body)
        lengths.append(len(body))
        del body
        if used >= batch_bytes:
            yield first, _as_text(joined.slice(0, used), lengths, first)
            joined, used, lengths = pa.allocate_buffer(capacity, resizable=True), 0, []
            target = memoryview(joined).cast("B")
    if lengths:
        yield first, _as_text(joined.slice(0, used), lengths, first)


def _read_batch(reader: PageReader, box: list[pa.Array], first_number: int) -> pa.Table:
    """One batch of pages (the one array in ``box``, taken out) as a table of the
    declared schema (run by a worker)."""
    bodies = box.pop()
    flagged = suspect_pages(bodies)
    try:
        items = reader.read(_sliced(bodies, first_number))
    except PageParseError:
        # Name the page if json.loads finds the fault too; else DuckDB's message.
        check_suspect_pages(bodies, list(range(len(bodies))), first_number)
        raise
    check_suspect_pages(bodies, flagged, first_number)
    del bodies
    columns = dict(zip(items.column_names, items.columns, strict=True))
    del items  # `_finish` lets each read column go once it is converted
    table = _finish(columns)
    # The batch's working buffers are free now; hand them back (from this thread, whose
    # own free pages they are) so the allocator's reserve does not grow batch after
    # batch (peak memory).
    pa.default_memory_pool().release_unused()
    return table


def _as_text(joined: pa.Buffer, lengths: list[int], first_number: int) -> pa.Array:
    """The bodies (``joined``, pages of ``lengths`` bytes) as one Arrow string column,
    without a copy, once checked to be UTF-8."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] > np.iinfo(np.int32).max:
        raise ValueError("a batch of pages must stay under 2 GiB; lower batch_bytes")
    buffers = [None, pa.py_buffer(offsets.astype(np.int32)), joined]
    bodies = pa.Array.from_buffers(pa.string(), len(lengths), buffers)
    try:
        bodies.validate(full=True)
    except pa.ArrowInvalid:
        for index, (start, end) in enumerate(itertools.pairwise(offsets.tolist())):
            try:
                joined[start:end].to_pybytes().decode("utf-8")
            except UnicodeDecodeError as error:
                raise PageParseError(
                    f"page {first_number + index} is not UTF-8 text: {error}"
                ) from None
        raise
    return bodies


def _sliced(bodies: pa.Array, first_number: int) -> pa.Table:
    """Page numbers and bodies in record batches of ~`SLICE_BYTES` (DuckDB's tasks)."""
    numbers = pa.array(range(first_number, first_number + len(bodies)), type=pa.int64())
    sizes = np.diff(np.frombuffer(bodies.buffers()[1], dtype=np.int32, count=len(bodies) + 1))
    slices = []
    start = taken = 0
    for end, size in enumerate(sizes.tolist(), start=1):
        taken += size
        if taken >= SLICE_BYTES or end == len(bodies):
            part = slice(start, end)
            slices.append(pa.record_batch([numbers[part], bodies[part]], names=["n", "body"]))
            start, taken = end, 0
    return pa.Table.from_batches(slices)


def _finish(items: dict[str, pa.ChunkedArray]) -> pa.Table:
    """Rename wire fields, keep only values of their JSON type, cast to the declared
    types, check the non-null columns. ``items`` holds ``n`` (the page numbers) and the
    wire fields; each field is taken out of it as it is converted."""
    pages = items["n"]
    columns: list[pa.Array | pa.ChunkedArray] = []
    for field in STATEMENT_SCHEMA:
        wire = _FRAME_TO_WIRE.get(field.name, field.name)
        column = items.pop(wire)
        if not field.nullable and column.null_count:
            missing = pc.unique(pages.filter(pc.is_null(column))).to_pylist()
            raise PageParseError(
                f"{column.null_count} items without {wire!r} (pages {_shown(missing)});"
                " an item that is not a JSON object has no fields"
            )
        flat = pa.concat_arrays(column.chunks or [pa.array([], type=column.type)])
        if not pa.types.is_integer(field.type):
            flat = json_strings(flat, wire, pages)
        if field.name in CATEGORICAL_COLUMNS:
            flat = pc.dictionary_encode(flat, memory_pool=_KEPT)
        elif flat.type != field.type:
            flat = _cast(flat, field.type, wire, pages)
        else:  # right-sized: dropping the quotes left two spare bytes a value
            flat = pa.concat_arrays([flat], memory_pool=_KEPT)
        columns.append(flat)
    return pa.Table.from_arrays(columns, schema=STATEMENT_SCHEMA)


def _cast(column: pa.Array, to: pa.DataType, wire: str, pages: pa.ChunkedArray) -> pa.Array:
    """Arrow's strict cast; on failure, the first value that failed and its page."""
    with contextlib.suppress(pa.ArrowInvalid):
        return pc.cast(column, to, memory_pool=_KEPT)
    for row, value in enumerate(column.to_pylist()):
        try:
            pa.array([value], type=pa.string()).cast(to)
        except pa.ArrowInvalid:
            want = (
                "a JSON integer in int64 range"
                if to == pa.int64()
                else "an ISO 8601 time with an offset (e.g. '2026-01-15T12:00:00.000Z')"
            )
            shown = value[:40] if to == pa.int64() else repr(value[:40])
            raise PageParseError(
                f"page {pages[row].as_py()}: {wire} {shown} is not {want}"
            ) from None
    raise AssertionError("unreachable: the cast failed but every value casts")


def _shown(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers[:5])) + (", ..." if len(numbers) > 5 else "")


def deduplicate_by_id(table: pa.Table) -> pa.Table:
    """One row per ``id``: the LAST one seen wins (later pages carry the newer state).

    Order is that of each id's first appearance, so a page-ordered table stays in order.
    """
    if not isinstance(table, pa.Table) or "id" not in table.column_names:
        raise TypeError("expected a pyarrow.Table with an 'id' column")
    if table.column_names.count("id") > 1:
        raise SchemaDriftError(
            f"the table has {table.column_names.count('id')} columns named 'id'; keep one"
        )
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
