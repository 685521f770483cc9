"""`run_days`: ONE reconciliation run of business days, for every caller.

`pixops recon`, the `ReconDashboard` (and through it the daily notebook and its HTML
report) all run the days here: the day window, the statement one day either side (a
payment booked across midnight is a timing difference), the balance snapshots to roll
forward (the last at or before the first day opens, those inside follow, the live
balance closes), and the refusals (a day that has not come on the service's clock, no
opening balance). The caller builds the client and passes it in, and words the
refusals for its readers (flags for a shell, sentences for a panel).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from pixops.errors import PixopsError
from pixops.frames import (
    LocalStore,
    day_window,
    load_statement_table,
    parse_day,
    service_now,
    to_frame,
)
from pixops.recon._balances import read_balances
from pixops.recon._inputs import LedgerError, LedgerMapping, LoadedLedger, load_ledger
from pixops.recon._mapping_file import find_mapping, read_mapping, read_tolerances
from pixops.recon._result import ReconResult
from pixops.recon._run import balance_snapshot, reconcile

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from pixops.recon._review import ReviewFile
    from pixops.recon._tolerances import Tolerances

__all__ = [
    "DayNotComeError",
    "DaysInputs",
    "DaysRun",
    "NoOpeningBalanceError",
    "RunInputError",
    "load_days",
    "run_days",
]

Snapshot = tuple[datetime, int]


class RunInputError(PixopsError, ValueError):
    """An input of the run that cannot be used: ``setting`` names it (``"ledger"``,
    ``"balances"``, ``"store"``); the reader's own error is the ``__cause__``."""

    def __init__(self, setting: str, source: object, error: BaseException) -> None:
        super().__init__(str(error))
        self.setting = setting
        self.source = source


class DayNotComeError(PixopsError, ValueError):
    """The last day asked for is after the service's today: reconciled, a day that has
    not happened would read as everything reconciled."""

    def __init__(self, last: date, today: date) -> None:
        super().__init__(f"{last} has not happened yet (today is {today})")
        self.last = last
        self.today = today


class NoOpeningBalanceError(PixopsError, ValueError):
    """The balance snapshots have none at or before the first day's start to count from."""

    def __init__(self, start_at: datetime, first_at: datetime | None) -> None:
        super().__init__(f"no balance snapshot at or before {start_at:%Y-%m-%d %H:%M}Z")
        #: The first day's start (UTC), and the first snapshot's time (None: no snapshot).
        self.start_at = start_at
        self.first_at = first_at


@dataclass(frozen=True)
class DaysInputs:
    """What a run of days reads: its days, the statement (one day either side, and up to
    now when rolling balances forward), the ledger as read and the balance snapshots to
    roll forward (None: the balance is not checked)."""

    first: date
    last: date
    tz: str
    statement: pa.Table
    ledger: LoadedLedger
    balances: list[Snapshot] | None

    def statement_frame(self) -> pd.DataFrame:
        """The statement as an Arrow-backed pandas frame (as `load_statement` gives it)."""
        return to_frame(self.statement)


@dataclass(frozen=True)
class DaysRun(DaysInputs):
    """One run of days: its inputs and the `ReconResult`."""

    result: ReconResult


def run_days(
    client: object,
    first: date | str,
    last: date | str | None = None,
    *,
    ledger: str | Path | pd.DataFrame | pa.Table | LoadedLedger,
    balances: str | Path | list[Snapshot] | None = None,
    tz: str = "America/Sao_Paulo",
    store: str | Path | None = None,
    mapping: LedgerMapping | None = None,
    tolerances: Tolerances | None = None,
    review_file: str | Path | ReviewFile | None = None,
    now: datetime | None = None,
    progress: bool = False,
) -> DaysRun:
    """Reconcile business days ``first``..``last`` (one day when ``last`` is None) in
    ``tz`` against ``ledger``, reading the statement through ``client``: `load_days`,
    then `reconcile` with ``tolerances`` and ``review_file``. A ledger path with no
    ``mapping`` is read with the mapping file saved beside it, and its tolerances, as
    `reconcile` and every tool read it."""
    if mapping is None and isinstance(ledger, str | Path):
        beside = find_mapping(ledger)
        if beside is not None:
            mapping = read_mapping(beside)
            tolerances = read_tolerances(beside) if tolerances is None else tolerances
    inputs = load_days(
        client,
        first,
        last,
        ledger=ledger,
        balances=balances,
        tz=tz,
        store=store,
        mapping=mapping,
        now=now,
        progress=progress,
    )
    result = reconcile(
        inputs.statement,
        inputs.ledger,
        balances=inputs.balances,
        start=inputs.first,
        end=inputs.last,
        tz=inputs.tz,
        tolerances=tolerances,
        review_file=review_file,
    )
    return DaysRun(
        inputs.first,
        inputs.last,
        inputs.tz,
        inputs.statement,
        inputs.ledger,
        inputs.balances,
        result,
    )


