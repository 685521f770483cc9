"""Signed delivery of one event to one subscription, with retries.

Delivery is a non-atomic timer: the row is read and the attempt booked under the engine
lock, the HTTP POST runs outside it (on the subscription's lane under the wall clock),
and the outcome is recorded under the lock again.

Delivery follows Standard Webhooks 1.0: the body is the event's envelope, headers
`webhook-id` (the event id, the same on every retry), `webhook-timestamp` (this
attempt's engine time) and `webhook-signature`. Only 2xx is success. Failed attempts
are retried on the engine clock after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h; a
delivery that exhausts them while the endpoint has had no success since its first
attempt disables the subscription.

Before each attempt the next retry is scheduled as a lease, so an attempt interrupted
by a crash is retried later (at-least-once); receivers de-duplicate on `webhook-id`.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

import httpx

from pixops._standard_webhooks import sign
from pixops.engine import scheduler
from pixops.engine.clock import from_db, to_db
from pixops.engine.events import from_row
from pixops.engine.http import encode_json
from pixops.engine.notifications._fanout import DELIVER_TIMER, cancel_outstanding, release_next
from pixops.engine.notifications._receivers import INPROC_SCHEME, find_receiver

if TYPE_CHECKING:
    from pixops.engine.core import Engine

RETRY_DELAYS_SECONDS: Final = (5, 300, 1800, 7200, 18000, 36000, 36000)
MAX_ATTEMPTS: Final = 1 + len(RETRY_DELAYS_SECONDS)
DELIVERY_TIMEOUT_SECONDS: Final = 5
#: The lease of the last attempt: if its outcome is never recorded, give up after this.
_LAST_LEASE_SECONDS: Final = 60
USER_AGENT: Final = "pixops-webhooks/1"


@dataclass(frozen=True)
class _Attempt:
    delivery_seq: int
    webhook_id: str
    transaction_id: str | None
    number: int
    at: datetime
    url: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class _Outcome:
    status_code: int | None
    latency_ms: int
    error: str | None

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


@scheduler.timer(DELIVER_TIMER, atomic=False)
def _deliver_timer(
    engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]
) -> None:
    """Inline under the manual clock; else on the subscription's lane, so the timer
    worker never waits on a receiver and one slow receiver delays only itself."""
    delivery_seq = int(ref)
    lanes = engine.delivery_lanes
    if lanes is None:
        deliver(engine, delivery_seq)
        return
    with engine.store.lock:
        row = engine.store.conn.execute(
            "SELECT webhook_id FROM webhook_deliveries WHERE seq = ?", (delivery_seq,)
        ).fetchone()
    if row is not None:
        lanes.submit(row["webhook_id"], lambda: deliver(engine, delivery_seq), key=ref)


def deliver(engine: Engine, delivery_seq: int) -> None:
    """One attempt of one delivery: book it, POST outside the lock, record the outcome."""
    attempt = _begin(engine, delivery_seq)
    if attempt is None:
        return
    # An event announces a commit: it leaves only once that commit is on disk.
    engine.store.wait_all_durable()
    outcome = _send(engine, attempt)
    _finish(engine, attempt, outcome)


def _begin(engine: Engine, delivery_seq: int) -> _Attempt | None:
    with engine.store.transaction() as conn:
        row = conn.execute(
            "SELECT d.*, w.url, w.secret, w.active, w.deleted_at FROM webhook_deliveries d"
            " JOIN webhooks w ON w.id = d.webhook_id WHERE d.seq = ?",
            (delivery_seq,),
        ).fetchone()
        if row is None or row["state"] != "pending":
            scheduler.cancel(conn, DELIVER_TIMER, str(delivery_seq))
            return None
        now = engine.clock.now()
        if row["next_attempt_at"] is not None and from_db(row["next_attempt_at"]) > now:
            return None  # run again by a lease: the next attempt is booked, with its timer
        # The timer's lease ends here, with the attempt it stood for booked in its place.
        scheduler.cancel(conn, DELIVER_TIMER, str(delivery_seq))
        if not row["active"] or row["deleted_at"] is not None:
            cancel_outstanding(conn, row["webhook_id"], "subscription inactive")
            return None
        if row["attempts"] >= MAX_ATTEMPTS:
            # The last attempt's lease expired without an outcome (the process stopped).
            _give_up(conn, row, now)
            return None
        number = int(row["attempts"]) + 1
        lease = (
            RETRY_DELAYS_SECONDS[number - 1]
            if number <= len(RETRY_DELAYS_SECONDS)
            else _LAST_LEASE_SECONDS
        )
        retry_at = now + timedelta(seconds=lease)
        scheduler.schedule(conn, retry_at, DELIVER_TIMER, str(delivery_seq))
        conn.execute(
            "UPDATE webhook_deliveries SET attempts = ?, next_attempt_at = ? WHERE seq = ?",
            (number, to_db(retry_at), delivery_seq),
        )
        event = from_row(
            conn.execute("SELECT * FROM events WHERE id = ?", (row["event_id"],)).fetchone()
        )
    body = encode_json(event.envelope())
    timestamp = int(now.timestamp())
    headers = {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": event.id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(event.id, timestamp, body, row["secret"]),
    }
    return _Attempt(
        delivery_seq,
        row["webhook_id"],
        row["transaction_id"],
        number,
        now,
        row["url"],
        headers,
        body,
    )


def _send(engine: Engine, attempt: _Attempt) -> _Outcome:
    started = time.perf_counter_ns()

    def elapsed_ms() -> int:
        return (time.perf_counter_ns() - started) // 1_000_000

    parts = urlsplit(attempt.url)
    if parts.scheme.lower() == INPROC_SCHEME:
        receiver = find_receiver(engine, parts.netloc)
        if receiver is None:
            return _Outcome(None, 0, f"no in-process receiver named {parts.netloc!r}")
        try:
            status = receiver(dict(attempt.headers), attempt.body)
        except Exception as error:
            return _Outcome(None, elapsed_ms(), f"receiver raised {type(error).__name__}: {error}")
        if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
            return _Outcome(None, elapsed_ms(), f"receiver returned {status!r}, not a status code")
        return _Outcome(status, elapsed_ms(), None if 200 <= status < 300 else f"HTTP {status}")
    try:
        with httpx.Client(
            timeout=DELIVERY_TIMEOUT_SECONDS, follow_redirects=False, trust_env=False
        ) as client:
            response = client.post(attempt.url, content=attempt.body, headers=attempt.headers)
    except httpx.TimeoutException:
        return _Outcome(None, elapsed_ms(), f"timed out after {DELIVERY_TIMEOUT_SECONDS} s")
    except httpx.HTTPError as error:
        return _Outcome(None, elapsed_ms(), f"{type(error).__name__}: {error}"[:500])
    status = response.status_code
    return _Outcome(status, elapsed_ms(), None if 200 <= status < 300 else f"HTTP {status}")


def _finish(engine: Engine, attempt: _Attempt, outcome: _Outcome) -> None:
    with engine.store.transaction() as conn:
        conn.execute(
            "INSERT INTO webhook_attempts (delivery_seq, attempt, at, status_code, latency_ms,"
            " error) VALUES (?, ?, ?, ?, ?, ?)",
            (
                attempt.delivery_seq,
                attempt.number,
                to_db(attempt.at),
                outcome.status_code,
                outcome.latency_ms,
                outcome.error,
            ),
        )
        conn.execute(
            "UPDATE webhooks SET consecutive_failures = CASE WHEN ? THEN 0"
            " ELSE consecutive_failures + 1 END WHERE id = ?",
            (outcome.succeeded, attempt.webhook_id),
        )
        row = conn.execute(
            "SELECT * FROM webhook_deliveries WHERE seq = ?", (attempt.delivery_seq,)
        ).fetchone()
        if row["state"] != "pending" or row["attempts"] != attempt.number:
            return  # cancelled meanwhile, or superseded by a later attempt
        conn.execute(
            "UPDATE webhook_deliveries SET last_status = ?, last_error = ? WHERE seq = ?",
            (outcome.status_code, outcome.error, attempt.delivery_seq),
        )
        if outcome.succeeded:
            scheduler.cancel(conn, DELIVER_TIMER, str(attempt.delivery_seq))
            conn.execute(
                "UPDATE webhook_deliveries SET state = 'delivered', next_attempt_at = NULL"
                " WHERE seq = ?",
                (attempt.delivery_seq,),
            )
            release_next(conn, attempt.webhook_id, attempt.transaction_id, engine.clock.now())
        elif attempt.number >= MAX_ATTEMPTS:
            scheduler.cancel(conn, DELIVER_TIMER, str(attempt.delivery_seq))
            _give_up(conn, row, attempt.at)


def _give_up(conn: sqlite3.Connection, delivery: sqlite3.Row, now: datetime) -> None:
    """Retries exhausted: fail the delivery; disable an endpoint that never answered 2xx since."""
    seq = delivery["seq"]
    conn.execute(
        "UPDATE webhook_deliveries SET state = 'failed', next_attempt_at = NULL WHERE seq = ?",
        (seq,),
    )
    first = conn.execute(
        "SELECT MIN(at) FROM webhook_attempts WHERE delivery_seq = ?", (seq,)
    ).fetchone()[0]
    answered = conn.execute(
        "SELECT 1 FROM webhook_attempts a JOIN webhook_deliveries d ON d.seq = a.delivery_seq"
        " WHERE d.webhook_id = ? AND a.at >= ? AND a.status_code BETWEEN 200 AND 299 LIMIT 1",
        (delivery["webhook_id"], first or to_db(now)),
    ).fetchone()
    if answered is None:
        conn.execute(
            "UPDATE webhooks SET active = 0, disabled_at = ? WHERE id = ? AND active = 1",
            (to_db(now), delivery["webhook_id"]),
        )
        cancel_outstanding(
            conn, delivery["webhook_id"], "subscription disabled after repeated failures"
        )
    else:
        release_next(conn, delivery["webhook_id"], delivery["transaction_id"], now)
