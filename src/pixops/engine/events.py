"""The event outbox: every emission is a row, written in the transaction that caused it."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pixops.engine.clock import db_to_wire, to_db
from pixops.ids import new_prefixed_id
from pixops.schema import EVENT_TYPES

if TYPE_CHECKING:
    from pixops.engine.core import Engine


@dataclass(frozen=True)
class Event:
    id: str
    merchant_id: str
    type: str
    created_at: str
    transaction_id: str | None
    data: dict[str, Any]

    def envelope(self) -> dict[str, Any]:
        """The JSON a merchant sees: id, type, created_at and the event's data."""
        return {
            "id": self.id,
            "type": self.type,
            "created_at": db_to_wire(self.created_at),
            "data": self.data,
        }


def emit(
    engine: Engine,
    conn: sqlite3.Connection,
    merchant_id: str,
    event_type: str,
    data: dict[str, Any],
    *,
    at: datetime,
    transaction_id: str | None = None,
) -> Event:
    """Record one event in the outbox and hand it to delivery."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type!r}")
    event = Event(
        id=new_prefixed_id("evt_", engine.rng),
        merchant_id=merchant_id,
        type=event_type,
        created_at=to_db(at),
        transaction_id=transaction_id,
        data=data,
    )
    conn.execute(
        "INSERT INTO events (id, merchant_id, type, created_at, transaction_id, data)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (event.id, merchant_id, event_type, event.created_at, transaction_id, json.dumps(data)),
    )
    for hook in engine.event_hooks:
        hook(engine, conn, event)
    return event


def from_row(row: sqlite3.Row) -> Event:
    return Event(
        id=row["id"],
        merchant_id=row["merchant_id"],
        type=row["type"],
        created_at=row["created_at"],
        transaction_id=row["transaction_id"],
        data=json.loads(row["data"]),
    )


def list_event_bodies(conn: sqlite3.Connection, merchant_id: str) -> list[tuple[str, bytes]]:
    """Each event's id and the JSON of its envelope (what `Event.envelope` holds), oldest
    first, written from the stored data's text without reading it into objects first (a
    month holds ~9,000 events, read at every `pixops.connect()`)."""
    rows = conn.execute(
        "SELECT id, type, created_at, data FROM events WHERE merchant_id = ? ORDER BY seq",
        (merchant_id,),
    ).fetchall()
    dump = json.dumps
    return [
        (
            event_id,
            (
                f'{{"id":{dump(event_id)},"type":{dump(kind)},'
                f'"created_at":{dump(db_to_wire(created))},"data":{data}}}'
            ).encode(),
        )
        for event_id, kind, created, data in rows
    ]


def list_events(conn: sqlite3.Connection, merchant_id: str) -> list[Event]:
    rows = conn.execute(
        "SELECT * FROM events WHERE merchant_id = ? ORDER BY seq", (merchant_id,)
    ).fetchall()
    return [from_row(row) for row in rows]
