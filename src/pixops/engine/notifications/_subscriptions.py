"""Webhook subscriptions: validate, create, list and delete (the `/webhooks` routes)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from pixops import limits
from pixops._standard_webhooks import generate_secret
from pixops.engine.clock import from_db, to_db, to_wire
from pixops.engine.errors import SubscriptionError, SubscriptionLimitError
from pixops.engine.notifications._fanout import ALL_EVENTS, cancel_outstanding
from pixops.engine.notifications._receivers import INPROC_SCHEME, find_receiver
from pixops.ids import new_prefixed_id
from pixops.schema import EVENT_TYPES

if TYPE_CHECKING:
    from pixops.engine.core import Engine

MAX_SUBSCRIPTIONS: Final = limits.WEBHOOK_SUBSCRIPTIONS_MAX
MAX_URL_LENGTH: Final = limits.WEBHOOK_URL_MAX_CHARS
MAX_DESCRIPTION_LENGTH: Final = limits.WEBHOOK_DESCRIPTION_MAX_CHARS
_FIELDS: Final = frozenset({"url", "event_types", "description"})


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
        if find_receiver(engine, name) is None:
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
    cancel_outstanding(conn, webhook_id, "subscription deleted")
    return True
