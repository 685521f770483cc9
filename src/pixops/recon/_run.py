"""Run the reconciliation SQL on DuckDB: register inputs as views, set the time zone, run.

The rules are in `pixops.recon._sql` only; this module is the host: it validates and
converts the inputs to Arrow, registers them (zero-copy), runs the steps and brings the
outputs back as Arrow-backed frames (never through ``.df()``, which turns integer sums
into float64).
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any, Final
from zoneinfo import ZoneInfo

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pixops.frames import WINDOW_ATTR, as_table, local_dates, parse_tz, to_frame
from pixops.money import MoneyError, check_int64
from pixops.recon._balances import balances_table
from pixops.recon._database import cursor
from pixops.recon._inputs import (
    LedgerMapping,
    LoadedLedger,
    days_or_none,
    load_ledger,
    webhooks_table,
)
from pixops.recon._ledger_extras import padded, seconds_since_epoch
from pixops.recon._mapping_file import find_mapping, read_mapping, read_tolerances
from pixops.recon._result import CATEGORIES, ReconResult
from pixops.recon._review import Decision, ReviewFile, decisions_table
from pixops.recon._sql import EXACT, IDENTIFIER_RULE, LOOKUPS, OUTPUTS, STEPS, TAKEN
from pixops.recon._sql._findings import COPY_DETAIL
from pixops.recon._tolerances import Tolerances

__all__ = ["balance_snapshot", "prepare_inputs", "reconcile", "run_steps"]

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

_SCOPE_SCHEMA = pa.schema(
    [("first_day", pa.date32()), ("last_day", pa.date32()), ("ledger_step_base", pa.int64())]
)


def _zone_name(tz: str | tzinfo) -> str:
    zone = parse_tz(tz)
    name = getattr(zone, "key", None) or ("UTC" if str(zone) == "UTC" else None)
    if name is None:
        raise ValueError("tz must be a named zone (e.g. 'America/Sao_Paulo') for SQL")
    return str(name)


def reconcile(
    statement: pd.DataFrame | pa.Table,
    ledger: str | Path | pd.DataFrame | pa.Table | LoadedLedger,
    *,
    webhooks: pd.DataFrame | pa.Table | None = None,
    balances: str | Path | pd.DataFrame | pa.Table | list[tuple[datetime, int]] | None = None,
    start: date | str | None = None,
    end: date | str | None = None,
    tz: str | tzinfo = "America/Sao_Paulo",
    mapping: LedgerMapping | None = None,
    connection: duckdb.DuckDBPyConnection | None = None,
    tolerances: Tolerances | None = None,
    review_file: str | Path | ReviewFile | None = None,
) -> ReconResult:
    """Reconcile a statement (`pixops.frames` schema) against a merchant ledger.

    - ``ledger``: CSV/Parquet path, DataFrame or Arrow table, read with ``mapping``
      (`LedgerMapping`, or `read_mapping` of a mapping file; defaults to the columns of
      `data/sample_ledger.csv`; for a file path without a mapping, the mapping file
      saved beside it, `find_mapping`, as every tool reads it), or a `LoadedLedger`.
      How it was read is the result's
      `ledger_reading`; it is compared at the precision it keeps (a ledger in centavos
      to the centavo: a smaller difference is ``rounding``, counted apart).
    - ``webhooks``: the inbox frame (`pixops.webhooks.Inbox.to_frame`): final statuses
      are checked against the statement and refunds are linked to their originals.
    - ``balances``: balance snapshots (``as_of``, ``balance_base``), e.g. the opening
      snapshot and `balance_snapshot(client)`, or a snapshots CSV path
      (`read_balances`): each consecutive pair is rolled forward.
    - ``start``/``end``: business days (in ``tz``) to report on; rows just outside
      still match, so a payment booked on one side of midnight is a timing difference,
      not two missing items. None means unbounded. A frame from `load_statement` that
      does not cover these days in ``tz`` and a day either side (UTC days, the loader's
      default) is a UserWarning: the rows it lacks would read as missing. Balance
      snapshots outside the instants such a frame was loaded for are left out of the
      roll-forward, with a UserWarning: the statement lacks the movements around them.
    - ``tolerances``: `Tolerances` (how far a pair may differ, inferred pairs, groups by
      reference); None: the ``[tolerances]`` of the mapping file read beside the ledger,
      else the exact rules. Each matched row says by which rule (``rule``)
      and which tolerances it needed (``tolerance``).
    - ``review_file``: the decisions file (`ReviewFile`, a CSV beside the ledger:
      `review_path`): confirmed pairs are matched, rejected ones never suggested again. A
      decision naming an entry the ledger lacks, or a row the statement lacks on a day
      reported on, is not applied, with a UserWarning naming it.
    Returns a `ReconResult`.
    """
    if mapping is None and isinstance(ledger, str | Path):
        beside = find_mapping(ledger)  # what every tool reads: the file saved beside it
        if beside is not None:
            mapping = read_mapping(beside)
            tolerances = read_tolerances(beside) if tolerances is None else tolerances
    rules = Tolerances() if tolerances is None else tolerances
    if not isinstance(rules, Tolerances):
        raise TypeError(f"tolerances must be a Tolerances, not {type(rules).__name__}")
    if review_file is not None and not isinstance(review_file, ReviewFile):
        review_file = ReviewFile(review_file)
    decisions = [] if review_file is None else review_file.decisions()
    if connection is not None and not isinstance(connection, duckdb.DuckDBPyConnection):
        raise TypeError(
            f"connection must be a DuckDB connection (duckdb.connect()), "
            f"not {type(connection).__name__}"
        )
    zone = _zone_name(tz)
    first = days_or_none(start, "start")
    last = days_or_none(end, "end")
    window = _loaded_window(statement)
    if window is not None:
        _warn_if_not_loaded(window, first, last, zone)
    inputs, loaded = _prepared(
        statement,
        ledger,
        webhooks=webhooks,
        balances=balances,
        scope=(first, last),
        tz=zone,
        mapping=mapping,
        tolerances=rules,
        decisions=decisions,
    )
    if decisions:
        _warn_of_stale(decisions, inputs, (first, last))
    if window is not None:
        inputs["balances_in"] = _snapshots_inside(inputs["balances_in"], window)
    con = cursor() if connection is None else connection
    try:
        outputs = _run(con, zone, inputs, drop=connection is not None)
    finally:
        if connection is None:
            con.close()
    _warn_of_copies(outputs["discrepancies"])
    return ReconResult(
        matched=outputs["matched"],
        discrepancies=outputs["discrepancies"],
        refunds=outputs["refunds"],
        rollforward=outputs["rollforward"],
        summary=outputs["summary"],
        first_day=first,
        last_day=last,
        tz=zone,
        tolerances=rules,
        ledger_reading=loaded.reading,
    )


def _warn_of_stale(
    decisions: list[Decision], inputs: dict[str, pa.Table], scope: tuple[date | None, date | None]
) -> None:
    """Warn of each decision that names an entry the ledger no longer has, or a statement
    row missing although its entry's day is reported on: it is not applied."""
    ledger = inputs["ledger_in"]
    entry_ids = [d.entry_id for d in decisions]
    found = ledger.filter(pc.is_in(ledger.column("entry_id"), pa.array(entry_ids)))
    booked = dict(
        zip(
            found.column("entry_id").to_pylist(), found.column("booked_on").to_pylist(), strict=True
        )
    )
    statement = inputs["statement_in"]
    row_ids = pa.array([d.statement_id for d in decisions])
    present = set(
        statement.filter(pc.is_in(statement.column("id"), row_ids)).column("id").to_pylist()
    )
    first, last = scope
    for decision in decisions:
        day = booked.get(decision.entry_id)
        if day is None:
            problem = f"entry {decision.entry_id!r}, which the ledger no longer has"
        elif (
            decision.statement_id not in present
            and (first is None or day >= first)
            and (last is None or day <= last)
        ):
            problem = f"statement row {decision.statement_id!r}, which the statement lacks"
        else:
            continue
        warnings.warn(
            f"review file line {decision.line} ({decision.decision} by {decision.decided_by})"
            f" names {problem}: it is not applied",
            UserWarning,
            stacklevel=3,
        )


