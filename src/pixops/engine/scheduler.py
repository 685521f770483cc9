"""Timers: due work stored with the data it changes, run in time order.

Under a manual clock `run_due` moves the clock to each timer's due time before
running it, so `Sandbox.advance()` replays the world deterministically. Under the
wall clock a background worker calls `run_due(now)`.

Timers are written only through `schedule`: on an in-memory store `run_due` remembers
the earliest due time it saw and `schedule` lowers that memo, so asking "is anything
due?" costs no query while the answer is no (most `Sandbox.advance()` calls).

A timer that raises is never dropped silently (a payout would stay processing): its
transaction rolls back, it is retried after `RETRY_DELAYS_SECONDS` (a warning each
time), and after the last attempt it is moved to `failed_timers` with an ERROR log,
where `failed_timers()` lists it and `retry_failed()` puts it back.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from pixops.engine.clock import ManualClock, from_db, to_db
from pixops.engine.store import Connection

if TYPE_CHECKING:
    from pixops.engine.core import Engine

log = logging.getLogger("pixops.engine")

TimerFunction = Callable[["Engine", sqlite3.Connection, str, dict[str, Any]], None]


@dataclass(frozen=True)
class TimerKind:
    function: TimerFunction
    #: Atomic timers run in the same transaction that removes them. Others (network
    #: I/O such as webhook delivery) run after the commit, outside the engine lock, and
    #: are leased rather than removed: postponed by `LEASE_SECONDS`, so work lost with
    #: the process before it was taken over runs again. Their function must `cancel`
    #: its (kind, ref) in the transaction that takes the work over, and must be
    #: harmless when run again.
    atomic: bool


@dataclass(frozen=True)
class FailedTimer:
    """A timer that raised on every attempt, set aside for someone to look at."""

    seq: int
    kind: str
    ref: str
    payload: dict[str, Any]
    attempts: int
    last_error: str
    last_due_at: datetime
    failed_at: datetime


#: How long a timer that is not atomic stays leased before it runs again.
LEASE_SECONDS: Final = 5
#: Delays before the 2nd, 3rd, ... attempt of a timer that raised.
RETRY_DELAYS_SECONDS: Final = (1, 5, 30, 300)
MAX_ATTEMPTS: Final = 1 + len(RETRY_DELAYS_SECONDS)

#: The engine's own timer kinds, declared by its modules with `@timer` as they are
#: imported (like the route table). Each engine starts from a copy (`Timers.standard`);
#: anything else, tests' kinds included, is registered on one engine only.
_STANDARD: dict[str, TimerKind] = {}
#: The memo of an empty timers table.
_NO_TIMERS: Final = datetime.max.replace(tzinfo=UTC)


def timer(kind: str, *, atomic: bool = True) -> Callable[[TimerFunction], TimerFunction]:
    """Declare one of the engine's standard timer kinds (engine modules only)."""

    def register(function: TimerFunction) -> TimerFunction:
        _STANDARD[kind] = TimerKind(function, atomic)
        return function

    return register


class Timers:
    """One engine's timer kinds: the standard ones, plus any registered on it."""

    def __init__(self, kinds: dict[str, TimerKind]) -> None:
        self._kinds = dict(kinds)

    @classmethod
    def standard(cls) -> Timers:
        return cls(_STANDARD)

    def register(self, kind: str, function: TimerFunction, *, atomic: bool = True) -> None:
        """Run `function` for timers of `kind` on this engine (replacing any earlier one)."""
        if not isinstance(kind, str) or not kind:
            raise ValueError("a timer kind is a non-empty string")
        if not callable(function):
            raise TypeError("a timer function is callable (engine, conn, ref, payload)")
        self._kinds[kind] = TimerKind(function, atomic)

    def get(self, kind: str) -> TimerKind | None:
        return self._kinds.get(kind)

    def __contains__(self, kind: object) -> bool:
        return kind in self._kinds


def schedule(
    conn: sqlite3.Connection,
    due_at: datetime,
    kind: str,
    ref: str,
    payload: dict[str, Any] | None = None,
) -> None:
    if not isinstance(kind, str) or not kind:
        raise ValueError("a timer kind is a non-empty string")
    due_db = to_db(due_at)
    conn.execute(
        "INSERT INTO timers (due_at, kind, ref, payload) VALUES (?, ?, ?, ?)",
        (due_db, kind, ref, json.dumps(payload) if payload else "{}"),
    )
    # Lowered even if this transaction rolls back: the memo only has to stay a floor.
    if isinstance(conn, Connection) and conn.timers_due_floor is not None:
        conn.timers_due_floor = min(conn.timers_due_floor, from_db(due_db))


def cancel(conn: sqlite3.Connection, kind: str, ref: str) -> None:
    conn.execute("DELETE FROM timers WHERE kind = ? AND ref = ?", (kind, ref))


def _record_failure(engine: Engine, row: sqlite3.Row, error: Exception) -> None:
    """The timer's work rolled back: book a retry, or after the last one set it aside."""
    attempts = int(row["attempts"]) + 1
    message = f"{type(error).__name__}: {error}"[:1000]
    now = engine.clock.now()
    with engine.store.transaction() as conn:
        if attempts < MAX_ATTEMPTS:
            retry_at = max(now, from_db(row["due_at"])) + timedelta(
                seconds=RETRY_DELAYS_SECONDS[attempts - 1]
            )
            conn.execute(
                "UPDATE timers SET due_at = ?, attempts = ?, last_error = ? WHERE seq = ?",
                (to_db(retry_at), attempts, message, row["seq"]),
            )
            log.warning(
                "timer %s %s failed (attempt %d of %d); retrying at %s",
                row["kind"], row["ref"], attempts, MAX_ATTEMPTS, to_db(retry_at),
                exc_info=error,
            )  # fmt: skip
            return
        conn.execute("DELETE FROM timers WHERE seq = ?", (row["seq"],))
        conn.execute(
            "INSERT INTO failed_timers (kind, ref, payload, attempts, last_error, last_due_at,"
            " failed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row["kind"], row["ref"], row["payload"], attempts, message, row["due_at"], to_db(now)),
        )
    log.error(
        "timer %s %s failed %d times; set aside in failed_timers",
        row["kind"], row["ref"], attempts, exc_info=error,
    )  # fmt: skip