def load_days(
    client: object,
    first: date | str,
    last: date | str | None = None,
    *,
    ledger: str | Path | pd.DataFrame | pa.Table | LoadedLedger,
    balances: str | Path | list[Snapshot] | None = None,
    tz: str = "America/Sao_Paulo",
    store: str | Path | None = None,
    mapping: LedgerMapping | None = None,
    now: datetime | None = None,
    progress: bool = False,
) -> DaysInputs:
    """The inputs of a run of business days ``first``..``last`` in ``tz`` (for
    `run_days`, or for another engine such as `pixops.recon.spark`).

    ``balances``: a snapshots CSV (`read_balances`) or its ``(as_of, balance_base)``
    pairs; the last at or before the first day opens, those inside the days follow, and
    the live balance (``GET /balance``) closes. ``store``: a DuckDB file
    (`pixops.frames.LocalStore`) synced and read instead of loading the statement whole.
    ``now``: the service's time (default: `pixops.frames.service_now`), which refuses a
    day after its today. Refusals, in this order: `DayNotComeError`, `RunInputError`
    (a ledger, snapshots or store file that cannot be used), `NoOpeningBalanceError`;
    the service's failures are the client's errors.
    """
    first_day = parse_day(first, "first")
    last_day = first_day if last is None else parse_day(last, "last")
    window = day_window(first_day, last_day, tz)
    zone = ZoneInfo(window.tz)
    today = (service_now(client) if now is None else now).astimezone(zone).date()
    if last_day > today:
        raise DayNotComeError(last_day, today)
    try:
        if mapping is None and isinstance(ledger, str | Path):
            beside = find_mapping(ledger)  # the file saved beside it, as every tool reads
            mapping = None if beside is None else read_mapping(beside)
        loaded = ledger if isinstance(ledger, LoadedLedger) else load_ledger(ledger, mapping, tz=tz)
    except LedgerError as error:
        raise RunInputError("ledger", ledger, error) from error
    load_first, load_last = first_day - timedelta(days=1), last_day + timedelta(days=1)
    rolled: list[Snapshot] | None = None
    live_at: datetime | None = None
    if balances is not None:
        snapshots = _snapshots(balances)
        opening = [s for s in snapshots if s[0] <= window.start_at]
        if not opening:
            raise NoOpeningBalanceError(window.start_at, snapshots[0][0] if snapshots else None)
        live = balance_snapshot(client)
        inside = [s for s in snapshots if window.start_at < s[0] <= window.end_at and s < live]
        rolled = [opening[-1], *inside, live]
        live_at = live[0]
        load_first = min(load_first, opening[-1][0].date())
        load_last = max(load_last, live[0].date() + timedelta(days=1))
    statement = _statement(client, (load_first, load_last), window.tz, store, live_at, progress)
    return DaysInputs(first_day, last_day, window.tz, statement, loaded, rolled)


def _snapshots(balances: str | Path | list[Snapshot]) -> list[Snapshot]:
    if not isinstance(balances, str | Path):
        return sorted(balances)
    try:
        return read_balances(balances)
    except (ValueError, OSError) as error:
        raise RunInputError("balances", balances, error) from error


def _statement(
    client: object,
    days: tuple[date, date],
    tz: str,
    store: str | Path | None,
    now: datetime | None,
    progress: bool,
) -> pa.Table:
    """The statement of ``days``: from the service, or synced into ``store`` and read."""
    load_first, load_last = days
    if store is None:
        return load_statement_table(client, load_first, load_last, tz=tz, progress=progress)
    try:
        local = LocalStore(store)
    except ValueError as error:
        raise RunInputError("store", store, error) from error
    with local:
        local.sync(client, load_first, load_last, tz=tz, now=now, progress=progress)
        return local.statement_table(load_first, load_last, tz=tz)