def _loaded_window(statement: object) -> tuple[datetime, datetime] | None:
    """The instants a frame from `load_statement` was loaded for (its `WINDOW_ATTR`);
    None for a table or a frame without the mark, which is then not judged."""
    loaded = statement.attrs.get(WINDOW_ATTR) if isinstance(statement, pd.DataFrame) else None
    try:
        start_at = datetime.fromisoformat(loaded["start"])  # type: ignore[index]
        end_at = datetime.fromisoformat(loaded["end"])  # type: ignore[index]
    except (TypeError, KeyError, ValueError):
        return None
    if start_at.tzinfo is None or end_at.tzinfo is None:
        return None
    return start_at, end_at


def _snapshots_inside(snapshots: pa.Table, loaded: tuple[datetime, datetime]) -> pa.Table:
    """The balance snapshots the statement can roll forward between: those taken while it
    was loaded for. A period before or after it has movements the statement lacks, so
    it would read as a balance that does not close; the others are left out, with a
    UserWarning naming how many and the window."""
    start_at, end_at = loaded
    taken = snapshots.column("as_of")
    inside = pc.and_(
        pc.greater_equal(taken, pa.scalar(start_at, taken.type)),
        pc.less_equal(taken, pa.scalar(end_at, taken.type)),
    )
    kept = snapshots.filter(inside)
    left_out = snapshots.num_rows - kept.num_rows
    if left_out:
        warnings.warn(
            f"{left_out} of {snapshots.num_rows} balance snapshots lie outside the"
            f" {start_at:%Y-%m-%d %H:%M} to {end_at:%Y-%m-%d %H:%M} UTC the statement was"
            " loaded for and are not rolled forward: the statement lacks the movements"
            " around them, so they would read as balances that do not close",
            UserWarning,
            stacklevel=3,
        )
    return kept


