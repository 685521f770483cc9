"""pixops.webhooks.Inbox: verified events, de-duplication, Arrow-typed frames."""

from __future__ import annotations

import json
import threading
from typing import Any

import pandas as pd  # type: ignore[import-untyped]
import pytest

from pixops.webhooks import FRAME_COLUMNS, Inbox, WebhookVerificationError, generate_secret, sign

SECRET = generate_secret()
NOW = 1_767_614_400


def delivery(event: dict[str, Any], *, timestamp: int = NOW) -> tuple[dict[str, str], bytes]:
    body = json.dumps(event, separators=(",", ":")).encode()
    message_id = str(event["id"])
    headers = {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(message_id, timestamp, body, SECRET),
    }
    return headers, body


PAID: dict[str, Any] = {
    "id": "evt_paid",
    "type": "pix.charge.paid",
    "created_at": "2026-01-05T12:00:00.123Z",
    "data": {
        "transaction_id": "PIXINE1",
        "end_to_end_id": "E1",
        "amount": 1_000_000,
        "fee_amount": 9_900,
        "net_amount": 990_100,
        "status": "paid",
    },
}
REFUND: dict[str, Any] = {
    "id": "evt_refund",
    "type": "pix.refund.completed",
    "created_at": "2026-01-05T12:00:02.000Z",
    "data": {
        "transaction_id": "PIXRETD1",
        "original_transaction_id": "PIXINE1",
        "amount": 250_000,
        "total_refunded": 250_000,
        "remaining_refundable": 750_000,
        "is_partial": True,
        "status": "completed",
    },
}


def test_add_keeps_each_webhook_id_once() -> None:
    inbox = Inbox(SECRET)
    headers, body = delivery(PAID)
    assert inbox.add(headers, body, now=NOW) is True
    retried_headers, retried_body = delivery(PAID, timestamp=NOW + 5)
    assert inbox.add(retried_headers, retried_body, now=NOW + 5) is False
    assert inbox.events == [PAID]
    assert inbox.duplicates == 1
    assert len(inbox) == 1


def test_unverified_delivery_is_refused_and_not_kept() -> None:
    inbox = Inbox(SECRET)
    headers, body = delivery(PAID)
    with pytest.raises(WebhookVerificationError):
        inbox.add(headers, body.replace(b"1000000", b"9000000"), now=NOW)
    with pytest.raises(WebhookVerificationError, match="too old"):
        inbox.add(headers, body, now=NOW + 3600)
    assert inbox.events == []


def test_add_needs_a_secret() -> None:
    headers, body = delivery(PAID)
    with pytest.raises(ValueError, match="no secret"):
        Inbox().add(headers, body, now=NOW)


def test_events_is_a_copy() -> None:
    inbox = Inbox(SECRET)
    inbox.add(*delivery(PAID), now=NOW)
    inbox.events.clear()
    assert len(inbox.events) == 1


def test_to_frame_uses_arrow_dtypes_and_integer_money() -> None:
    inbox = Inbox(SECRET)
    inbox.add(*delivery(PAID), now=NOW)
    inbox.add(*delivery(REFUND), now=NOW)
    frame = inbox.to_frame()
    assert tuple(frame.columns) == FRAME_COLUMNS
    for column in ("amount", "fee_amount", "net_amount", "total_refunded", "remaining_refundable"):
        assert str(frame[column].dtype) == "int64[pyarrow]", column
    assert str(frame["created_at"].dtype) == "timestamp[ms, tz=UTC][pyarrow]"
    assert str(frame["type"].dtype) == "string[pyarrow]"
    assert str(frame["is_partial"].dtype) == "bool[pyarrow]"
    assert not any(str(dtype) == "float64" for dtype in frame.dtypes)
    assert frame["amount"].tolist() == [1_000_000, 250_000]
    assert frame["fee_amount"].isna().tolist() == [False, True]
    assert frame["created_at"][0] == pd.Timestamp("2026-01-05T12:00:00.123Z")
    assert json.loads(frame["data"][1])["original_transaction_id"] == "PIXINE1"


def test_empty_frame_keeps_columns_and_dtypes() -> None:
    frame = Inbox(SECRET).to_frame()
    assert frame.empty
    assert tuple(frame.columns) == FRAME_COLUMNS
    assert str(frame["amount"].dtype) == "int64[pyarrow]"
    assert str(frame["created_at"].dtype) == "timestamp[ms, tz=UTC][pyarrow]"


def test_a_float_amount_is_refused_before_it_is_kept() -> None:
    inbox = Inbox(SECRET)
    with pytest.raises(ValueError, match="amount must be an integer"):
        inbox.add_verified("evt_x", {"id": "evt_x", "type": "t", "data": {"amount": 10.5}})
    assert inbox.events == []
    assert inbox.to_frame().empty


def test_concurrent_adds_keep_one_copy() -> None:
    inbox = Inbox(SECRET)
    results: list[bool] = []
    lock = threading.Lock()

    def add() -> None:
        new = inbox.add_verified("evt_same", {"id": "evt_same"})
        with lock:
            results.append(new)

    threads = [threading.Thread(target=add) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 7 + [True]
    assert inbox.duplicates == 7


def test_editing_returned_events_leaves_the_inbox_as_received() -> None:
    inbox = Inbox(SECRET)
    inbox.add(*delivery(PAID), now=NOW)
    inbox.events[0]["data"]["amount"] = 1.5
    inbox.events[0]["type"] = "edited"
    assert inbox.events == [PAID]
    assert inbox.to_frame()["type"].tolist() == [PAID["type"]]
