"""Webhook subscriptions, the fan-out of events into deliveries, and signed delivery.

Every emitted event becomes one `webhook_deliveries` row per matching active
subscription of its merchant, written in the transaction that emitted it. Delivery is
a non-atomic timer: the row is read and the attempt booked under the engine lock, the
HTTP POST runs outside it, and the outcome is recorded under the lock again.

Delivery follows Standard Webhooks 1.0: the body is the event's envelope, headers
`webhook-id` (the event id, the same on every retry), `webhook-timestamp` (this
attempt's engine time) and `webhook-signature`. Only 2xx is success. Failed attempts
are retried on the engine clock after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h; a
delivery that exhausts them while the endpoint has had no success since its first
attempt disables the subscription.

Order per transaction: while an earlier event of a transaction is pending for a
subscription, later events of that transaction to it are held back and released one
at a time when the earlier one is delivered or given up.

Before each attempt the next retry is scheduled as a lease, so an attempt interrupted
by a crash is retried later (at-least-once); receivers de-duplicate on `webhook-id`.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

import httpx

from pixops import limits
from pixops.engine import scheduler
from pixops.engine.clock import from_db, to_db, to_wire
from pixops.engine.errors import SubscriptionError, SubscriptionLimitError
from pixops.engine.events import EVENT_TYPES, Event, from_row
from pixops.engine.http import encode_json
from pixops.ids import new_prefixed_id
from pixops.webhooks import generate_secret, sign

if TYPE_CHECKING:
    from pixops.engine.core import Engine

__all__ = [
    "ALL_EVENTS",
    "DELIVERY_TIMEOUT_SECONDS",
    "INPROC_SCHEME",
    "MAX_ATTEMPTS",
    "MAX_SUBSCRIPTIONS",
    "NAMED_ONLY",
    "RETRY_DELAYS_SECONDS",
    "Receiver",
    "Subscription",
    "SubscriptionError",
    "SubscriptionLimitError",
    "WebhookAttempt",
    "WebhookDelivery",
    "add_receiver",
    "check_fields",
    "create_subscription",
    "delete_subscription",
    "deliver",
    "fan_out",
    "list_deliveries",
    "list_subscriptions",
]

ALL_EVENTS: Final = "*"
#: Events delivered only to subscriptions that name them, never to "*": the spec calls
#: `pix.payout.returned` an alternative to `pix.refund.completed` (same refund, same data),
#: so a subscription to every event would book each refund twice.
NAMED_ONLY: Final = frozenset({"pix.payout.returned"})
RETRY_DELAYS_SECONDS: Final = (5, 300, 1800, 7200, 18000, 36000, 36000)
MAX_ATTEMPTS: Final = 1 + len(RETRY_DELAYS_SECONDS)
DELIVERY_TIMEOUT_SECONDS: Final = 5
#: The lease of the last attempt: if its outcome is never recorded, give up after this.
_LAST_LEASE_SECONDS: Final = 60
MAX_SUBSCRIPTIONS: Final = limits.WEBHOOK_SUBSCRIPTIONS_MAX
MAX_URL_LENGTH: Final = limits.WEBHOOK_URL_MAX_CHARS
MAX_DESCRIPTION_LENGTH: Final = limits.WEBHOOK_DESCRIPTION_MAX_CHARS
INPROC_SCHEME: Final = "inproc"
USER_AGENT: Final = "pixops-webhooks/1"
_DELIVER: Final = "webhook.deliver"
_RECEIVER_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}")
_FIELDS: Final = frozenset({"url", "event_types", "description"})

Receiver = Callable[[dict[str, str], bytes], int]
"""An in-process receiver: (headers, body) -> HTTP status code."""

_RECEIVERS: weakref.WeakKeyDictionary[Engine, dict[str, Receiver]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Subscription:
    id: str
    merchant_id: str
    url: str
    event_types: tuple[str, ...]
    active: bool
    description: str | None
    created_at: datetime
    disabled_at: datetime | None

    def resource(self) -> dict[str, Any]:
        """The wire shape (never the secret)."""
        return {
            "id": self.id,
            "url": self.url,
            "event_types": list(self.event_types),
            "active": self.active,
            "description": self.description,
            "created_at": to_wire(self.created_at),
            "disabled_at": None if self.disabled_at is None else to_wire(self.disabled_at),
        }


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


# -- in-process receivers (sandbox) ----------------------------------------------


def add_receiver(engine: Engine, receiver: Receiver, name: str | None = None) -> str:
    """Register a Python callable as a webhook endpoint; returns its `inproc://` URL."""
    if not callable(receiver):
        raise TypeError("receiver must be a callable (headers, body) -> status code")
    registry = _RECEIVERS.setdefault(engine, {})
    chosen = f"receiver-{len(registry) + 1}" if name is None else name
    if not isinstance(chosen, str) or _RECEIVER_NAME.fullmatch(chosen) is None:
        raise ValueError(
            "receiver name: 1-63 characters [a-z0-9._-], starting with a letter or digit"
        )
    if chosen in registry:
        raise ValueError(f"an in-process receiver named {chosen!r} already exists")
    registry[chosen] = receiver
    return f"{INPROC_SCHEME}://{chosen}"


def _receiver(engine: Engine, name: str) -> Receiver | None:
    return _RECEIVERS.get(engine, {}).get(name)


# -- subscriptions ---------------------------------------------------------------


def check_fields(engine: Engine, body: dict[str, Any]) -> tuple[str, tuple[str, ...], str | None]:
    """Validate a creation request; (url, event_types, description) or SubscriptionError."""
    errors: dict[str, list[str]] = {}
    for name in sorted(set(body) - _FIELDS):
        errors[name] = ["unknown field; accepted: url, event_types, description"]
    url = body.get("url")
    url_problems = _url_problems(engine, url)
    if url_problems:
        errors["url"] = url_problems
    types, type_problems = _event_types(body.get("event_types"))
    if type_problems:
        errors["event_types"] = type_problems
    description = body.get("description")
    if description is not None and not isinstance(description, str):
        errors["description"] = ["must be a string or null"]
    elif isinstance(description, str) and len(description) > MAX_DESCRIPTION_LENGTH:
        errors["description"] = [f"must be at most {MAX_DESCRIPTION_LENGTH} characters"]
    if errors:
        raise SubscriptionError(errors)
    assert isinstance(url, str)
    return url, types, description


def _url_problems(engine: Engine, url: object) -> list[str]:
    if url is None:
        return ["is required"]
    if not isinstance(url, str):
        return ["must be a string"]
    if not url.strip():
        return ["is required"]
    if len(url) > MAX_URL_LENGTH:
        return [f"must be at most {MAX_URL_LENGTH} characters"]
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return ["must not contain spaces or control characters"]
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ["is not a valid URL"]
    scheme = parts.scheme.lower()
    if scheme == INPROC_SCHEME:
        name = parts.netloc
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            return ["an inproc:// URL is only inproc://<receiver name>"]
        if _receiver(engine, name) is None:
            return [
                f"no in-process receiver named {name!r} is registered with this sandbox "
                "(use Sandbox.add_webhook_receiver)"
            ]
        return []
    if scheme not in ("http", "https"):
        return ["must be an http:// or https:// URL"]
    if not parts.hostname:
        return ["must name a host"]
    if port == 0:
        return ["has an invalid port"]
    if parts.fragment:
        return ["must not contain a #fragment"]
    return []


def _event_types(value: object) -> tuple[tuple[str, ...], list[str]]:
    if value is None:
        return (ALL_EVENTS,), []
    if not isinstance(value, list):
        return (), ['must be a list of event types, or ["*"] for every event']
    if not value:
        return (), ['must not be empty; omit it or pass ["*"] for every event']
    if not all(isinstance(item, str) for item in value):
        return (), ["entries must be strings"]
    chosen = tuple(dict.fromkeys(value))
    if ALL_EVENTS in chosen:
        if len(chosen) > 1:
            return (), ['"*" (every event) cannot be combined with other event types']
        return chosen, []
    unknown = [item for item in chosen if item not in EVENT_TYPES]
    if unknown:
        return (), [
            f"unknown event type {item!r}; known: {', '.join(EVENT_TYPES)}" for item in unknown
        ]
    return chosen, []


def create_subscription(
    engine: Engine,
    conn: sqlite3.Connection,
    merchant_id: str,
    body: dict[str, Any],
    *,
    now: datetime,
) -> tuple[Subscription, str]:
    """Validate and store a subscription; returns it with its secret (shown only now)."""
    url, types, description = check_fields(engine, body)
    count = conn.execute(
        "SELECT COUNT(*) FROM webhooks WHERE merchant_id = ? AND deleted_at IS NULL",
        (merchant_id,),
    ).fetchone()[0]
    if count >= MAX_SUBSCRIPTIONS:
        raise SubscriptionLimitError(
            f"An account has at most {MAX_SUBSCRIPTIONS} webhook subscriptions; "
            "delete one before creating another"
        )
    webhook_id = new_prefixed_id("wh_", engine.rng)
    secret = generate_secret()
    conn.execute(
        "INSERT INTO webhooks (id, merchant_id, url, event_types, secret, active, description,"
        " created_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
        (webhook_id, merchant_id, url, json.dumps(list(types)), secret, description, to_db(now)),
    )
    subscription = Subscription(webhook_id, merchant_id, url, types, True, description, now, None)
    return subscription, secret


def _subscription(row: sqlite3.Row) -> Subscription:
    return Subscription(
        id=row["id"],
        merchant_id=row["merchant_id"],
        url=row["url"],
        event_types=tuple(json.loads(row["event_types"])),
        active=bool(row["active"]),
        description=row["description"],
        created_at=from_db(row["created_at"]),
        disabled_at=None if row["disabled_at"] is None else from_db(row["disabled_at"]),
    )


def list_subscriptions(conn: sqlite3.Connection, merchant_id: str) -> list[Subscription]:
    """The merchant's subscriptions not deleted, oldest first (disabled ones included)."""
    rows = conn.execute(
        "SELECT * FROM webhooks WHERE merchant_id = ? AND deleted_at IS NULL"
        " ORDER BY created_at, rowid",
        (merchant_id,),
    ).fetchall()
    return [_subscription(row) for row in rows]


