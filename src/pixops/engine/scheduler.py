"""Timers: due work stored with the data it changes, run in time order.

Under a manual clock `run_due` moves the clock to each timer's due time before
running it, so `Sandbox.advance()` replays the world deterministically. Under the
wall clock a background worker calls `run_due(now)`.

Timers are written only through `schedule`: on an in-memory store `run_due` remembers
the earliest due time it saw and `schedule` lowers that memo, so asking "is anything
due?" costs no query while the answer is no (most `Sandbox.advance()` calls).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
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
    #: Atomic timers run in the same transaction that removes them; others (network
    #: I/O such as webhook delivery) run after removal, outside the engine lock.
    atomic: bool


_KINDS: dict[str, TimerKind] = {}
#: The memo of an empty timers table.
_NO_TIMERS: Final = datetime.max.replace(tzinfo=UTC)


def timer(kind: str, *, atomic: bool = True) -> Callable[[TimerFunction], TimerFunction]:
    """Register the function that runs timers of `kind`."""

    def register(function: TimerFunction) -> TimerFunction:
        _KINDS[kind] = TimerKind(function, atomic)
        return function

    return register


def schedule(
    conn: sqlite3.Connection,
    due_at: datetime,
    kind: str,
    ref: str,
    payload: dict[str, Any] | None = None,
) -> None:
    if kind not in _KINDS:
        raise ValueError(f"unknown timer kind {kind!r}")
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


def next_due(conn: sqlite3.Connection) -> datetime | None:
    row = conn.execute("SELECT due_at FROM timers ORDER BY due_at, seq LIMIT 1").fetchone()
    return None if row is None else from_db(row[0])


def run_due(engine: Engine, until: datetime) -> int:
    """Run every timer due at or before `until`, earliest first; returns how many ran."""
    ran = 0
    store = engine.store
    while True:
        deferred: tuple[TimerKind, str, dict[str, Any]] | None = None
        with store.lock:
            conn = store.conn
            floor = conn.timers_due_floor
            if floor is not None and until < floor:
                return ran
            row = conn.execute("SELECT * FROM timers ORDER BY due_at, seq LIMIT 1").fetchone()
            due = _NO_TIMERS if row is None else from_db(row["due_at"])
            if due > until:
                # Only what is committed is remembered: a rollback could bring back an
                # earlier timer that an open transaction has deleted.
                if conn.private and not conn.in_transaction:
                    conn.timers_due_floor = due
                return ran
            if isinstance(engine.clock, ManualClock) and due > engine.clock.now():
                engine.clock.set(due)
            kind = _KINDS[row["kind"]]
            payload = {} if row["payload"] == "{}" else json.loads(row["payload"])
            try:
                with store.transaction() as conn:
                    conn.execute("DELETE FROM timers WHERE seq = ?", (row["seq"],))
                    if kind.atomic:
                        kind.function(engine, conn, row["ref"], payload)
                    else:
                        deferred = (kind, row["ref"], payload)
            except Exception:
                log.exception("timer %s %s failed; dropped", row["kind"], row["ref"])
                with store.transaction() as conn:
                    conn.execute("DELETE FROM timers WHERE seq = ?", (row["seq"],))
        if deferred is not None:
            kind, ref, payload = deferred
            try:
                kind.function(engine, store.conn, ref, payload)
            except Exception:
                log.exception("timer %s failed", ref)
        ran += 1
