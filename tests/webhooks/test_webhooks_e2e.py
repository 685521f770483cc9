"""End to end: real operations emit every event type, delivered over real HTTP to uvicorn.

A loopback uvicorn runs `receiver_app` behind a front that fails the very first request
with 500 (after the inbox stored it), so the test sees the retry after `advance`, and
the receiver's de-duplication by `webhook-id`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

import pytest

from pixops.engine.events import EVENT_TYPES
from pixops.sandbox import Sandbox
from pixops.webhooks import Inbox, receiver_app, verify
from tests.conftest import LiveServer

if TYPE_CHECKING:
    from tests.conftest import Api, Connect

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class FailFirst:
    """Passes requests to `inner`; the first `failures` get a 500 whatever `inner` said."""

    def __init__(self, inner: App, failures: int) -> None:
        self.inner = inner
        self.failures = failures
        self.seen: list[tuple[dict[str, str], bytes, int]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = bool(message.get("more_body", False))
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}

        async def replay() -> Message:
            return {"type": "http.request", "body": body, "more_body": False}

        statuses: list[int] = []
        failing = self.failures > 0

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                statuses.append(int(message["status"]))
            if failing:
                return
            if message["type"] == "http.response.body" and not message.get("more_body"):
                # Seen before the answer completes: the sender may read `seen` the moment
                # its request returns.
                self.seen.append((headers, body, statuses[-1]))
            await send(message)

        await self.inner(scope, replay, capture)
        if failing:
            self.failures -= 1
            self.seen.append((headers, body, 500))
            await send({"type": "http.response.start", "status": 500, "headers": []})
            await send({"type": "http.response.body", "body": b"try again"})


class ReceiverServer(LiveServer):
    """The shared loopback uvicorn, serving a webhook receiver at `/hooks`."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"


@pytest.fixture
def receiver_server() -> Iterator[ReceiverServer]:
    server = ReceiverServer()
    server.start()
    yield server
    server.stop()
    assert not server.thread.is_alive()


def created(response: Any, *statuses: int) -> dict[str, Any]:
    assert response.status_code in statuses, response.text
    body: dict[str, Any] = response.json()
    return body


def cash_out(api: Api, pix_key: str, amount_centavos: int) -> str:
    body = created(
        api("POST", "/pix/cash-out", {"amount": amount_centavos, "pix_key": pix_key}), 202
    )
    return str(body["transaction_id"])


def refund(api: Api, original: str, amount_centavos: int, reason: str = "MD06") -> str:
    request = {"original_transaction_id": original, "amount": amount_centavos, "reason": reason}
    return str(created(api("POST", "/pix/refund", request), 200, 202)["transaction_id"])


