"""Reading an event: the JSON of a delivery's body, and the fields the inbox types.

`parse_event` is strict JSON as `pixops.wire.parse_strict` reads it (UTF-8 without a
byte-order mark, no NaN or Infinity, no key twice in one object, no lone surrogate), at
most `MAX_DEPTH` levels: what it accepts, `json.dumps` and Arrow can always write back.
`check_event` also types the fields `Inbox.to_frame` reads, so a kept event can always
be turned into a row. `read_event` does both for a body already in hand, without the
copy `check_event` writes.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from pixops import limits, wire
from pixops.money import INT64_MAX
from pixops.webhooks._errors import WebhookVerificationError

__all__ = [
    "MAX_DEPTH",
    "MONEY_FIELDS",
    "TEXT_FIELDS",
    "check_event",
    "created_at",
    "event_data",
    "is_partial",
    "money",
    "parse_event",
    "read_event",
    "text",
    "typed_event",
]

MAX_DEPTH = limits.BODY_MAX_DEPTH
TEXT_FIELDS = (
    "transaction_id",
    "end_to_end_id",
    "original_transaction_id",
    "external_id",
    "status",
    "reason_code",
)
MONEY_FIELDS = ("amount", "fee_amount", "net_amount", "total_refunded", "remaining_refundable")


def parse_event(body: bytes) -> dict[str, Any]:
    """The JSON object of a body (`pixops.wire.parse_strict`, as the engine reads a
    request, and at most `MAX_DEPTH` levels); `WebhookVerificationError` saying what is
    wrong."""
    if not body.strip():
        raise WebhookVerificationError("body is empty: a delivery carries a JSON object")
    try:
        event = wire.parse_strict(body)
    except wire.WireError as error:
        raise WebhookVerificationError(str(error)[:200]) from None
    if not isinstance(event, dict):
        raise WebhookVerificationError(f"body is a JSON {_kind(event)}, not an object")
    if not wire.body_nests_within(body, event, MAX_DEPTH):
        raise WebhookVerificationError(f"body is nested more than {MAX_DEPTH} levels deep")
    return event


def check_event(event: object) -> dict[str, Any]:
    """A private copy of `event` once it is strict JSON whose typed fields are right."""
    if not isinstance(event, dict):
        raise WebhookVerificationError(f"an event is a dict (a JSON object), not {_kind(event)}")
    try:
        dumped = json.dumps(event, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError, UnicodeEncodeError) as error:
        reason = f"{type(error).__name__}: {error}"[:200]
        raise WebhookVerificationError(f"event is not JSON data ({reason})") from None
    return read_event(dumped)


def read_event(body: bytes) -> dict[str, Any]:
    """The event of a body (`parse_event`, a new object nobody else holds) once its typed
    fields are right: `check_event` without writing a copy first."""
    return typed_event(parse_event(body))


def typed_event(event: dict[str, Any]) -> dict[str, Any]:
    """`event`, just parsed from a body (as `verify` returns it), once the fields
    `Inbox.to_frame` types are right; `WebhookVerificationError` naming the first that
    is not."""
    for name in ("id", "type"):
        text(event, name)
    created_at(event)
    data = event_data(event)
    for name in TEXT_FIELDS:
        text(data, name, "data.")
    for name in MONEY_FIELDS:
        money(data, name)
    is_partial(data)
    return event


def event_data(event: dict[str, Any]) -> dict[str, Any]:
    data = event.get("data")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise WebhookVerificationError(f"event field data must be an object, not {_kind(data)}")
    return data


def text(fields: dict[str, Any], name: str, prefix: str = "") -> str | None:
    value = fields.get(name)
    if value is None or isinstance(value, str):
        return value
    raise WebhookVerificationError(
        f"event field {prefix}{name} must be a string, not {_kind(value)} {value!r:.40}"
    )


def created_at(event: dict[str, Any]) -> datetime | None:
    value = event.get("created_at")
    if value is None:
        return None
    problem = "must be an ISO 8601 string with a UTC offset"
    if not isinstance(value, str):
        raise WebhookVerificationError(f"event field created_at {problem}, not {value!r:.40}")
    refusal = WebhookVerificationError(f"event field created_at {problem}, got {value!r:.40}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise refusal from None
    if moment.tzinfo is None:
        raise refusal
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # an offset that moves 0001-01-01 or 9999-12-31 off the calendar
        raise refusal from None


def money(data: dict[str, Any], name: str) -> int | None:
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise WebhookVerificationError(
            f"event field data.{name} must be an integer in base units, "
            f"not {_kind(value)} {value!r:.40}"
        )
    if abs(value) > INT64_MAX:
        raise WebhookVerificationError(f"event field data.{name} is out of range: {value:.3e}")
    return value


def is_partial(data: dict[str, Any]) -> bool | None:
    value = data.get("is_partial")
    if value is None or isinstance(value, bool):
        return value
    raise WebhookVerificationError(
        f"event field data.is_partial must be true or false, not {value!r:.40}"
    )


def _kind(value: object) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "number"
    return names.get(type(value), type(value).__name__)
