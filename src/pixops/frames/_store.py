"""A local DuckDB copy of the statement, synced incrementally and keyed by id.

A month is downloaded once; later syncs fetch only the UTC days that can still change:
days never synced, days last synced before they were over (plus a margin for rows that
are stored late, see `SETTLE_MARGIN`), and days holding rows that were still in flight.
Rows are upserted by ``id``, so re-running never duplicates and an in-flight row is
replaced by its settled version. Reading a window holds every UTC day it touches to
have been synced: a day never fetched would otherwise read as a day without movements.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa

from pixops._paths import output_file_problem, output_folder_problem
from pixops.errors import PixopsError
from pixops.frames._days import day_window
from pixops.frames._load import load_statement_table, marked_window, pages_of
from pixops.frames._schema import STATEMENT_SCHEMA, conform_table, to_frame

__all__ = ["LocalStore", "SyncReport", "service_now"]

#: A day is final once synced this long after it ended with nothing in flight. Rows can
#: appear in a day after it ended: a paid QR's credit row is stored when the payment is
#: linked (spec, the QR fallback shape), with the payment's time as `created_at`, and the
#: spec gives no bound on that delay. A day's margin costs one more fetch of one day.
SETTLE_MARGIN = timedelta(days=1)

_DUCKDB_TYPES = {
    pa.string(): "VARCHAR",
    pa.int64(): "BIGINT",
    pa.timestamp("us", tz="UTC"): "TIMESTAMPTZ",
}
_COLUMNS = ", ".join(STATEMENT_SCHEMA.names)


def _is_text(name: str) -> bool:
    """A categorical column (an ENUM once registered in DuckDB, VARCHAR when stored)."""
    return bool(pa.types.is_dictionary(STATEMENT_SCHEMA.field(name).type))


def _ddl() -> str:
    columns = []
    for field in STATEMENT_SCHEMA:
        sql_type = "VARCHAR" if pa.types.is_dictionary(field.type) else _DUCKDB_TYPES[field.type]
        key = " PRIMARY KEY" if field.name == "id" else ""
        columns.append(f"{field.name} {sql_type}{key}")
    return f"CREATE TABLE IF NOT EXISTS statement ({', '.join(columns)})"


@dataclass(frozen=True)
class SyncReport:
    """What one `LocalStore.sync` did."""

    days_fetched: tuple[date, ...]
    days_skipped: tuple[date, ...]
    rows_fetched: int
    rows_inserted: int
    #: Stored rows whose fetched version differs (e.g. a payment that settled).
    rows_updated: int
    #: Stored rows fetched again exactly as they were.
    rows_unchanged: int = 0


class LocalStore:
    """The statement in a DuckDB file (or ``":memory:"``), refreshed by delta."""

    def __init__(
        self, path: str | Path = ":memory:", *, settle_margin: timedelta = SETTLE_MARGIN
    ) -> None:
        if not isinstance(path, (str, Path)):
            raise TypeError("path must be a file path or ':memory:'")
        if not isinstance(settle_margin, timedelta) or settle_margin < timedelta(0):
            raise ValueError(
                f"settle_margin must be a timedelta of 0 or more, not {settle_margin!r}"
            )
        self.path = str(path)
        self.settle_margin = settle_margin
        self._closed = False
        if self.path != ":memory:":  # a missing folder is made, as `pixops recon --out` is
            problem = output_file_problem(Path(self.path), example="pix.duckdb")
            if problem is not None:
                raise ValueError(f"cannot open the store {self.path}: {problem}")
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.connection = duckdb.connect(self.path)
        except duckdb.Error as error:  # not a DuckDB file
            raise ValueError(f"cannot open the store {self.path}: {error}") from None
        self.connection.execute("SET TimeZone = 'UTC'")
        self.connection.execute(_ddl())
        self.connection.execute(
            "CREATE TABLE IF NOT EXISTS synced_days"
            " (day DATE PRIMARY KEY, synced_at TIMESTAMPTZ NOT NULL)"
        )

    def close(self) -> None:
        self._closed = True
        self.connection.close()

    def _open(self) -> duckdb.DuckDBPyConnection:
        """The connection, or a clear error once `close` has been called."""
        if self._closed:
            raise ValueError(f"the store {self.path} is closed; open a new LocalStore")
        return self.connection

    def __enter__(self) -> LocalStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def days_to_fetch(self, first: date, last: date) -> list[date]:
        """UTC days in ``first``..``last`` whose rows may still change (see module doc)."""
        _check_days(first, last)
        con = self._open()
        synced = {
            day: moment.replace(tzinfo=UTC)
            for day, moment in con.execute(
                "SELECT day, CAST(synced_at AS TIMESTAMP) FROM synced_days"
                " WHERE day BETWEEN ? AND ?",
                [first, last],
            ).fetchall()
        }
        in_flight = {
            row[0]
            for row in con.execute(
                "SELECT DISTINCT CAST(created_at AS DATE) FROM statement"
                " WHERE payment_status = 'processing' AND CAST(created_at AS DATE) BETWEEN ? AND ?",
                [first, last],
            ).fetchall()
        }
        wanted = []
        day = first
        while day <= last:
            day_end = datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
            when = synced.get(day)
            if when is None or when < day_end + self.settle_margin or day in in_flight:
                wanted.append(day)
            day += timedelta(days=1)
        return wanted

    def sync(
        self,
        client: object,
        start: date | str,
        end: date | str,
        *,
        tz: str | tzinfo | None = None,
        now: datetime | None = None,
        progress: bool = True,
    ) -> SyncReport:
        """Bring days ``start``..``end`` (business days in ``tz``) up to date.

        ``now`` is the service's current time, which decides the days that are final:
        by default the service's own clock (``GET /balance``'s ``as_of``; a sandbox's
        is not the wall clock), or the wall clock when the key may not read the balance.
        """
        window = day_window(start, end, tz)
        if not isinstance(progress, bool):
            raise TypeError(f"progress must be True or False, not {progress!r}")
        self._open()
        moment = service_now(client) if now is None else now
        if not isinstance(moment, datetime) or moment.tzinfo is None:
            raise ValueError("now must be a time-zone-aware datetime")
        pages_of(client, "statement")  # a wrong client is said even when nothing is due
        wanted = self.days_to_fetch(window.date_from, window.date_to)
        all_days = [
            window.date_from + timedelta(days=n)
            for n in range((window.date_to - window.date_from).days + 1)
        ]
        fetched: list[pa.Table] = []
        for first, last in _runs(wanted):
            fetched.append(load_statement_table(client, first, last, progress=progress))
        rows = pa.concat_tables(fetched) if fetched else STATEMENT_SCHEMA.empty_table()
        inserted, updated, unchanged = self._upsert(rows)
        con = self._open()
        for day in wanted:
            con.execute(
                "INSERT OR REPLACE INTO synced_days"
                " VALUES (?, CAST(? AS TIMESTAMP) AT TIME ZONE 'UTC')",
                [day, moment.astimezone(UTC).replace(tzinfo=None)],
            ).fetchall()
        return SyncReport(
            days_fetched=tuple(wanted),
            days_skipped=tuple(day for day in all_days if day not in set(wanted)),
            rows_fetched=rows.num_rows,
            rows_inserted=inserted,
            rows_updated=updated,
            rows_unchanged=unchanged,
        )

    def _upsert(self, rows: pa.Table) -> tuple[int, int, int]:
        """``rows`` stored by id: (inserted, updated, unchanged)."""
        if rows.num_rows == 0:
            return 0, 0, 0
        con = self._open()
        con.register("fetched_rows", rows)
        stored = ", ".join(f"s.{name}" for name in STATEMENT_SCHEMA.names)
        fetched = ", ".join(
            f"CAST(f.{name} AS VARCHAR)" if _is_text(name) else f"f.{name}"
            for name in STATEMENT_SCHEMA.names
        )
        try:
            con.execute("BEGIN TRANSACTION")
            existing = con.execute(
                "SELECT COUNT(*), COUNT(*) FILTER"  # noqa: S608 (column names of the schema)
                f" (WHERE ({stored}) IS DISTINCT FROM ({fetched}))"
                " FROM statement s JOIN fetched_rows f ON f.id = s.id"
            ).fetchall()
            found, updated = int(existing[0][0]), int(existing[0][1])
            con.execute(
                f"INSERT OR REPLACE INTO statement ({_COLUMNS})"  # noqa: S608
                f" SELECT {_COLUMNS} FROM fetched_rows"
            ).fetchall()
            con.execute("COMMIT")
        except duckdb.Error:
            con.execute("ROLLBACK")
            raise
        finally:
            con.unregister("fetched_rows")
        return rows.num_rows - found, updated, found - updated

    def unsynced_days(self, first: date, last: date) -> list[date]:
        """UTC days in ``first``..``last`` that no sync has fetched yet."""
        _check_days(first, last)
        con = self._open()
        synced = {
            row[0]
            for row in con.execute(
                "SELECT day FROM synced_days WHERE day BETWEEN ? AND ?", [first, last]
            ).fetchall()
        }
        count = (last - first).days + 1
        days = (first + timedelta(days=n) for n in range(count))
        return [day for day in days if day not in synced]

    def statement_table(
        self,
        start: date | str,
        end: date | str,
        *,
        tz: str | tzinfo | None = None,
        allow_unsynced: bool = False,
    ) -> pa.Table:
        """Stored rows created in days ``start``..``end`` (in ``tz``), declared schema.

        Every UTC day the window touches must have been synced (a São Paulo day touches
        two): else a ValueError names the missing days, unless ``allow_unsynced``.
        """
        window = day_window(start, end, tz)
        if not isinstance(allow_unsynced, bool):
            raise TypeError("allow_unsynced must be True or False")
        missing = [] if allow_unsynced else self.unsynced_days(window.date_from, window.date_to)
        if missing:
            shown = ", ".join(day.isoformat() for day in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            raise ValueError(
                f"the store has never synced the UTC days {shown}{more}, which days"
                f" {window.first}..{window.last} ({window.tz}) need: run sync(client,"
                f" {str(window.first)!r}, {str(window.last)!r}, tz={window.tz!r}) first"
                " (or pass allow_unsynced=True for what is stored)"
            )
        con = self._open()
        table = con.sql(
            f"SELECT {_COLUMNS} FROM statement"  # noqa: S608
            " WHERE created_at >= $start AND created_at < $end ORDER BY created_at DESC, id DESC",
            params={"start": window.start_at, "end": window.end_at},
        ).to_arrow_table()
        return conform_table(table)

    def statement(
        self,
        start: date | str,
        end: date | str,
        *,
        tz: str | tzinfo | None = None,
        allow_unsynced: bool = False,
    ) -> pd.DataFrame:
        """`statement_table` as an Arrow-backed DataFrame."""
        table = self.statement_table(start, end, tz=tz, allow_unsynced=allow_unsynced)
        return marked_window(to_frame(table), start, end, tz)

    def write_parquet(
        self,
        directory: str | Path,
        start: date | str,
        end: date | str,
        *,
        tz: str | tzinfo | None = None,
        allow_unsynced: bool = False,
    ) -> Path:
        """`statement_table` of days ``start``..``end`` as Parquet partitioned by business
        day in ``tz``, hive style (``business_date=2026-01-15/part-0.parquet``), where Spark
        (`pixops.recon.spark`), DuckDB and pyarrow read it; categories as plain text. The
        folder is written beside ``directory`` and moved in once complete, replacing an
        earlier copy: a failure leaves it as it was."""
        import pyarrow.dataset as ds

        from pixops.frames._days import local_dates

        window = day_window(start, end, tz)
        table = self.statement_table(start, end, tz=tz, allow_unsynced=allow_unsynced)
        plain = pa.Table.from_arrays(
            [
                column.cast(column.type.value_type)
                if pa.types.is_dictionary(column.type)
                else column
                for column in table.columns
            ],
            names=table.column_names,
        )
        days = local_dates(plain.column("created_at"), window.tz)
        target = Path(directory)
        problem = output_folder_problem(target)
        if problem is not None:
            raise ValueError(f"cannot write {target}: {problem}")
        target.parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            ds.write_dataset(
                plain.append_column("business_date", days),
                stage / "data",
                format="parquet",
                partitioning=ds.partitioning(
                    pa.schema([("business_date", pa.date32())]), flavor="hive"
                ),
                basename_template="part-{i}.parquet",
            )
            old = stage / "old"
            if target.exists():
                os.replace(target, old)
            os.replace(stage / "data", target)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
        return target

    def row_count(self) -> int:
        found = self._open().execute("SELECT COUNT(*) FROM statement").fetchall()
        return int(found[0][0])


def _check_days(first: object, last: object) -> None:
    """``first``..``last`` are ``datetime.date`` days in order, or a clear error."""
    for name, day in (("first", first), ("last", last)):
        if not isinstance(day, date) or isinstance(day, datetime):
            raise TypeError(f"{name} must be a date, not {type(day).__name__}")
    if last < first:  # type: ignore[operator]
        raise ValueError(f"last ({last}) is before first ({first})")


def _runs(days: list[date]) -> list[tuple[date, date]]:
    """Consecutive days grouped into (first, last) ranges: one paginated load per run."""
    runs: list[tuple[date, date]] = []
    for day in days:
        if runs and runs[-1][1] + timedelta(days=1) == day:
            runs[-1] = (runs[-1][0], day)
        else:
            runs.append((day, day))
    return runs


def service_now(client: object) -> datetime:
    """The service's clock (``GET /balance``'s ``as_of``); when the key may not read the
    balance, the time the refusal itself was dated with (`Client.service_time`); the
    wall clock only for a client that has neither."""
    reader = getattr(client, "balance", None)
    if not callable(reader):
        return _served_time(client)
    try:
        as_of = reader().as_of
    except PixopsError as error:
        # A 403 (the client's PermissionDeniedError): the key may not read the balance.
        # Matched by status, so the frames need not import the HTTP client to be used.
        if getattr(error, "status", None) != 403:
            raise
        return _served_time(client)
    if not isinstance(as_of, datetime) or as_of.tzinfo is None:
        raise ValueError(f"the service's balance as_of is not an aware time: {as_of!r}")
    return as_of


def _served_time(client: object) -> datetime:
    """The client's reading of the service's time (its answers' ``Date``), else UTC now."""
    served = getattr(client, "service_time", None)
    moment = served() if callable(served) else None
    return moment if isinstance(moment, datetime) and moment.tzinfo else datetime.now(UTC)
