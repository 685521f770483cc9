"""The fan-out of events into deliveries, and the per-(subscription, transaction) order.

Every emitted event becomes one `webhook_deliveries` row per matching active
subscription of its merchant, written in the transaction that emitted it. While an
earlier event of a transaction is pending for a subscription, later events of that
transaction to it are `held` and released one at a time.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Final

from pixops.engine import scheduler
from pixops.engine.clock import to_db
from pixops.engine.events import Event

if TYPE_CHECKING:
    from pixops.engine.core import Engine

ALL_EVENTS: Final = "*"
#: Events delivered only to subscriptions that name them, never to "*": the spec calls
#: `pix.payout.returned` an alternative to `pix.refund.completed` (same refund, same data),
#: so a subscription to every event would book each refund twice.
NAMED_ONLY: Final = frozenset({"pix.payout.returned"})
#: The timer kind of one delivery attempt (`_delivery` runs it).
DELIVER_TIMER: Final = "webhook.deliver"


def fan_out(engine: Engine, conn: sqlite3.Connection, event: Event) -> None:
    """The event hook: one delivery per active subscription that wants this event."""
    rows = conn.execute(
        "SELECT id, event_types FROM webhooks WHERE merchant_id = ? AND active = 1"
        " AND deleted_at IS NULL ORDER BY created_at, rowid",
        (event.merchant_id,),
    ).fetchall()
    now = engine.clock.now()
    for row in rows:
        wanted = json.loads(row["event_types"])
        if event.type in wanted or (ALL_EVENTS in wanted and event.type not in NAMED_ONLY):
            _enqueue(conn, row["id"], event, now)


def _enqueue(conn: sqlite3.Connection, webhook_id: str, event: Event, now: datetime) -> None:
    held = event.transaction_id is not None and (
        conn.execute(
            "SELECT 1 FROM webhook_deliveries WHERE webhook_id = ? AND transaction_id = ?"
            " AND state IN ('pending', 'held') LIMIT 1",
            (webhook_id, event.transaction_id),
        ).fetchone()
        is not None
    )
    cursor = conn.execute(
        "INSERT INTO webhook_deliveries (event_id, webhook_id, transaction_id, state, attempts,"
        " next_attempt_at, created_at) VALUES (?, ?, ?, ?, 0, ?, ?)",
        (
            event.id,
            webhook_id,
            event.transaction_id,
            "held" if held else "pending",
            None if held else to_db(now),
            to_db(now),
        ),
    )
    if not held:
        scheduler.schedule(conn, now, DELIVER_TIMER, str(cursor.lastrowid))


def release_next(
    conn: sqlite3.Connection, webhook_id: str, transaction_id: str | None, now: datetime
) -> None:
    """The transaction's oldest held delivery to this subscription becomes pending."""
    if transaction_id is None:
        return
    row = conn.execute(
        "SELECT seq FROM webhook_deliveries WHERE webhook_id = ? AND transaction_id = ?"
        " AND state = 'held' ORDER BY seq LIMIT 1",
        (webhook_id, transaction_id),
    ).fetchone()
    if row is None:
        return
    conn.execute(
        "UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ? WHERE seq = ?",
        (to_db(now), row["seq"]),
    )
    scheduler.schedule(conn, now, DELIVER_TIMER, str(row["seq"]))


def cancel_outstanding(conn: sqlite3.Connection, webhook_id: str, reason: str) -> None:
    rows = conn.execute(
        "SELECT seq FROM webhook_deliveries WHERE webhook_id = ? AND state IN ('pending', 'held')",
        (webhook_id,),
    ).fetchall()
    for row in rows:
        scheduler.cancel(conn, DELIVER_TIMER, str(row["seq"]))
    conn.execute(
        "UPDATE webhook_deliveries SET state = 'cancelled', next_attempt_at = NULL,"
        " last_error = ? WHERE webhook_id = ? AND state IN ('pending', 'held')",
        (reason, webhook_id),
    )
