"""Finishing the reconciliation's outputs on the host: each output read from its step,
sorted, its ids taken by row number from the inputs, its identifier rules named and its
times in UTC, as an Arrow-backed frame. No DuckDB after the read, so an output is
finished in a thread beside the steps still running (`pixops.recon._run`).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pixops.frames import to_frame
from pixops.recon._sql import IDENTIFIER_RULE, LOOKUPS, OUTPUTS

__all__ = ["finished", "read"]


def read(con: duckdb.DuckDBPyConnection, name: str) -> pa.Table:
    """Output ``name``'s columns as DuckDB gives them: all but the looked-up ones, with
    the numbers those are taken by and the columns it is ordered by."""
    columns, order = OUTPUTS[name]
    lookups = LOOKUPS.get(name, ())
    looked_up = {output for output, _, _, _ in lookups}
    numbers = sorted({number for _, _, _, number in lookups})
    selected = [c for c in columns.split(", ") if c not in looked_up] + numbers
    if columns != "*":
        keys = _sort_keys(order)
        selected += [c for c, _, _ in keys if c not in selected and c not in looked_up]
    query = f"SELECT {', '.join(selected)} FROM {name}"  # noqa: S608
    return con.sql(query).to_arrow_table()


def finished(name: str, table: pa.Table, inputs: dict[str, pa.Table]) -> pd.DataFrame:
    """Output ``name`` as `read` gave it, sorted, with its ids looked up and its rules
    named (no DuckDB here: it runs beside the steps)."""
    columns, order = OUTPUTS[name]
    lookups = LOOKUPS.get(name, ())
    looked_up = {output for output, _, _, _ in lookups}
    keys = _sort_keys(order)
    # Sorted before the ids are taken unless the order reads them: a sort gathers
    # every column, and the taken ids are a million strings each.
    sort_after = any(column in looked_up for column, _, _ in keys)
    if not sort_after:
        table = _sorted(table, keys)
    if lookups:
        table = _looked_up(table, lookups, inputs)
    if name in IDENTIFIER_RULE:
        table = _identifier_rules(table, inputs)
    if sort_after:
        table = _sorted(table, keys)
    if columns != "*":
        table = table.select(columns.split(", "))
    return to_frame(_utc(table))


#: Values of a row number below this fit two to an int64 sort key (`_sorted`).
_NUMBER_LIMIT: Final = 2**31


def _sorted(table: pa.Table, keys: list[tuple[str, str, str]]) -> pa.Table:
    """``table`` in the order of ``keys`` (`_sort_keys`: ascending, nulls last). Ordered by
    two row numbers (`matched`: ``ln``, ``sn``), it is sorted by one int64 made of both
    (a NULL as the limit, after every number) with NumPy's stable sort: the same order as
    Arrow's sort by the two columns (stable too), ~18 against ~50 ms for a million
    matched rows, which come mostly in order. Any other order is Arrow's."""
    columns = [table.column(name) for name, _, _ in keys]
    if len(columns) != 2 or any(column.type != pa.int64() for column in columns):
        return table.sort_by(keys)
    parts = []
    for column in columns:
        low, high = pc.min_max(column).values()
        if low.is_valid and (low.as_py() < 0 or high.as_py() >= _NUMBER_LIMIT):
            return table.sort_by(keys)
        parts.append(pc.fill_null(column, _NUMBER_LIMIT).to_numpy())
    key = parts[0] * (_NUMBER_LIMIT + 1) + parts[1]
    return table.take(pa.array(np.argsort(key, kind="stable")))


def _sort_keys(order: str) -> list[tuple[str, str, str]]:
    """An output's row order (`OUTPUTS`: SQL text, every term ``column ASC NULLS LAST``) as
    Arrow sort keys. The host sorts the rows it read, once their ids are looked up: Arrow
    sorts a million matched rows in about half the CPU of an ORDER BY in DuckDB, which
    gathers every column of every row through its sort (~0.25 -> ~0.15 s at 1M)."""
    keys = []
    for term in order.split(", "):
        column, *rest = term.split()
        if rest != ["ASC", "NULLS", "LAST"]:
            raise ValueError(f"an output's order must be ascending, nulls last: {term!r}")
        keys.append((column, "ascending", "at_end"))
    return keys


def _looked_up(
    table: pa.Table, lookups: tuple[tuple[str, str, str, str], ...], inputs: dict[str, pa.Table]
) -> pa.Table:
    """``table`` with its looked-up columns added, taken by position (row number n is row
    n - 1 of its input; no number, no value; a categorical decoded to text). The columns
    are taken on all cores (Arrow releases the GIL): ~80 ms of copying at a million rows."""
    positions = {number: pc.subtract(table.column(number), 1) for _, _, _, number in lookups}

    def take(lookup: tuple[str, str, str, str]) -> pa.ChunkedArray:
        _, source, column, number = lookup
        values = inputs[source].column(column).take(positions[number])
        if pa.types.is_dictionary(values.type):
            values = values.cast(values.type.value_type)
        return values

    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        taken = list(pool.map(take, lookups))
    for (output, _, _, _), values in zip(lookups, taken, strict=True):
        table = table.append_column(output, values)
    return table


