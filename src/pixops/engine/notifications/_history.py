"""What was delivered: every delivery of a merchant's events and its attempts."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from pixops.engine.clock import from_db


@dataclass(frozen=True)
class WebhookAttempt:
    """One POST: its HTTP status (None when no response came), wall-clock latency, error."""

    attempt: int
    at: datetime
    status_code: int | None
    latency_ms: int
    error: str | None

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


@dataclass(frozen=True)
class WebhookDelivery:
    """One event to one subscription. `state`: held, pending, delivered, failed, cancelled."""

    id: int
    webhook_id: str
    url: str
    event_id: str
    event_type: str
    transaction_id: str | None
    state: str
    attempts: tuple[WebhookAttempt, ...]
    next_attempt_at: datetime | None
    last_status: int | None
    last_error: str | None
    created_at: datetime


def list_deliveries(conn: sqlite3.Connection, merchant_id: str) -> list[WebhookDelivery]:
    """Every delivery to the merchant's subscriptions (deleted ones too), oldest first."""
    rows = conn.execute(
        "SELECT d.*, w.url, e.type AS event_type FROM webhook_deliveries d"
        " JOIN webhooks w ON w.id = d.webhook_id JOIN events e ON e.id = d.event_id"
        " WHERE w.merchant_id = ? ORDER BY d.seq",
        (merchant_id,),
    ).fetchall()
    attempts: dict[int, list[WebhookAttempt]] = {}
    for attempt in conn.execute(
        "SELECT a.* FROM webhook_attempts a JOIN webhook_deliveries d ON d.seq = a.delivery_seq"
        " JOIN webhooks w ON w.id = d.webhook_id WHERE w.merchant_id = ? ORDER BY a.seq",
        (merchant_id,),
    ):
        attempts.setdefault(int(attempt["delivery_seq"]), []).append(
            WebhookAttempt(
                attempt=int(attempt["attempt"]),
                at=from_db(attempt["at"]),
                status_code=attempt["status_code"],
                latency_ms=int(attempt["latency_ms"]),
                error=attempt["error"],
            )
        )
    return [
        WebhookDelivery(
            id=int(row["seq"]),
            webhook_id=row["webhook_id"],
            url=row["url"],
            event_id=row["event_id"],
            event_type=row["event_type"],
            transaction_id=row["transaction_id"],
            state=row["state"],
            attempts=tuple(attempts.get(int(row["seq"]), ())),
            next_attempt_at=None
            if row["next_attempt_at"] is None
            else from_db(row["next_attempt_at"]),
            last_status=row["last_status"],
            last_error=row["last_error"],
            created_at=from_db(row["created_at"]),
        )
        for row in rows
    ]