def _warn_if_not_loaded(
    loaded: tuple[datetime, datetime], first: date | None, last: date | None, zone: str
) -> None:
    """Warn when a frame from `load_statement` was loaded for other instants than the days
    reported on (UTC days, the loader's default, beside São Paulo days here): rows it lacks
    would read as ``missing_in_statement``."""
    start_at, end_at = loaded
    local = ZoneInfo(zone)
    need_start = None if first is None else datetime.combine(first, time.min, tzinfo=local)
    day = timedelta(days=1)
    need_end = None if last is None else datetime.combine(last + day, time.min, tzinfo=local)
    if (need_start is not None and start_at > need_start) or (
        need_end is not None and end_at < need_end
    ):
        problem = (
            "does not cover the days reported on: ledger entries of the hours it lacks will"
            " read as missing_in_statement"
        )
    elif (need_start is not None and start_at > need_start - day) or (
        need_end is not None and end_at < need_end + day
    ):
        problem = (
            "does not span a whole day either side of the days reported on: a payment"
            " booked across midnight will read as missing, not as a timing_difference"
        )
    else:
        return
    warnings.warn(
        f"the statement was loaded for {start_at:%Y-%m-%d %H:%M} to {end_at:%Y-%m-%d %H:%M}"
        f" UTC, which {problem}; load it with tz={zone!r} from the day before start to the"
        " day after end (as pixops recon does)",
        UserWarning,
        stacklevel=3,
    )


def _warn_of_copies(discrepancies: pd.DataFrame) -> None:
    """Copies of a statement id are `duplicate` findings; many of them are most likely two
    overlapping loads concatenated (the loaders never return a copy): say how to drop them."""
    copies = int((discrepancies["detail"] == COPY_DETAIL).sum())
    if copies:
        warnings.warn(
            f"{copies} statement rows repeat an id of another row and are reported as"
            " duplicate: if the statement joins overlapping loads, drop the copies first"
            " (statement.drop_duplicates('id', keep='last'))",
            UserWarning,
            stacklevel=3,
        )


