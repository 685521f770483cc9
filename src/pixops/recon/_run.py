"""Reconcile on DuckDB: `reconcile`, from the caller's books to a `ReconResult`.

The rules are in `pixops.recon._sql` only; this module is the DuckDB host's front: it
validates and converts the inputs to Arrow (`prepare_inputs`), has the steps run
(`pixops.recon._steps`) and their outputs finished (`pixops.recon._outputs`, Arrow-backed
frames, never through ``.df()``, which turns integer sums into float64), the first of
them in a thread while the later steps run, and warns of what it could not judge.
"""

from __future__ import annotations

import contextlib
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any, Final
from zoneinfo import ZoneInfo

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pixops.frames import WINDOW_ATTR, as_table, local_dates, parse_tz
from pixops.money import MoneyError, check_int64
from pixops.recon._balances import balances_table
from pixops.recon._categories import CATEGORIES
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
from pixops.recon._outputs import finished, read
from pixops.recon._result import ReconResult
from pixops.recon._review import Decision, ReviewFile, decisions_table
from pixops.recon._sql import OUTPUTS
from pixops.recon._sql._findings import COPY_DETAIL
from pixops.recon._steps import run_steps
from pixops.recon._tolerances import Tolerances

__all__ = ["balance_snapshot", "prepare_inputs", "reconcile"]


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
                early[step] = pool.submit(finished, step, read(con, step), inputs)

        with run_steps(con, zone, inputs, made=made, drop=drop):
            for name in OUTPUTS:
                if name not in early:
                    outputs[name] = finished(name, read(con, name), inputs)
        for name, finishing in early.items():
            outputs[name] = finishing.result()
    return {name: outputs[name] for name in OUTPUTS}


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
