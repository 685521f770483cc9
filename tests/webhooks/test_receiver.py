"""pixops.webhooks.receiver_app: verify, store, answer 200 / 400 / 405."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

import httpx
import pytest

from pixops.webhooks import Inbox, generate_secret, receiver_app, sign

SECRET = generate_secret()


def signed(event_id: str, body: bytes, secret: str = SECRET) -> dict[str, str]:
    timestamp = int(time.time())
    return {
        "content-type": "application/json",
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(event_id, timestamp, body, secret),
    }


def exchange(
    inbox: Inbox, requests: list[tuple[str, bytes, dict[str, str]]]
) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=receiver_app(inbox))
        async with httpx.AsyncClient(transport=transport, base_url="http://receiver") as client:
            return [
                await client.request(method, "/hooks", content=body, headers=headers)
                for method, body, headers in requests
            ]

    return asyncio.run(run())


def test_new_duplicate_and_forged_deliveries() -> None:
    inbox = Inbox(SECRET)
    body = json.dumps({"id": "evt_1", "type": "pix.payout.confirmed", "data": {}}).encode()
    first, again, forged = exchange(
        inbox,
        [
            ("POST", body, signed("evt_1", body)),
            ("POST", body, signed("evt_1", body)),
            ("POST", body, signed("evt_2", body, generate_secret())),
        ],
    )
    assert (first.status_code, first.json()) == (200, {"received": True, "duplicate": False})
    assert (again.status_code, again.json()) == (200, {"received": True, "duplicate": True})
    assert forged.status_code == 400
    assert "no matching signature" in forged.json()["error"]
    assert [event["id"] for event in inbox.events] == ["evt_1"]


def test_missing_headers_and_wrong_method() -> None:
    inbox = Inbox(SECRET)
    missing, wrong_method = exchange(inbox, [("POST", b"{}", {}), ("GET", b"", {})])
    assert missing.status_code == 400
    assert "missing required header" in missing.json()["error"]
    assert wrong_method.status_code == 405
    assert wrong_method.headers["allow"] == "POST"
    assert inbox.events == []


def test_explicit_secret_overrides_and_one_is_required() -> None:
    other = generate_secret()
    inbox = Inbox()
    body = b'{"id":"evt_9"}'

    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=receiver_app(inbox, other))
        async with httpx.AsyncClient(transport=transport, base_url="http://receiver") as client:
            return await client.post("/", content=body, headers=signed("evt_9", body, other))

    assert asyncio.run(run()).status_code == 200
    assert inbox.events == [{"id": "evt_9"}]
    with pytest.raises(ValueError, match="needs a secret"):
        receiver_app(Inbox())


def test_clock_sets_now_for_the_timestamp_check() -> None:
    """A sandbox's virtual clock is far from the wall clock; `clock` verifies against it."""
    inbox = Inbox(SECRET)
    body = b'{"id":"evt_old"}'
    virtual_now = 1_767_614_400
    headers = {
        "webhook-id": "evt_old",
        "webhook-timestamp": str(virtual_now),
        "webhook-signature": sign("evt_old", virtual_now, body, SECRET),
    }

    async def run(clock: Callable[[], int] | None) -> httpx.Response:
        transport = httpx.ASGITransport(app=receiver_app(inbox, clock=clock))
        async with httpx.AsyncClient(transport=transport, base_url="http://receiver") as client:
            return await client.post("/", content=body, headers=headers)

    wall = asyncio.run(run(None))
    assert wall.status_code == 400
    assert "webhook-timestamp too" in wall.json()["error"]
    assert asyncio.run(run(lambda: virtual_now + 60)).status_code == 200
    assert inbox.events == [{"id": "evt_old"}]