def failed_timers(conn: sqlite3.Connection) -> list[FailedTimer]:
    """Timers set aside after their last attempt failed, oldest first."""
    rows = conn.execute("SELECT * FROM failed_timers ORDER BY seq").fetchall()
    return [
        FailedTimer(
            seq=int(row["seq"]),
            kind=row["kind"],
            ref=row["ref"],
            payload=json.loads(row["payload"]),
            attempts=int(row["attempts"]),
            last_error=row["last_error"],
            last_due_at=from_db(row["last_due_at"]),
            failed_at=from_db(row["failed_at"]),
        )
        for row in rows
    ]


def retry_failed(conn: sqlite3.Connection, seq: int, due_at: datetime) -> None:
    """Put a set-aside timer back, due at `due_at`, with a fresh count of attempts."""
    row = conn.execute("SELECT * FROM failed_timers WHERE seq = ?", (seq,)).fetchone()
    if row is None:
        raise LookupError(f"no failed timer {seq}")
    conn.execute("DELETE FROM failed_timers WHERE seq = ?", (seq,))
    schedule(conn, due_at, row["kind"], row["ref"], json.loads(row["payload"]))


def next_due(conn: sqlite3.Connection) -> datetime | None:
    row = conn.execute("SELECT due_at FROM timers ORDER BY due_at, seq LIMIT 1").fetchone()
    return None if row is None else from_db(row[0])


#: A batch of timers shares one transaction (each in a savepoint of its own) up to this
#: many timers or this long, so the request path never waits long for the store's lock.
BATCH_LIMIT: Final = 64
BATCH_SECONDS: Final = 0.004


def run_due(engine: Engine, until: datetime) -> int:
    """Run every timer due at or before `until`, earliest first; returns how many ran.

    Timers that fall due together run in batches: one transaction, a savepoint per timer,
    so a timer that raises rolls back alone (and is retried, as `_record_failure` says)
    while the others commit together, in one commit (one append to the log, not one per
    timer). The next timer is looked up after each one runs, so the order is exactly the
    one-at-a-time order (a timer may schedule another that falls due first). A timer that
    is not atomic ends its batch: it runs after the commit, outside the lock."""
    ran = 0
    store = engine.store
    while True:
        deferred: tuple[TimerKind, str, dict[str, Any]] | None = None
        with store.lock:
            conn = store.conn
            floor = conn.timers_due_floor
            if floor is not None and until < floor:
                return ran
            row = _first_due(conn, until)
            if row is None:
                return ran
            started = time.perf_counter()
            with store.transaction() as conn:
                batch = 0
                while row is not None:
                    deferred = _run_one(engine, conn, row)
                    ran += 1
                    batch += 1
                    if deferred is not None or batch >= BATCH_LIMIT:
                        break
                    if time.perf_counter() - started > BATCH_SECONDS:
                        break
                    row = _first_due(conn, until, remember=False)
        if deferred is not None:
            kind, ref, payload = deferred
            try:
                kind.function(engine, store.conn, ref, payload)
            except Exception:
                log.exception("timer %s failed", ref)


def _first_due(conn: Connection, until: datetime, *, remember: bool = True) -> sqlite3.Row | None:
    """The earliest timer if it is due by `until`; else None (remembering, on a private
    database outside a transaction, when the earliest falls due)."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM timers ORDER BY due_at, seq LIMIT 1"
    ).fetchone()
    due = _NO_TIMERS if row is None else from_db(row["due_at"])
    if due > until:
        # Only what is committed is remembered: a rollback could bring back an
        # earlier timer that an open transaction has deleted.
        if remember and conn.private and not conn.in_transaction:
            conn.timers_due_floor = due
        return None
    return row


def _run_one(
    engine: Engine, conn: sqlite3.Connection, row: sqlite3.Row
) -> tuple[TimerKind, str, dict[str, Any]] | None:
    """One timer, in a savepoint of the batch's transaction: removed and run (an atomic
    one), or leased and handed back to run after the commit (one that is not)."""
    due = from_db(row["due_at"])
    if isinstance(engine.clock, ManualClock) and due > engine.clock.now():
        engine.clock.set(due)
    kind = engine.timers.get(row["kind"])
    payload = {} if row["payload"] == "{}" else json.loads(row["payload"])
    conn.execute("SAVEPOINT pixops_timer")
    try:
        if kind is None:
            raise LookupError(f"no timer kind {row['kind']!r} on this engine")
        if kind.atomic:
            conn.execute("DELETE FROM timers WHERE seq = ?", (row["seq"],))
            kind.function(engine, conn, row["ref"], payload)
        else:
            lease_until = max(due, engine.clock.now()) + timedelta(seconds=LEASE_SECONDS)
            conn.execute(
                "UPDATE timers SET due_at = ? WHERE seq = ?", (to_db(lease_until), row["seq"])
            )
    except Exception as error:
        conn.execute("ROLLBACK TO pixops_timer")
        conn.execute("RELEASE pixops_timer")
        _record_failure(engine, row, error)
        return None
    conn.execute("RELEASE pixops_timer")
    return None if kind.atomic else (kind, row["ref"], payload)
