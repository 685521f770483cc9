"""Timers: due work stored with the data it changes, run in time order.

Under a manual clock `run_due` moves the clock to each timer's due time before
running it, so `Sandbox.advance()` replays the world deterministically. Under the
wall clock a background worker calls `run_due(now)`.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pixops.engine.clock import ManualClock, from_db, to_db

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
    conn.execute(
        "INSERT INTO timers (due_at, kind, ref, payload) VALUES (?, ?, ?, ?)",
        (to_db(due_at), kind, ref, json.dumps(payload or {})),
    )


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
            row = store.conn.execute(
                "SELECT * FROM timers WHERE due_at <= ? ORDER BY due_at, seq LIMIT 1",
                (to_db(until),),
            ).fetchone()
            if row is None:
                return ran
            due = from_db(row["due_at"])
            if isinstance(engine.clock, ManualClock) and due > engine.clock.now():
                engine.clock.set(due)
            kind = _KINDS[row["kind"]]
            payload = json.loads(row["payload"])
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