def prepare_inputs(
    statement: pd.DataFrame | pa.Table,
    ledger: str | Path | pd.DataFrame | pa.Table | LoadedLedger,
    *,
    webhooks: pd.DataFrame | pa.Table | None = None,
    balances: str | Path | pd.DataFrame | pa.Table | list[tuple[datetime, int]] | None = None,
    scope: tuple[date | None, date | None] = (None, None),
    tz: str | tzinfo = "America/Sao_Paulo",
    mapping: LedgerMapping | None = None,
    tolerances: Tolerances | None = None,
    decisions: list[Decision] | None = None,
) -> dict[str, pa.Table]:
    """The SQL's inputs (see `pixops.recon._sql`), validated and numbered: what
    `reconcile` hands to `run_steps`."""
    inputs, _ = _prepared(
        statement,
        ledger,
        webhooks=webhooks,
        balances=balances,
        scope=scope,
        tz=tz,
        mapping=mapping,
        tolerances=tolerances,
        decisions=decisions,
    )
    return inputs


def _prepared(
    statement: pd.DataFrame | pa.Table,
    ledger: str | Path | pd.DataFrame | pa.Table | LoadedLedger,
    *,
    webhooks: pd.DataFrame | pa.Table | None,
    balances: str | Path | pd.DataFrame | pa.Table | list[tuple[datetime, int]] | None,
    scope: tuple[date | None, date | None],
    tz: str | tzinfo,
    mapping: LedgerMapping | None,
    tolerances: Tolerances | None,
    decisions: list[Decision] | None,
) -> tuple[dict[str, pa.Table], LoadedLedger]:
    """`prepare_inputs`, with the ledger as it was read. The statement's rows are checked,
    dated and numbered in a thread while the ledger is read here (both mostly Arrow work
    that releases the GIL: ~35 ms of a million rows' days beside ~120 ms of the ledger's
    checks); the ledger's error, if both are wrong, is the one raised, as before."""
    first, last = scope
    if first is not None and last is not None and last < first:
        raise ValueError(f"end {last} is before start {first}")
    zone = _zone_name(tz)
    with ThreadPoolExecutor(max_workers=1) as pool:
        dated = pool.submit(_statement_in, statement, zone)
        loaded = (
            ledger if isinstance(ledger, LoadedLedger) else load_ledger(ledger, mapping, tz=zone)
        )
        statement_in = dated.result()
    inputs = {
        "statement_in": statement_in,
        "ledger_in": _numbered(padded(loaded.table), "ln"),
        "rules_in": (Tolerances() if tolerances is None else tolerances).table(),
        "decisions_in": decisions_table(decisions or []),
        "webhooks_in": webhooks_table(webhooks),
        "balances_in": balances_table(balances),
        "scope_in": pa.Table.from_pylist(
            [{"first_day": first, "last_day": last, "ledger_step_base": loaded.reading.step_base}],
            schema=_SCOPE_SCHEMA,
        ),
        "categories_in": _categories(loaded.reading.step_base),
    }
    return inputs, loaded


def _statement_in(statement: pd.DataFrame | pa.Table, zone: str) -> pa.Table:
    """The statement checked, with its business days and seconds, numbered (``sn``)."""
    return _numbered(_with_business_date(as_table(statement), zone), "sn")


def _categories(step_base: int) -> pa.Table:
    """The categories reported, in order: ``rounding`` only for a ledger that keeps a
    coarser precision than the statement (a base-unit ledger cannot round)."""
    reported = [c for c in CATEGORIES if c != "rounding" or step_base > 1]
    return pa.table(
        {
            "category": pa.array(reported, pa.string()),
            "position": pa.array(range(len(reported)), pa.int32()),
        }
    )


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


#: Outputs read as soon as their step is made, their rows then finished on the host (sorted,
#: ids taken, rules named: ~0.15 s of mostly single-threaded Arrow work for a million
#: matched rows) in a thread while DuckDB runs the steps after them: the two overlap on
#: the cores instead of one waiting for the other (the same rows either way).
_EARLY: Final = frozenset({"matched"})


