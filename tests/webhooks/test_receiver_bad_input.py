"""pixops.webhooks.receiver_app given broken or hostile requests: a JSON error answer
and nothing kept; wrong set-up fails when the app is made, not per request."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from pixops.webhooks import Inbox, WebhookSetupError, generate_secret, receiver_app, sign

SECRET = generate_secret()
Message = dict[str, Any]


def signed_headers(body: bytes, message_id: str = "evt_1") -> list[tuple[bytes, bytes]]:
    timestamp = int(time.time())
    return [
        (b"webhook-id", message_id.encode()),
        (b"webhook-timestamp", str(timestamp).encode()),
        (b"webhook-signature", sign(message_id, timestamp, body, SECRET).encode()),
    ]


def call(
    inbox: Inbox,
    messages: list[Message],
    headers: list[tuple[bytes, bytes]],
    method: str = "POST",
) -> list[Message]:
    """Run one request through the app with the given receive messages; the sent ones."""
    app = receiver_app(inbox)
    scope = {"type": "http", "method": method, "path": "/", "headers": headers}
    pending = list(messages)
    sent: list[Message] = []

    async def receive() -> Message:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(dict(message))

    asyncio.run(app(scope, receive, send))
    return sent


def answer(sent: list[Message]) -> tuple[int, dict[str, Any]]:
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert (b"content-type", b"application/json") in sent[0]["headers"]
    return int(sent[0]["status"]), json.loads(sent[1]["body"])


def whole(body: bytes) -> list[Message]:
    return [{"type": "http.request", "body": body, "more_body": False}]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"amount": 10.5}, "data.amount must be an integer"),
        ({"amount": "1000"}, "data.amount must be an integer"),
        ({"is_partial": "no"}, "is_partial must be true or false"),
    ],
)
def test_a_signed_but_mistyped_event_is_a_400_and_not_kept(
    data: dict[str, Any], message: str
) -> None:
    inbox = Inbox(SECRET)
    body = json.dumps({"id": "evt_1", "type": "pix.charge.paid", "data": data}).encode()
    status, payload = answer(call(inbox, whole(body), signed_headers(body)))
    assert status == 400
    assert message in payload["error"]
    assert inbox.events == []
    assert inbox.to_frame().empty


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"[" * 50_000 + b"]" * 50_000, "maximum recursion depth"),
        (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "maximum recursion depth"),
        (b'{"id":"\xff"}', "not valid UTF-8"),
        (b'{"a": NaN}', "NaN"),
    ],
)
def test_a_signed_body_that_is_not_strict_json_is_a_400(body: bytes, message: str) -> None:
    inbox = Inbox(SECRET)
    status, payload = answer(call(inbox, whole(body), signed_headers(body)))
    assert status == 400
    assert message in payload["error"]
    assert len(inbox) == 0


def test_a_chunked_body_is_put_together() -> None:
    inbox = Inbox(SECRET)
    body = b'{"id":"evt_1","data":{"amount":100}}'
    chunks = [
        {"type": "http.request", "body": body[:7], "more_body": True},
        {"type": "http.request", "body": b"", "more_body": True},
        {"type": "http.request", "body": body[7:], "more_body": False},
    ]
    assert answer(call(inbox, chunks, signed_headers(body))) == (
        200,
        {"received": True, "duplicate": False},
    )
    assert inbox.events == [{"id": "evt_1", "data": {"amount": 100}}]


def test_a_client_gone_mid_body_gets_no_answer_and_nothing_is_kept() -> None:
    inbox = Inbox(SECRET)
    body = b'{"id":"evt_1"}'
    half = [{"type": "http.request", "body": body[:5], "more_body": True}]
    assert call(inbox, half, signed_headers(body)) == []
    assert len(inbox) == 0


def test_a_body_over_the_limit_is_a_413_naming_it() -> None:
    inbox = Inbox(SECRET)
    chunk = {"type": "http.request", "body": b" " * 600_000, "more_body": True}
    status, payload = answer(call(inbox, [chunk, chunk, chunk], signed_headers(b"{}")))
    assert status == 413
    assert "1048576 bytes" in payload["error"]
    assert len(inbox) == 0


def test_a_get_is_a_json_405() -> None:
    status, payload = answer(call(Inbox(SECRET), whole(b""), [], method="GET"))
    assert status == 405
    assert payload == {"error": "only POST is accepted"}


def test_headers_in_odd_case_and_a_conflicting_repeat() -> None:
    inbox = Inbox(SECRET)
    body = b'{"id":"evt_1"}'
    upper = [(name.upper(), value) for name, value in signed_headers(body)]
    assert answer(call(inbox, whole(body), upper))[0] == 200
    repeated = [(b"Webhook-Id", b"evt_other"), *signed_headers(body, "evt_2")]
    status, payload = answer(call(inbox, whole(body), repeated))
    assert status == 400
    assert "webhook-id header given twice" in payload["error"]
    assert [e["id"] for e in inbox.events] == ["evt_1"]


def test_a_non_numeric_timestamp_is_a_400() -> None:
    inbox = Inbox(SECRET)
    body = b'{"id":"evt_1"}'
    headers = [*signed_headers(body)[:1], (b"webhook-timestamp", b"soon"), signed_headers(body)[2]]
    status, payload = answer(call(inbox, whole(body), headers))
    assert status == 400
    assert "not Unix seconds" in payload["error"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"inbox": None}, "inbox must be a pixops.webhooks.Inbox"),
        ({"inbox": Inbox(), "secret": "whsec_!!"}, "base64"),
        ({"inbox": Inbox(), "secret": 12}, "not int"),
        ({"inbox": Inbox(SECRET), "clock": "now"}, "clock must be a callable"),
        ({"inbox": Inbox(SECRET), "clock": lambda: "2026-01-05"}, "now must be a datetime"),
        ({"inbox": Inbox(SECRET), "clock": lambda: 1.5}, "not float"),
    ],
)
def test_wrong_set_up_fails_when_the_app_is_made(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(WebhookSetupError, match=message):
        receiver_app(**arguments)


def test_a_set_up_fault_found_later_is_a_json_500_and_nothing_is_kept() -> None:
    inbox = Inbox(SECRET)
    readings: list[Any] = [int(time.time()), "noon"]
    app = receiver_app(inbox, clock=lambda: readings.pop(0))
    body = b'{"id":"evt_1"}'
    scope = {"type": "http", "method": "POST", "path": "/", "headers": signed_headers(body)}
    sent: list[Message] = []

    async def receive() -> Message:
        return whole(body)[0]

    async def send(message: Message) -> None:
        sent.append(dict(message))

    asyncio.run(app(scope, receive, send))
    status, payload = answer(sent)
    assert status == 500
    assert "receiver set-up error: now must be a datetime" in payload["error"]
    assert len(inbox) == 0