def test_every_event_type_reaches_a_real_receiver(
    receiver_server: ReceiverServer, connect: Connect
) -> None:
    sb = Sandbox()
    merchant = sb.create_merchant("Loja E2E", balance_centavos=1_000_000)
    api = connect(sb, sb.issue_api_key(merchant.id))
    # Every type named: "*" leaves out pix.payout.returned, the alternative form of a refund.
    every_type = {"url": receiver_server.url, "event_types": list(EVENT_TYPES)}
    subscription = created(api("POST", "/webhooks", every_type), 201)["data"]
    secret = subscription["secret"]
    inbox = Inbox(secret)
    front = FailFirst(receiver_app(inbox, clock=sb.now), failures=1)
    receiver_server.app = front

    # A charge is paid: the first delivery meets a 500, and is retried 5 s later.
    charge = created(api("POST", "/pix/cash-in", {"amount": 10_000}), 201)["data"]
    credit = sb.pay_charge(charge["transaction_id"], payer_name="Ana Costa")
    sb.advance(0)
    [first] = sb.webhook_deliveries(merchant.id)
    assert (first.event_type, first.state, first.last_status) == ("pix.charge.paid", "pending", 500)
    assert len(inbox.events) == 1  # stored, but the sender was told otherwise
    sb.advance(5)
    [first] = sb.webhook_deliveries(merchant.id)
    assert first.state == "delivered"
    assert [a.status_code for a in first.attempts] == [500, 200]
    assert inbox.duplicates == 1
    (h1, _, s1), (h2, _, s2) = front.seen[:2]
    assert (s1, s2) == (500, 200)
    assert h1["webhook-id"] == h2["webhook-id"] == first.event_id
    assert int(h2["webhook-timestamp"]) - int(h1["webhook-timestamp"]) == 5

    # Cash-outs to the directory's documented test keys, refunds, a return, a MED notice.
    confirmed = cash_out(api, "maria.silva@sandbox.pixops.dev", 20_000)
    queued = cash_out(api, "queue.client@sandbox.pixops.dev", 1_000)
    rejected = cash_out(api, "0c6f4ab2-3d5e-4f71-9a8b-2c3d4e5f6a7b", 1_500)
    orphan = cash_out(api, "orphan@sandbox.pixops.dev", 2_000)
    refunded = refund(api, credit, 3_000)
    refused = refund(api, credit, 1_000, reason="XX99")
    sb.advance(60)
    returned = sb.receive_return(confirmed, amount_centavos=5_000)
    disputed = sb.receive_pix(merchant.id, amount_centavos=40_000, payer_name="João Pereira")
    case = sb.open_med_case(disputed)
    sb.advance(minutes=31)

    emitted = sb.events(merchant.id)
    assert {event.type for event in emitted} == set(EVENT_TYPES)
    assert sorted(e["id"] for e in inbox.events) == sorted(event.id for event in emitted)
    by_id = {event.id: event for event in emitted}
    for envelope in inbox.events:
        assert set(envelope) == {"id", "type", "created_at", "data"}
        assert envelope == by_id[envelope["id"]].envelope()
        assert envelope["created_at"].endswith("Z")
    assert all(d.state == "delivered" for d in sb.webhook_deliveries(merchant.id))
    assert len(front.seen) == len(emitted) + 1
    for headers, body, _ in front.seen:
        event = verify(headers, body, secret, now=int(headers["webhook-timestamp"]))
        assert event["id"] == headers["webhook-id"]

    def data(event_type: str, transaction_id: str) -> dict[str, Any]:
        found: dict[str, Any]
        [found] = [
            e["data"] for e in inbox.events
            if e["type"] == event_type and e["data"]["transaction_id"] == transaction_id
        ]  # fmt: skip
        return found

    assert data("pix.charge.paid", credit)["status"] == "paid"
    assert data("pix.payout.queued", queued)["reason_code"] == "DICT_CLIENT_RATE_LIMITED"
    assert data("pix.payout.confirmed", queued)["status"] == "settled"
    assert data("pix.payout.confirmed", confirmed)["amount"] == 2_000_000
    assert data("pix.payout.rejected", rejected)["reason_code"] == "AC06"
    assert data("pix.payout.failed", orphan)["reason_code"] == "orphan_force_voided"
    assert data("pix.payout.failed", refused)["reason_code"] == "AG03"
    completed = data("pix.refund.completed", refunded)
    assert (completed["amount"], completed["is_partial"]) == (300_000, True)
    assert data("pix.payout.returned", refunded) == completed
    assert data("pix.return.received", returned)["original_transaction_id"] == confirmed
    assert data("pix.refund.requested", disputed)["med_case_id"] == case.id

    # Per transaction, the receiver saw events in the order they were emitted.
    arrival = [json.loads(body)["id"] for _, body, status in front.seen if status == 200]
    for transaction_id in {e.transaction_id for e in emitted if e.transaction_id}:
        order = [e.id for e in emitted if e.transaction_id == transaction_id]
        assert [i for i in arrival if i in order] == order

    frame = inbox.to_frame()
    assert str(frame["amount"].dtype) == "int64[pyarrow]"
    assert str(frame["created_at"].dtype) == "timestamp[ms, tz=UTC][pyarrow]"
    assert len(frame) == len(emitted)
    assert sb.audit(merchant.id).consistent