def _identifier_rules(table: pa.Table, inputs: dict[str, pa.Table]) -> pa.Table:
    """``rule`` named where the SQL left it empty (`IDENTIFIER_RULE`): the first of the
    row's identifiers equal to the entry's reference (a settlement key: ``settlement``).
    Compared on the looked-up text: the transaction id at once, the others for the few
    rows left (~10 ms at a million rows, where a join back to both inputs cost ~0.1 s).
    When rows are left, the column is built once, taking each row's text by a number (a
    name's position, or past the names its own rule's): replacing the few rows in a
    million-row text column copied it whole a second time (~35 ms)."""
    rule = table.column("rule").combine_chunks()
    empty = rule.is_null()
    if not pc.any(empty).as_py():
        return table
    reference = table.column("reference").combine_chunks()
    same = pc.fill_null(pc.equal(reference, table.column("transaction_id").combine_chunks()), False)
    left = pc.and_(empty, pc.invert(same))
    if not pc.any(left).as_py():
        named = pc.if_else(pc.and_(empty, same), pa.scalar("transaction_id"), rule)
        return table.set_column(table.schema.get_field_index("rule"), "rule", named)
    where = pc.indices_nonzero(left)
    positions = pc.subtract(pc.take(table.column("sn").combine_chunks(), where), 1)
    statement = inputs["statement_in"]
    refs = pc.take(reference, where)
    names = (*IDENTIFIER_RULE["matched"], "settlement")
    nameless = len(names)  # the position of no name (NULL)
    found = np.full(len(where), nameless, dtype=np.int64)
    for number, column in reversed(list(enumerate(IDENTIFIER_RULE["matched"]))):
        values = _take_few(statement.column(column), positions)
        equal = pc.fill_null(pc.equal(values, refs), False).to_numpy(zero_copy_only=False)
        found[equal] = number
    settlement = (
        inputs["ledger_in"]
        .column("settlement")
        .take(pc.subtract(pc.take(table.column("ln").combine_chunks(), where), 1))
    )
    found[pc.is_valid(settlement).to_numpy(zero_copy_only=False)] = len(names) - 1
    numbers = np.where(same.to_numpy(zero_copy_only=False), 0, nameless)
    numbers[where.to_numpy()] = found
    given = ~empty.to_numpy(zero_copy_only=False)
    numbers[given] = np.arange(nameless + 1, nameless + 1 + int(given.sum()))
    texts = pa.concat_arrays([pa.array([*names, None], rule.type), rule.drop_null()])
    named = texts.take(pa.array(numbers))
    return table.set_column(table.schema.get_field_index("rule"), "rule", named)


def _take_few(column: pa.ChunkedArray, positions: pa.Array) -> pa.Array:
    """``column``'s values at ``positions`` (no nulls), each taken from the chunk that holds
    it: Arrow's take on a column of several chunks first copies them into one (~8 ms a
    text column of a million statement rows, for the few dozen rows `_identifier_rules`
    names), here only the rows wanted are copied. The same values as ``column.take``."""
    if column.num_chunks <= 1:
        return column.take(positions).combine_chunks()
    wanted = positions.to_numpy(zero_copy_only=False)
    lengths = np.fromiter((len(chunk) for chunk in column.chunks), np.int64, column.num_chunks)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    chunk_of = np.searchsorted(starts, wanted, side="right") - 1
    order = np.argsort(chunk_of, kind="stable")
    parts = []
    for number in np.unique(chunk_of):
        picked = order[chunk_of[order] == number]
        local = pa.array(wanted[picked] - starts[number])
        parts.append(column.chunk(int(number)).take(local))
    gathered = pa.concat_arrays(parts) if parts else pa.array([], column.type)
    inverse = np.empty(len(order), np.int64)
    inverse[order] = np.arange(len(order))
    return gathered.take(pa.array(inverse))


def _utc(table: pa.Table) -> pa.Table:
    """DuckDB hands timestamps back in the session zone; the frames say UTC."""
    fields: list[Any] = []
    for field in table.schema:
        if pa.types.is_timestamp(field.type) and field.type.tz is not None:
            fields.append(pa.field(field.name, pa.timestamp(field.type.unit, tz="UTC")))
        else:
            fields.append(field)
    return table.cast(pa.schema(fields))
