"""Running the reconciliation's steps on DuckDB: the inputs registered in chunks, then each
step of `pixops.recon._sql.STEPS` made in order: a temporary table, a view, or (a host's
shortcut, the same rows) rows taken by position or an Arrow table; the connection's
settings put back after the steps that change them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from pixops.recon._sql import EXACT, STEPS, TAKEN

__all__ = ["CHUNK_ROWS", "run_steps"]

#: Rows per chunk of the inputs handed to DuckDB (its scans run one chunk per task).
CHUNK_ROWS = 65_536

#: Steps that group every entry or row by its number: DuckDB groups them in an array
#: indexed by the number (numbers up to 2^22, ~4M rows) instead of a hash table, about
#: half the CPU at 1M rows (0.23 -> 0.11 s for the two). Only these: the array is sized by
#: the numbers' range, not the rows, so on the few rows the rules' steps group (50,000 of
#: a million) it cost more than the rows (~0.25 s of CPU over those steps at 1M).
_GROUPED_BY_NUMBER: Final = frozenset({"picks", "claims"})

_PERFECT_HASH_BITS: Final = 22

#: Steps read several times that the DuckDB host keeps as Arrow tables (the step's query
#: fetched with `to_arrow_table`, registered under its name) instead of writing them to
#: temporary tables: DuckDB 2.0 spends ~130 ns a row on each text column it writes to a
#: table (`stmt`'s two status and direction columns of a million rows, ~0.17 s of CPU of
#: its ~0.5 s; `few_led`'s seven and `few_stmt`'s four of ~50,000 rows, ~25 ms each) and
#: far less handing them to Arrow; their readers scan the Arrow table in about the time
#: they took on the table (a few tiny lookups by row number a little more: DuckDB's join
#: filter does not reach an Arrow scan). The same SQL and the same rows either way.
_ARROW_STEPS: Final = frozenset({"stmt", "few_led", "few_stmt"})


@contextmanager
def run_steps(
    con: duckdb.DuckDBPyConnection,
    zone: str,
    inputs: dict[str, pa.Table],
    until: str | None = None,
    *,
    shortcuts: bool = True,
    made: Callable[[str], None] | None = None,
    drop: bool = True,
) -> Iterator[duckdb.DuckDBPyConnection]:
    """`STEPS` run on ``con`` in order (through step ``until`` when given), their
    tables readable inside the block; the inputs and steps are dropped after it. With
    ``shortcuts``, a `TAKEN` step is made by taking the input's rows by position
    (`_take`) rather than by its SQL's join, and with no tolerance on a ledger in base
    units (`_exact`) the `EXACT` texts run, and the `_ARROW_STEPS` are kept as Arrow
    tables: the same rows either way, without scanning the million rows' columns,
    comparing six columns of a million candidates or writing text to DuckDB's tables for
    nothing (tests run both). ``made`` is called with each step's name once it is made
    (`_run` reads an output there while the later steps run). Without ``drop`` the inputs
    and steps are left to the connection, for a caller that closes it at once (its
    temporary tables go with it: ~0.7 ms, where dropping each step took ~25 ms)."""
    names = [name for name, _, _ in STEPS]
    if until is not None and until not in names:
        raise ValueError(f"no step named {until!r}")
    con.execute(f"SET TimeZone = '{zone}'")
    for name, table in inputs.items():
        con.register(name, _in_chunks(table))
    found = con.execute("SELECT current_setting('perfect_ht_threshold')").fetchone()
    bits = int(found[0]) if found else _PERFECT_HASH_BITS
    taken: list[str] = []
    texts = EXACT if shortcuts and _exact(inputs) else {}
    try:
        for name, step_sql, materialise in STEPS:
            # The shortcut only stands in for the text it was written for: a step given
            # another text (tests/recon/test_matching_reference.py runs older steps) runs it.
            full, exact = texts.get(name, (step_sql, step_sql))
            sql = exact if step_sql == full else step_sql
            if shortcuts and name in TAKEN:
                con.register(name, _take(con, inputs, *TAKEN[name]))
                taken.append(name)
            elif shortcuts and name in _ARROW_STEPS:
                con.register(name, _in_chunks(con.sql(sql).to_arrow_table()))
                taken.append(name)
            else:
                kind = "TABLE" if materialise else "VIEW"
                with _grouping_for(con, name, bits):
                    con.execute(f"CREATE OR REPLACE TEMP {kind} {name} AS {sql}")
            if made is not None:
                made(name)
            if name == until:
                break
        yield con
    finally:
        if drop:
            for name in [*inputs, *taken]:
                con.unregister(name)
            for name, _, materialise in reversed(STEPS):
                if name not in taken:
                    con.execute(f"DROP {'TABLE' if materialise else 'VIEW'} IF EXISTS {name}")


def _exact(inputs: dict[str, pa.Table]) -> bool:
    """No tolerance is set and the ledger keeps base units: `EXACT` gives the same rows
    (False without those inputs)."""
    if "rules_in" not in inputs or "scope_in" not in inputs:
        return False
    rules = inputs["rules_in"].to_pylist()[0]
    steps = inputs["scope_in"].column("ledger_step_base").to_pylist()
    return steps == [1] and all(
        rules[name] == 0 for name in ("amount_base", "amount_bp", "fee_base", "day_window")
    )


def _take(
    con: duckdb.DuckDBPyConnection,
    inputs: dict[str, pa.Table],
    source: str,
    number: str,
    numbers: str,
    columns: tuple[str, ...],
) -> pa.Table:
    """Step ``numbers``'s rows, each with ``columns`` of the row of input ``source`` its
    ``number`` points at (a `TAKEN` step), taken by position: row n is row n - 1 of its
    input (`_numbered`); a row without a number has no input row, as in the SQL's join.
    ~10 ms for 50,000 of a million rows, where DuckDB's join scanned every input row's
    columns (~60-90 ms)."""
    listed = con.sql(
        f"SELECT * FROM {numbers} WHERE {number} IS NOT NULL"  # noqa: S608
    ).to_arrow_table()
    rows = inputs[source].select(list(columns)).take(pc.subtract(listed.column(number), 1))
    for name in columns:
        listed = listed.append_column(name, rows.column(name))
    return listed


@contextmanager
def _grouping_for(con: duckdb.DuckDBPyConnection, step: str, bits: int) -> Iterator[None]:
    """Run `step` with DuckDB's array grouping widened when it groups by row number
    (`_GROUPED_BY_NUMBER`), then put the connection's own setting (`bits`) back."""
    if step not in _GROUPED_BY_NUMBER or bits >= _PERFECT_HASH_BITS:
        yield
        return
    con.execute(f"SET SESSION perfect_ht_threshold = {_PERFECT_HASH_BITS}")
    try:
        yield
    finally:
        con.execute(f"SET SESSION perfect_ht_threshold = {bits}")


def _in_chunks(table: pa.Table) -> pa.Table:
    """The table in chunks of at most `CHUNK_ROWS` (zero-copy slices) for DuckDB, which
    scans an Arrow table one chunk per task: a table in one chunk would be read by one
    core. The inputs themselves stay whole, as read: `pixops.recon._outputs` takes rows from them,
    and a take across chunks first copies them into one (~40 ms at a million rows)."""
    return pa.Table.from_batches(table.to_batches(max_chunksize=CHUNK_ROWS), table.schema)