def delete_subscription(
    conn: sqlite3.Connection, merchant_id: str, webhook_id: str, *, now: datetime
) -> bool:
    """Delete a subscription and cancel its outstanding deliveries; False if not found."""
    updated = conn.execute(
        "UPDATE webhooks SET active = 0, deleted_at = ?"
        " WHERE id = ? AND merchant_id = ? AND deleted_at IS NULL",
        (to_db(now), webhook_id, merchant_id),
    ).rowcount
    if updated != 1:
        return False
    _cancel_outstanding(conn, webhook_id, "subscription deleted")
    return True


# -- fan-out ----------------------------------------------------------------------


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
        scheduler.schedule(conn, now, _DELIVER, str(cursor.lastrowid))


def _release_next(
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
    scheduler.schedule(conn, now, _DELIVER, str(row["seq"]))


def _cancel_outstanding(conn: sqlite3.Connection, webhook_id: str, reason: str) -> None:
    rows = conn.execute(
        "SELECT seq FROM webhook_deliveries WHERE webhook_id = ? AND state IN ('pending', 'held')",
        (webhook_id,),
    ).fetchall()
    for row in rows:
        scheduler.cancel(conn, _DELIVER, str(row["seq"]))
    conn.execute(
        "UPDATE webhook_deliveries SET state = 'cancelled', next_attempt_at = NULL,"
        " last_error = ? WHERE webhook_id = ? AND state IN ('pending', 'held')",
        (reason, webhook_id),
    )


# -- delivery -----------------------------------------------------------------------


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


@scheduler.timer(_DELIVER, atomic=False)
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
        lanes.submit(row["webhook_id"], lambda: deliver(engine, delivery_seq))


def deliver(engine: Engine, delivery_seq: int) -> None:
    """One attempt of one delivery: book it, POST outside the lock, record the outcome."""
    attempt = _begin(engine, delivery_seq)
    if attempt is None:
        return
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
            return None
        now = engine.clock.now()
        if not row["active"] or row["deleted_at"] is not None:
            _cancel_outstanding(conn, row["webhook_id"], "subscription inactive")
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
        scheduler.schedule(conn, retry_at, _DELIVER, str(delivery_seq))
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
        receiver = _receiver(engine, parts.netloc)
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
            scheduler.cancel(conn, _DELIVER, str(attempt.delivery_seq))
            conn.execute(
                "UPDATE webhook_deliveries SET state = 'delivered', next_attempt_at = NULL"
                " WHERE seq = ?",
                (attempt.delivery_seq,),
            )
            _release_next(conn, attempt.webhook_id, attempt.transaction_id, engine.clock.now())
        elif attempt.number >= MAX_ATTEMPTS:
            scheduler.cancel(conn, _DELIVER, str(attempt.delivery_seq))
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
        _cancel_outstanding(
            conn, delivery["webhook_id"], "subscription disabled after repeated failures"
        )
    else:
        _release_next(conn, delivery["webhook_id"], delivery["transaction_id"], now)


# -- observation -----------------------------------------------------------------------


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
