"""pixops.webhooks.Inbox given bad events and wrong arguments: a clear error, nothing
kept, and `to_frame` still working for everything that was kept."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.webhooks import (
    FRAME_COLUMNS,
    Inbox,
    WebhookSetupError,
    WebhookVerificationError,
    generate_secret,
    sign,
)

SECRET = generate_secret()
NOW = 1_767_614_400
GOOD: dict[str, Any] = {
    "id": "evt_good",
    "type": "pix.payout.confirmed",
    "created_at": "2026-01-05T12:00:00.000Z",
    "data": {"transaction_id": "PIXOUT1", "amount": 1_000_000, "status": "settled"},
}


def delivery(event: dict[str, Any], message_id: str = "evt_x") -> tuple[dict[str, str], bytes]:
    body = json.dumps(event).encode()
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(NOW),
        "webhook-signature": sign(message_id, NOW, body, SECRET),
    }, body


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"data": {"amount": 10.5}}, "data.amount must be an integer in base units, not number"),
        ({"data": {"amount": "100.00"}}, "data.amount must be an integer .*not string"),
        ({"data": {"fee_amount": True}}, "data.fee_amount must be an integer .*not boolean"),
        ({"data": {"total_refunded": 2**63}}, "data.total_refunded is out of range"),
        ({"data": {"is_partial": "yes"}}, "data.is_partial must be true or false"),
        ({"data": {"status": 3}}, "data.status must be a string, not number"),
        ({"data": ["amount", 1]}, "field data must be an object, not array"),
        ({"id": {"x": 1}}, "field id must be a string, not object"),
        ({"type": ["pix.charge.paid"]}, "field type must be a string, not array"),
        ({"created_at": 1_767_614_400}, "created_at must be an ISO 8601 string"),
        ({"created_at": "yesterday"}, "created_at must be an ISO 8601 string"),
        ({"created_at": "2026-01-05T12:00:00"}, "with a UTC offset"),
        ({"created_at": "0001-01-01T00:00:00+14:00"}, "created_at must be an ISO 8601"),
    ],
)
def test_a_mistyped_event_is_refused_and_not_kept(event: dict[str, Any], message: str) -> None:
    inbox = Inbox(SECRET)
    inbox.add(*delivery(GOOD, "evt_good"), now=NOW)
    with pytest.raises(WebhookVerificationError, match=message):
        inbox.add(*delivery(event), now=NOW)
    with pytest.raises(WebhookVerificationError, match=message):
        inbox.add_verified("evt_x", event)
    assert [e["id"] for e in inbox.events] == ["evt_good"]
    assert inbox.duplicates == 0
    # Refused, not seen: the sender's corrected retry is still kept.
    assert inbox.add_verified("evt_x", {"id": "evt_x"}) is True
    assert inbox.to_frame()["id"].tolist() == ["evt_good", "evt_x"]


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (None, "not null"),
        ([GOOD], "not array"),
        ({"data": {"x": {1, 2}}}, "not JSON data .*set"),
        ({"data": {"x": float("nan")}}, "not JSON data"),
        ({"data": {"status": "\udc80"}}, "not JSON data"),
    ],
)
def test_add_verified_refuses_what_is_not_a_json_event(event: Any, message: str) -> None:
    inbox = Inbox(SECRET)
    with pytest.raises(WebhookVerificationError, match=message):
        inbox.add_verified("evt_x", event)
    assert len(inbox) == 0


@pytest.mark.parametrize("webhook_id", [None, 5, "", "  "])
def test_add_verified_needs_a_webhook_id(webhook_id: Any) -> None:
    inbox = Inbox(SECRET)
    with pytest.raises(WebhookSetupError, match="webhook_id must be a non-empty string"):
        inbox.add_verified(webhook_id, GOOD)
    assert len(inbox) == 0


def test_unknown_event_types_are_kept() -> None:
    inbox = Inbox(SECRET)
    assert inbox.add(*delivery({"id": "evt_x", "type": "pix.something.new"}), now=NOW)
    assert inbox.to_frame()["type"].tolist() == ["pix.something.new"]


def test_a_kept_event_does_not_change_with_the_callers_dict() -> None:
    inbox = Inbox(SECRET)
    event = json.loads(json.dumps(GOOD))
    inbox.add_verified("evt_good", event)
    event["data"]["amount"] = 10.5
    assert inbox.events[0]["data"]["amount"] == 1_000_000
    assert inbox.to_frame()["amount"].tolist() == [1_000_000]


@pytest.mark.parametrize(
    ("secret", "message"), [(5, "not int"), ("whsec_!!", "base64"), ([], "at least one")]
)
def test_a_bad_secret_fails_when_the_inbox_is_made(secret: Any, message: str) -> None:
    with pytest.raises(WebhookSetupError, match=message):
        Inbox(secret)
    inbox = Inbox()
    with pytest.raises(WebhookSetupError, match=message):
        inbox.secret = secret
    assert inbox.secret is None


@pytest.mark.parametrize("tolerance", ["300", None, -5, 1.5])
def test_a_bad_tolerance_fails_when_the_inbox_is_made(tolerance: Any) -> None:
    with pytest.raises(WebhookSetupError, match="tolerance_seconds"):
        Inbox(SECRET, tolerance_seconds=tolerance)


def test_add_without_a_secret_is_a_setup_error() -> None:
    with pytest.raises(WebhookSetupError, match="no secret"):
        Inbox().add(*delivery(GOOD), now=NOW)


def test_concurrent_adds_of_one_delivery_keep_one_copy() -> None:
    inbox = Inbox(SECRET)
    headers, body = delivery(GOOD, "evt_good")
    barrier = threading.Barrier(8)
    results: list[bool] = []

    def add() -> None:
        barrier.wait()
        results.append(inbox.add(headers, body, now=NOW))

    threads = [threading.Thread(target=add) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 7 + [True]
    assert len(inbox) == 1
    assert inbox.duplicates == 7


SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
FIELD_NAMES = st.sampled_from([*FRAME_COLUMNS, "other"])
EVENTS = st.dictionaries(
    FIELD_NAMES, SCALARS | st.dictionaries(FIELD_NAMES, SCALARS, max_size=5), max_size=6
)


@settings(max_examples=200)
@given(events=st.lists(EVENTS, max_size=5))
def test_property_kept_events_always_make_a_frame(events: list[dict[str, Any]]) -> None:
    inbox = Inbox(SECRET)
    kept = 0
    refusals: list[str] = []
    for number, event in enumerate(events):
        try:
            inbox.add_verified(f"evt_{number}", event)
        except WebhookVerificationError as error:
            refusals.append(str(error))
        else:
            kept += 1
    assert all(r.startswith(("event field", "event is not JSON")) for r in refusals)
    frame = inbox.to_frame()
    assert len(frame) == kept == len(inbox)
    assert tuple(frame.columns) == FRAME_COLUMNS


def test_an_inbox_may_take_its_secrets_as_a_set_or_a_generator() -> None:
    old = generate_secret()
    for secrets in ({old, SECRET}, (s for s in [old, SECRET])):
        inbox = Inbox(secrets)
        assert inbox.add(*delivery(GOOD, "evt_good"), now=NOW) is True
