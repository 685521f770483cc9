"""Load the statement and the transaction list through the client into Arrow-backed frames.

Everything goes through ``client.statement.iter_raw`` / ``client.transactions.iter_raw``
(the raw page bytes), so a notebook pointed at the real service behaves exactly as one
on the sandbox; nothing here knows about the engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, tzinfo
from typing import Any, Protocol

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from tqdm.auto import tqdm

from pixops.frames._days import day_window
from pixops.frames._parse import deduplicate_by_id, parse_pages
from pixops.frames._schema import STATEMENT_SCHEMA, check_frame, check_table, to_frame

__all__ = [
    "WINDOW_ATTR",
    "RawPages",
    "as_relation",
    "as_table",
    "load_statement",
    "load_statement_table",
    "load_transactions",
    "load_transactions_table",
    "pages_of",
]

_FILTERS = frozenset({"status", "type", "per_page"})
_STATUS = ("settled", "rejected", "failed", "processing")
_TYPES = ("pix", "ted", "internal")


class RawPages(Protocol):
    """What the loaders need of ``client.statement`` and ``client.transactions``."""

    def iter_raw(self, **filters: Any) -> Iterator[bytes]: ...


def _filters(given: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(given) - _FILTERS)
    if unknown:
        raise ValueError(
            f"unknown filters {unknown}; use start/end for dates and one of {sorted(_FILTERS)}"
        )
    status = given.get("status")
    if status is not None and (not isinstance(status, str) or status not in _STATUS):
        hint = _one_value_hint(status, "payment_status")
        if isinstance(status, str) and status.strip().lower() in _STATUS:
            hint = f" (write {status.strip().lower()!r})"
        elif isinstance(status, str):
            # The frame's `status` column says "completed"; the filter is the spec's
            # settlement state, the frame's `payment_status`.
            hint = (
                "; the filter matches the payment_status column, not status"
                " (filter the frame for other columns)"
            )
        raise ValueError(f"status must be one of {_STATUS}, not {_shown(status)}{hint}")
    kind = given.get("type")
    if kind is not None and (not isinstance(kind, str) or kind not in _TYPES):
        hint = _one_value_hint(kind, "type")
        raise ValueError(f"type must be one of {_TYPES}, not {_shown(kind)}{hint}")
    per_page = given.get("per_page")
    if per_page is not None:
        # A NumPy integer (read from a frame) is an exact integer, as the client takes it.
        if not pd.api.types.is_integer(per_page) or not 1 <= per_page <= 100:
            raise ValueError(f"per_page must be an integer from 1 to 100, not {_shown(per_page)}")
        given = {**given, "per_page": int(per_page)}
    return {name: value for name, value in given.items() if value is not None}


def _shown(value: object) -> str:
    """A filter value as an error shows it: a Series or an array by its type alone."""
    if pd.api.types.is_scalar(value) or isinstance(value, (list, tuple, set)):
        return repr(value)
    return f"a {type(value).__name__}"


def _one_value_hint(value: object, column: str) -> str:
    """For several values (a list, a Series): the filter takes one; say how to get more."""
    if isinstance(value, str):
        return ""
    return (
        f" (the filter takes one value: for several, load without it and keep"
        f" frame[frame[{column!r}].isin([...])])"
    )


def pages_of(client: object, resource: str) -> RawPages:
    """``client.<resource>`` (what has ``iter_raw``), or a TypeError naming what it lacks."""
    source = getattr(client, resource, None)
    if source is None or not callable(getattr(source, "iter_raw", None)):
        raise TypeError(f"client must be a pixops.Client (it has no {resource}.iter_raw)")
    return source  # type: ignore[no-any-return]


def _load(
    client: object,
    resource: str,
    start: date | str,
    end: date | str,
    tz: str | tzinfo | None,
    progress: bool,
    link_refunds: bool,
    filters: dict[str, Any],
) -> pa.Table:
    for flag, value in (("progress", progress), ("link_refunds", link_refunds)):
        if not isinstance(value, bool):
            raise TypeError(f"{flag} must be True or False, not {value!r}")
    window = day_window(start, end, tz)
    query = _filters(filters)
    source = pages_of(client, resource)
    pages = source.iter_raw(date_from=window.date_from, date_to=window.date_to, **query)
    with tqdm(desc=f"{resource} pages", unit=" page", disable=not progress) as bar:
        table = parse_pages(_counted(pages, bar))
    table = deduplicate_by_id(table)
    created = table.column("created_at")
    inside = pc.and_(
        pc.greater_equal(created, pa.scalar(window.start_at, type=created.type)),
        pc.less(created, pa.scalar(window.end_at, type=created.type)),
    )
    table = table.filter(inside)
    if link_refunds:
        table = link_refund_originals(client, table, progress=progress)
    return check_table(table)


def _counted(pages: Iterator[bytes], bar: Any) -> Iterator[bytes]:
    for page in pages:
        bar.update(1)
        yield page


def link_refund_originals(client: object, table: pa.Table, *, progress: bool = False) -> pa.Table:
    """Fill ``original_transaction_id`` of refunds and returns (end-to-end id ``D…``).

    The statement does not carry the original's id; one ``client.transactions.get`` per
    refund row does (refunds are a small share of a statement).
    """
    table = check_table(table)
    e2e = table.column("end_to_end_id")
    is_return = pc.fill_null(pc.starts_with(e2e, "D"), False)
    missing = pc.is_null(table.column("original_transaction_id"))
    wanted = pc.and_(is_return, missing)
    rows = pc.indices_nonzero(wanted).to_pylist()
    if not rows:
        return table
    transactions = getattr(client, "transactions", None)
    get = getattr(transactions, "get", None)
    if not callable(get):
        raise TypeError("client must be a pixops.Client (it has no transactions.get)")
    ids = table.column("transaction_id").to_pylist()
    originals: list[str | None] = table.column("original_transaction_id").to_pylist()
    for row in tqdm(rows, desc="refund links", unit=" refund", disable=not progress):
        found = get(ids[row])
        original = getattr(found, "original_transaction_id", None)
        if original is None and isinstance(found, dict):
            original = found.get("original_transaction_id")
        originals[row] = None if original is None else str(original)
    column = pa.array(originals, type=pa.string())
    index = table.schema.get_field_index("original_transaction_id")
    return table.set_column(index, STATEMENT_SCHEMA.field(index), column)


def load_statement_table(
    client: object,
    start: date | str,
    end: date | str,
    *,
    tz: str | tzinfo | None = None,
    progress: bool = True,
    link_refunds: bool = True,
    **filters: Any,
) -> pa.Table:
    """`load_statement` as a pyarrow Table (the same columns and types)."""
    return _load(client, "statement", start, end, tz, progress, link_refunds, filters)


def load_transactions_table(
    client: object,
    start: date | str,
    end: date | str,
    *,
    tz: str | tzinfo | None = None,
    progress: bool = True,
    link_refunds: bool = True,
    **filters: Any,
) -> pa.Table:
    """`load_transactions` as a pyarrow Table (the same columns and types)."""
    return _load(client, "transactions", start, end, tz, progress, link_refunds, filters)


#: ``DataFrame.attrs`` key of a loaded frame: its window of instants (``start``, ``end``:
#: ISO text, UTC, end exclusive), which `pixops.recon.reconcile` compares with the days
#: it reports on.
WINDOW_ATTR = "pixops_window"


def marked_window(
    frame: pd.DataFrame, start: date | str, end: date | str, tz: str | tzinfo | None
) -> pd.DataFrame:
    """``frame`` with the instants of days ``start``..``end`` in ``tz`` in its attrs."""
    window = day_window(start, end, tz)
    # ISO text, not datetimes: pyarrow writes attrs into Parquet's metadata as JSON.
    frame.attrs[WINDOW_ATTR] = {
        "start": window.start_at.isoformat(),
        "end": window.end_at.isoformat(),
    }
    return frame


def load_statement(
    client: object,
    start: date | str,
    end: date | str,
    *,
    tz: str | tzinfo | None = None,
    progress: bool = True,
    link_refunds: bool = True,
    **filters: Any,
) -> pd.DataFrame:
    """The statement for days ``start``..``end`` (inclusive) as an Arrow-backed DataFrame.

    Days are UTC days unless ``tz`` names a zone (``"America/Sao_Paulo"``): then they
    are business days there, fetched as the UTC days covering both ends and trimmed to
    the exact instants. ``filters``: ``status`` (settled, rejected, failed, processing:
    the ``payment_status`` column; ``status`` says "completed"), ``type``, ``per_page``.
    Rows are de-duplicated by ``id``. Columns and types: `pixops.frames.STATEMENT_SCHEMA`.

    Money stays ``int64[pyarrow]`` through merge, concat, groupby/pivot/resample sums,
    ``fillna`` and ``cumsum``; it does not through ``mean``/``describe`` (doubles, as
    statistics), ``rolling().sum()`` and ``.astype(float)`` (float64), nor ``pd.concat``
    with a frame made by ``pd.DataFrame(columns=...)`` (object: start from
    ``statement.iloc[:0]`` instead). ``check_frame`` says which column drifted. Save with
    ``to_parquet`` (or ``to_csv(index=False)``) and read back with `read_statement`:
    plain ``pd.read_parquet`` cannot rebuild the categorical columns, and a CSV read by
    pandas keeps no types.
    """
    frame = to_frame(
        load_statement_table(
            client, start, end, tz=tz, progress=progress, link_refunds=link_refunds, **filters
        )
    )
    return marked_window(frame, start, end, tz)


def load_transactions(
    client: object,
    start: date | str,
    end: date | str,
    *,
    tz: str | tzinfo | None = None,
    progress: bool = True,
    link_refunds: bool = True,
    **filters: Any,
) -> pd.DataFrame:
    """`GET /transactions` like `load_statement` (the same schema; ``tag`` filled)."""
    frame = to_frame(
        load_transactions_table(
            client, start, end, tz=tz, progress=progress, link_refunds=link_refunds, **filters
        )
    )
    return marked_window(frame, start, end, tz)


def as_table(data: pd.DataFrame | pa.Table) -> pa.Table:
    """A statement frame or table as a checked pyarrow Table (zero-copy for Arrow frames)."""
    if isinstance(data, pa.Table):
        return check_table(data)
    check_frame(data)
    return check_table(pa.Table.from_pandas(data, preserve_index=False, schema=STATEMENT_SCHEMA))


def as_relation(
    data: pd.DataFrame | pa.Table,
    connection: duckdb.DuckDBPyConnection | None = None,
    *,
    name: str = "statement",
) -> duckdb.DuckDBPyRelation:
    """A statement frame or table as a DuckDB relation (registered as view ``name``).

    Money columns are BIGINT here, but DuckDB widens a ``SUM`` of BIGINT to HUGEINT
    (DECIMAL(38,0) in Arrow), which ``.df()`` turns into float64, and ``AVG`` is a
    DOUBLE: write ``CAST(SUM(amount_base) AS BIGINT)`` (an overflow is then an error,
    not a rounded total) and read with ``.to_arrow_table()``. pandas on its own keeps
    ``int64[pyarrow]`` through merge, concat, ``groupby().sum()``, ``pivot_table`` and
    ``reindex`` (a missing value is <NA>), and gives a double for ``mean``.

    A new connection shows times in UTC; a ``connection`` given keeps its own settings
    (its session time zone is the caller's to choose: the instants are the same).
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be an identifier, not {name!r}")
    if connection is not None and not isinstance(connection, duckdb.DuckDBPyConnection):
        raise TypeError(f"connection must be a DuckDB connection, not {type(connection).__name__}")
    con = connection
    if con is None:
        con = duckdb.connect()
        con.execute("SET TimeZone = 'UTC'").fetchall()
    con.register(name, as_table(data))
    return con.table(name)