def _run(
    con: duckdb.DuckDBPyConnection, zone: str, inputs: dict[str, pa.Table], *, drop: bool = True
) -> dict[str, pd.DataFrame]:
    """The outputs of `STEPS` on ``con`` (``drop``: as `run_steps`)."""
    outputs: dict[str, pd.DataFrame] = {}
    with ThreadPoolExecutor(max_workers=1) as pool:
        early: dict[str, Future[pd.DataFrame]] = {}

        def made(step: str) -> None:
            if step in _EARLY:
                early[step] = pool.submit(_finished, step, _read(con, step), inputs)

        with run_steps(con, zone, inputs, made=made, drop=drop):
            for name in OUTPUTS:
                if name not in early:
                    outputs[name] = _finished(name, _read(con, name), inputs)
        for name, finishing in early.items():
            outputs[name] = finishing.result()
    return {name: outputs[name] for name in OUTPUTS}


def _read(con: duckdb.DuckDBPyConnection, name: str) -> pa.Table:
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


def _finished(name: str, table: pa.Table, inputs: dict[str, pa.Table]) -> pd.DataFrame:
    """Output ``name`` as `_read` gave it, sorted, with its ids looked up and its rules
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


def _with_business_date(statement: pa.Table, zone: str) -> pa.Table:
    """The statement with ``business_date`` as its first column: the day of each row's
    ``created_at`` in ``zone``, converted once here (a per-row zone conversion in the SQL
    cost ~0.2 s of CPU at a million rows, in two steps), and ``created_s`` last: its
    whole seconds since the epoch, the form the portable SQL compares times in."""
    created = statement.column("created_at")
    dated = statement.add_column(0, "business_date", local_dates(created, zone))
    return dated.append_column("created_s", seconds_since_epoch(created))


def _numbered(table: pa.Table, name: str) -> pa.Table:
    """The table with its row positions (1, 2, ...) as a first column ``name``."""
    positions = pa.array(np.arange(1, table.num_rows + 1, dtype=np.int64))
    return table.add_column(0, name, positions)


def _in_chunks(table: pa.Table) -> pa.Table:
    """The table in chunks of at most `CHUNK_ROWS` (zero-copy slices) for DuckDB, which
    scans an Arrow table one chunk per task: a table in one chunk would be read by one
    core. The inputs themselves stay whole, as read: `_looked_up` takes rows from them,
    and a take across chunks first copies them into one (~40 ms at a million rows)."""
    return pa.Table.from_batches(table.to_batches(max_chunksize=CHUNK_ROWS), table.schema)


def _utc(table: pa.Table) -> pa.Table:
    """DuckDB hands timestamps back in the session zone; the frames say UTC."""
    fields: list[Any] = []
    for field in table.schema:
        if pa.types.is_timestamp(field.type) and field.type.tz is not None:
            fields.append(pa.field(field.name, pa.timestamp(field.type.unit, tz="UTC")))
        else:
            fields.append(field)
    return table.cast(pa.schema(fields))


def balance_snapshot(client: object) -> tuple[datetime, int]:
    """``(as_of, balance_base)`` from ``GET /balance`` through the client.

    ``balance`` is the ledger balance (in-flight holds do not change it), which is what
    settled movements roll forward to.
    """
    reader = getattr(client, "balance", None)
    if not callable(reader):
        raise TypeError("client must be a pixops.Client (it has no balance())")
    found = reader()
    as_of = _field(found, "as_of")
    amount = _field(found, "balance")
    if isinstance(as_of, str):
        with contextlib.suppress(ValueError):  # refused below in words
            as_of = datetime.fromisoformat(as_of.replace("Z", "+00:00"))
    if not isinstance(as_of, datetime) or as_of.tzinfo is None:
        raise ValueError(f"balance as_of is not a time-zone-aware instant: {as_of!r}")
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise TypeError(f"balance is not an integer of base units: {amount!r}")
    try:
        return as_of, check_int64(int(amount))
    except MoneyError:
        raise MoneyError(f"balance {amount} is outside the signed 64-bit range") from None


def _field(found: object, name: str) -> Any:
    if isinstance(found, dict):
        data = found.get("data", found)
        return data.get(name) if isinstance(data, dict) else None
    return getattr(found, name, None)
