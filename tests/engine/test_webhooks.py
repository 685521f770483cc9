"""Webhook subscriptions over raw HTTP, and the engine's signed delivery with retries."""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest

from pixops.engine import events
from pixops.engine import notifications as webhooks
from pixops.engine.clock import WallClock
from pixops.engine.config import EngineConfig
from pixops.engine.core import Engine
from pixops.engine.notifications import MAX_SUBSCRIPTIONS, RETRY_DELAYS_SECONDS, _delivery
from pixops.sandbox import ApiKey, Merchant, Sandbox
from pixops.webhooks import verify

if TYPE_CHECKING:
    from tests.conftest import Api, Connect

Call = tuple[dict[str, str], bytes]


class Recorder:
    """An in-process receiver answering from a script of status codes (then the last one)."""

    def __init__(self, *statuses: int) -> None:
        self.statuses = list(statuses) or [200]
        self.calls: list[Call] = []

    def __call__(self, headers: dict[str, str], body: bytes) -> int:
        self.calls.append((headers, body))
        index = min(len(self.calls) - 1, len(self.statuses) - 1)
        return self.statuses[index]

    @property
    def ids(self) -> list[str]:
        return [json.loads(body)["id"] for _, body in self.calls]


def subscribe(api: Api, url: str, event_types: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"url": url}
    if event_types is not None:
        body["event_types"] = event_types
    response = api("POST", "/webhooks", body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def emit(
    sb: Sandbox,
    merchant_id: str,
    event_type: str = "pix.payout.confirmed",
    transaction_id: str | None = "PIXOUTE1",
) -> events.Event:
    with sb.engine.store.transaction() as conn:
        return events.emit(
            sb.engine,
            conn,
            merchant_id,
            event_type,
            {"transaction_id": transaction_id, "amount": 12_300, "status": "settled"},
            at=sb.now(),
            transaction_id=transaction_id,
        )


# -- POST /webhooks -------------------------------------------------------------------


def test_create_answers_201_with_the_secret_once(sandbox: Sandbox, api: Api) -> None:
    response = api(
        "POST",
        "/webhooks",
        {"url": "https://example.com/hooks", "event_types": ["pix.charge.paid"],
         "description": "ERP"},
    )  # fmt: skip
    assert response.status_code == 201
    body = response.json()
    assert body["worked"] is True
    data = body["data"]
    assert set(data) == {
        "id", "url", "event_types", "active", "description", "created_at", "disabled_at", "secret",
    }  # fmt: skip
    assert data["id"].startswith("wh_")
    assert data["url"] == "https://example.com/hooks"
    assert data["event_types"] == ["pix.charge.paid"]
    assert (data["active"], data["description"], data["disabled_at"]) == (True, "ERP", None)
    assert data["created_at"] == "2026-01-05T12:00:00.000Z"
    assert data["secret"].startswith("whsec_")
    assert len(base64.b64decode(data["secret"].removeprefix("whsec_"), validate=True)) == 24
    listed = api("GET", "/webhooks").json()["data"]
    assert listed == [{k: v for k, v in data.items() if k != "secret"}]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (None, ["*"]),
        (["*"], ["*"]),
        (["pix.payout.failed", "pix.charge.paid", "pix.payout.failed"],
         ["pix.payout.failed", "pix.charge.paid"]),
    ],
)  # fmt: skip
def test_event_types_default_to_every_event(
    api: Api, given: list[str] | None, expected: list[str]
) -> None:
    assert subscribe(api, "http://hooks.example.com:8080/pix", given)["event_types"] == expected


@pytest.mark.parametrize(
    ("body", "field", "fragment"),
    [
        ({"url": "ftp://example.com/x"}, "url", "http:// or https://"),
        ({"url": "http://"}, "url", "must name a host"),
        ({"url": "example.com/hooks"}, "url", "http:// or https://"),
        ({"url": "https://exa mple.com"}, "url", "spaces"),
        ({"url": "https://example.com:99999/"}, "url", "not a valid URL"),
        ({}, "url", "is required"),
        ({"url": 42}, "url", "must be a string"),
        ({"url": "https://x.example/" + "a" * 2048}, "url", "at most 2048"),
        ({"url": "inproc://nobody"}, "url", "no in-process receiver"),
        ({"url": "https://e.com", "event_types": ["pix.charge.refunded"]}, "event_types",
         "unknown event type 'pix.charge.refunded'"),
        ({"url": "https://e.com", "event_types": []}, "event_types", "must not be empty"),
        ({"url": "https://e.com", "event_types": "pix.charge.paid"}, "event_types", "a list"),
        ({"url": "https://e.com", "event_types": ["*", "pix.charge.paid"]}, "event_types",
         "cannot be combined"),
        ({"url": "https://e.com", "event_types": [1]}, "event_types", "strings"),
        ({"url": "https://e.com", "description": "d" * 141}, "description", "at most 140"),
        ({"url": "https://e.com", "description": True}, "description", "string or null"),
        ({"url": "https://e.com", "secret": "mine"}, "secret", "unknown field"),
    ],
)  # fmt: skip
def test_bad_subscriptions_are_400_per_field(
    sandbox: Sandbox, merchant: Merchant, api: Api, body: dict[str, Any], field: str, fragment: str
) -> None:
    response = api("POST", "/webhooks", body)
    assert response.status_code == 400
    payload = response.json()
    assert payload["worked"] is False
    messages = payload["errors"]["bad_request"][field]
    assert any(fragment in message for message in messages), messages
    assert api("GET", "/webhooks").json()["data"] == []


def test_body_must_be_an_object(api: Api) -> None:
    response = api("POST", "/webhooks", ["https://example.com"])
    assert response.status_code == 400
    assert response.json()["errors"]["bad_request"] == "Request body must be a JSON object"


def test_camel_case_keys_are_accepted(api: Api) -> None:
    response = api(
        "POST",
        "/webhooks",
        {"url": "https://example.com", "eventTypes": ["pix.refund.requested"]},
        headers={"X-Key-Case": "camelCase"},
    )
    assert response.status_code == 201
    assert response.json()["data"]["eventTypes"] == ["pix.refund.requested"]
    assert "disabledAt" in response.json()["data"]


def test_inproc_url_only_for_a_registered_receiver(
    sandbox: Sandbox, api: Api, connect: Connect
) -> None:
    url = sandbox.add_webhook_receiver(Recorder(), name="erp")
    assert url == "inproc://erp"
    assert subscribe(api, url)["url"] == "inproc://erp"
    other = Sandbox()
    other_merchant = other.create_merchant("Outra")
    response = connect(other, other.issue_api_key(other_merchant.id))(
        "POST", "/webhooks", {"url": url}
    )
    assert response.status_code == 400
    assert (
        "no in-process receiver named 'erp'" in response.json()["errors"]["bad_request"]["url"][0]
    )


def test_receiver_registration_is_checked(sandbox: Sandbox) -> None:
    sandbox.add_webhook_receiver(Recorder(), name="erp")
    with pytest.raises(ValueError, match="already exists"):
        sandbox.add_webhook_receiver(Recorder(), name="erp")
    with pytest.raises(ValueError, match="receiver name"):
        sandbox.add_webhook_receiver(Recorder(), name="Not A Name")
    with pytest.raises(TypeError, match="callable"):
        sandbox.add_webhook_receiver("https://example.com")  # type: ignore[arg-type]
    assert sandbox.add_webhook_receiver(Recorder()) == "inproc://receiver-2"


def test_subscription_limit_is_422(api: Api) -> None:
    for index in range(MAX_SUBSCRIPTIONS):
        subscribe(api, f"https://example.com/{index}")
    response = api("POST", "/webhooks", {"url": "https://example.com/one-more"})
    assert response.status_code == 422
    assert "at most 16" in response.json()["errors"]["unprocessable_entity"]


def test_permissions(sandbox: Sandbox, merchant: Merchant, connect: Connect) -> None:
    reader = connect(sandbox, sandbox.issue_api_key(merchant.id, permissions=["account:read"]))
    writer = connect(sandbox, sandbox.issue_api_key(merchant.id, permissions=["account:write"]))
    denied = reader("POST", "/webhooks", {"url": "https://example.com"})
    assert denied.status_code == 403
    assert denied.json() == {
        "error": "forbidden", "message": "API key lacks permission: account:write",
    }  # fmt: skip
    assert writer("GET", "/webhooks").status_code == 403
    created = subscribe(writer, "https://example.com")
    assert reader("DELETE", f"/webhooks/{created['id']}").status_code == 403
    assert reader("GET", "/webhooks").status_code == 200


def test_unsigned_create_is_refused_by_the_hmac_layer(api: Api) -> None:
    response = api("POST", "/webhooks", {"url": "https://example.com"}, sign=False)
    assert response.status_code == 401
    assert response.json() == {"worked": False, "detail": "Missing HMAC header"}


# -- DELETE /webhooks/:id ----------------------------------------------------------------


def test_delete_removes_from_the_list(api: Api) -> None:
    first = subscribe(api, "https://example.com/1")
    second = subscribe(api, "https://example.com/2")
    response = api("DELETE", f"/webhooks/{first['id']}")
    assert response.status_code == 200
    assert response.json() == {"worked": True, "data": {"id": first["id"], "deleted": True}}
    assert [item["id"] for item in api("GET", "/webhooks").json()["data"]] == [second["id"]]
    again = api("DELETE", f"/webhooks/{first['id']}")
    assert again.status_code == 404
    assert again.json()["worked"] is False
    assert "not found" in again.json()["errors"]["not_found"]


def test_delete_of_unknown_or_foreign_subscription_is_404(
    sandbox: Sandbox, api: Api, connect: Connect
) -> None:
    other = sandbox.create_merchant("Outra Loja")
    other_api = connect(sandbox, sandbox.issue_api_key(other.id))
    theirs = subscribe(other_api, "https://other.example.com")
    for webhook_id in (theirs["id"], "wh_doesnotexist"):
        response = api("DELETE", f"/webhooks/{webhook_id}")
        assert response.status_code == 404
        assert set(response.json()["errors"]) == {"not_found"}
    assert [item["id"] for item in other_api("GET", "/webhooks").json()["data"]] == [theirs["id"]]
    assert api("GET", "/webhooks").json()["data"] == []


# -- delivery ---------------------------------------------------------------------------


def test_delivery_is_a_signed_envelope(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    receiver = Recorder()
    secret = subscribe(api, sandbox.add_webhook_receiver(receiver))["secret"]
    event = emit(sandbox, merchant.id)
    assert receiver.calls == []  # delivery runs on the clock, like every timer
    sandbox.advance(0)
    [(headers, body)] = receiver.calls
    assert headers["webhook-id"] == event.id
    assert headers["webhook-timestamp"] == str(int(sandbox.now().timestamp()))
    assert headers["content-type"] == "application/json"
    assert verify(headers, body, secret, now=sandbox.now()) == event.envelope()
    assert json.loads(body) == {
        "id": event.id,
        "type": "pix.payout.confirmed",
        "created_at": "2026-01-05T12:00:00.000Z",
        "data": {"transaction_id": "PIXOUTE1", "amount": 12_300, "status": "settled"},
    }
    [delivery] = sandbox.webhook_deliveries(merchant.id)
    assert (delivery.state, delivery.event_id, delivery.last_status) == ("delivered", event.id, 200)
    assert [a.status_code for a in delivery.attempts] == [200]
    assert delivery.attempts[0].latency_ms >= 0


def test_only_matching_types_and_own_merchant(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    everything, confirmed_only = Recorder(), Recorder()
    subscribe(api, sandbox.add_webhook_receiver(everything))
    subscribe(api, sandbox.add_webhook_receiver(confirmed_only), ["pix.payout.confirmed"])
    other = sandbox.create_merchant("Outra Loja")
    emit(sandbox, merchant.id, "pix.payout.confirmed", "PIXOUTE1")
    emit(sandbox, merchant.id, "pix.payout.failed", "PIXOUTE2")
    emit(sandbox, other.id, "pix.payout.confirmed", "PIXOUTE3")
    sandbox.advance(0)
    assert [json.loads(b)["type"] for _, b in everything.calls] == [
        "pix.payout.confirmed", "pix.payout.failed",
    ]  # fmt: skip
    assert [json.loads(b)["type"] for _, b in confirmed_only.calls] == ["pix.payout.confirmed"]
    assert sandbox.webhook_deliveries(other.id) == []


def test_failed_attempt_is_retried_after_5_seconds(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    receiver = Recorder(500, 200)
    secret = subscribe(api, sandbox.add_webhook_receiver(receiver))["secret"]
    event = emit(sandbox, merchant.id)
    start = sandbox.now()
    sandbox.advance(0)
    [delivery] = sandbox.webhook_deliveries(merchant.id)
    assert (delivery.state, delivery.last_status, delivery.last_error) == (
        "pending",
        500,
        "HTTP 500",
    )
    assert delivery.next_attempt_at == start + timedelta(seconds=5)
    sandbox.advance(4)
    assert len(receiver.calls) == 1
    sandbox.advance(1)
    assert receiver.ids == [event.id, event.id]
    first, second = (headers for headers, _ in receiver.calls)
    assert int(second["webhook-timestamp"]) - int(first["webhook-timestamp"]) == 5
    verify(second, receiver.calls[1][1], secret, now=sandbox.now())
    [delivery] = sandbox.webhook_deliveries(merchant.id)
    assert delivery.state == "delivered"
    assert [(a.attempt, a.status_code) for a in delivery.attempts] == [(1, 500), (2, 200)]


def test_retry_schedule_then_the_subscription_is_disabled(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    receiver = Recorder(503)
    created = subscribe(api, sandbox.add_webhook_receiver(receiver))
    event = emit(sandbox, merchant.id)
    start = sandbox.now()
    sandbox.advance(days=2)
    [delivery] = sandbox.webhook_deliveries(merchant.id)
    offsets = [int((a.at - start).total_seconds()) for a in delivery.attempts]
    expected = [0]
    for delay in RETRY_DELAYS_SECONDS:
        expected.append(expected[-1] + delay)
    assert offsets == expected == [0, 5, 305, 2105, 9305, 27305, 63305, 99305]
    assert len(receiver.calls) == 8
    assert delivery.state == "failed"
    assert delivery.next_attempt_at is None
    [listed] = api("GET", "/webhooks").json()["data"]
    assert listed["id"] == created["id"]
    assert listed["active"] is False
    assert listed["disabled_at"] == "2026-01-06T15:35:05.000Z"
    assert [e.id for e in sandbox.events(merchant.id)] == [event.id]
    emit(sandbox, merchant.id, transaction_id="PIXOUTE9")
    sandbox.advance(days=1)
    assert len(receiver.calls) == 8
    assert len(sandbox.webhook_deliveries(merchant.id)) == 1


def test_an_answering_endpoint_is_not_disabled_by_one_poison_event(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    def receiver(headers: dict[str, str], body: bytes) -> int:
        return 400 if json.loads(body)["type"] == "pix.payout.failed" else 204

    subscribe(api, sandbox.add_webhook_receiver(receiver))
    emit(sandbox, merchant.id, "pix.payout.failed", "PIXOUTE1")
    emit(sandbox, merchant.id, "pix.payout.confirmed", "PIXOUTE2")
    sandbox.advance(days=2)
    states = {d.event_type: d.state for d in sandbox.webhook_deliveries(merchant.id)}
    assert states == {"pix.payout.failed": "failed", "pix.payout.confirmed": "delivered"}
    assert api("GET", "/webhooks").json()["data"][0]["active"] is True


def test_later_events_of_a_transaction_wait_for_earlier_ones(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    receiver = Recorder(500, 200)
    subscribe(api, sandbox.add_webhook_receiver(receiver))
    first = emit(sandbox, merchant.id, "pix.refund.completed", "PIXRETD1")
    second = emit(sandbox, merchant.id, "pix.payout.failed", "PIXRETD1")
    unrelated = emit(sandbox, merchant.id, "pix.payout.confirmed", "PIXOUTE7")
    sandbox.advance(0)
    assert receiver.ids == [first.id, unrelated.id]
    states = [d.state for d in sandbox.webhook_deliveries(merchant.id)]
    assert states == ["pending", "held", "delivered"]
    sandbox.advance(5)
    assert receiver.ids == [first.id, unrelated.id, first.id, second.id]
    assert {d.state for d in sandbox.webhook_deliveries(merchant.id)} == {"delivered"}


def test_events_without_a_transaction_are_not_ordered(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    receiver = Recorder(500, 200, 200)
    subscribe(api, sandbox.add_webhook_receiver(receiver))
    first = emit(sandbox, merchant.id, transaction_id=None)
    second = emit(sandbox, merchant.id, transaction_id=None)
    sandbox.advance(0)
    assert receiver.ids == [first.id, second.id]


def test_delete_cancels_outstanding_deliveries(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    receiver = Recorder(500)
    created = subscribe(api, sandbox.add_webhook_receiver(receiver))
    emit(sandbox, merchant.id, "pix.refund.completed", "PIXRETD1")
    emit(sandbox, merchant.id, "pix.payout.failed", "PIXRETD1")
    sandbox.advance(0)
    assert api("DELETE", f"/webhooks/{created['id']}").status_code == 200
    sandbox.advance(hours=1)
    assert len(receiver.calls) == 1
    deliveries = sandbox.webhook_deliveries(merchant.id)
    assert [(d.state, d.last_error) for d in deliveries] == [
        ("cancelled", "subscription deleted"), ("cancelled", "subscription deleted"),
    ]  # fmt: skip


def test_receiver_faults_are_recorded(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    calls: list[int] = []

    def broken(headers: dict[str, str], body: bytes) -> int:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("boom")
        return "ok"  # type: ignore[return-value]

    subscribe(api, sandbox.add_webhook_receiver(broken))
    emit(sandbox, merchant.id)
    sandbox.advance(5)
    [delivery] = sandbox.webhook_deliveries(merchant.id)
    assert [(a.status_code, a.error) for a in delivery.attempts] == [
        (None, "receiver raised RuntimeError: boom"),
        (None, "receiver returned 'ok', not a status code"),
    ]


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_network_errors_are_recorded(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    subscribe(api, f"http://127.0.0.1:{closed_port()}/hooks")
    emit(sandbox, merchant.id)
    sandbox.advance(0)
    [delivery] = sandbox.webhook_deliveries(merchant.id)
    [attempt] = delivery.attempts
    assert attempt.status_code is None
    assert attempt.error is not None
    assert attempt.error.startswith("ConnectError")
    assert delivery.state == "pending"


def test_new_subscription_gets_only_later_events(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    emit(sandbox, merchant.id, transaction_id="PIXOUTE1")
    receiver = Recorder()
    subscribe(api, sandbox.add_webhook_receiver(receiver))
    later = emit(sandbox, merchant.id, transaction_id="PIXOUTE2")
    sandbox.advance(0)
    assert receiver.ids == [later.id]


def test_deliveries_roll_back_with_their_event(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    subscribe(api, sandbox.add_webhook_receiver(Recorder()))

    def failing_operation() -> None:
        with sandbox.engine.store.transaction() as conn:
            events.emit(sandbox.engine, conn, merchant.id, "pix.charge.paid", {}, at=sandbox.now())
            raise RuntimeError("the operation failed after emitting")

    with pytest.raises(RuntimeError):
        failing_operation()
    assert sandbox.webhook_deliveries(merchant.id) == []
    assert sandbox.advance(0) == 0


def test_key_of_another_merchant_sees_only_its_own(
    sandbox: Sandbox, api: Api, connect: Connect, key: ApiKey
) -> None:
    mine = subscribe(api, "https://mine.example.com")
    other = sandbox.create_merchant("Outra Loja")
    other_api = connect(sandbox, sandbox.issue_api_key(other.id))
    subscribe(other_api, "https://theirs.example.com")
    assert [item["id"] for item in api("GET", "/webhooks").json()["data"]] == [mine["id"]]


def test_an_interrupted_attempt_is_retried_by_its_lease(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """A process that stops mid-POST leaves the booked retry behind: at-least-once."""
    receiver = Recorder()
    subscribe(api, sandbox.add_webhook_receiver(receiver))
    event = emit(sandbox, merchant.id)
    [delivery] = sandbox.webhook_deliveries(merchant.id)
    with sandbox.engine.store.transaction() as conn:
        conn.execute("DELETE FROM timers WHERE kind = 'webhook.deliver'")
    assert _delivery._begin(sandbox.engine, delivery.id) is not None  # booked, never finished
    sandbox.advance(4)
    assert receiver.calls == []
    sandbox.advance(1)
    assert receiver.ids == [event.id]
    [delivery] = sandbox.webhook_deliveries(merchant.id)
    assert delivery.state == "delivered"
    assert [(a.attempt, a.status_code) for a in delivery.attempts] == [(2, 200)]


def test_payout_returned_goes_only_to_subscriptions_that_name_it(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """Issue 8.4: a refund emits pix.refund.completed and its alternative
    pix.payout.returned; a subscription to every event gets the refund once."""
    everything, named, both = Recorder(), Recorder(), Recorder()
    subscribe(api, sandbox.add_webhook_receiver(everything))
    subscribe(api, sandbox.add_webhook_receiver(named), ["pix.payout.returned"])
    subscribe(
        api,
        sandbox.add_webhook_receiver(both),
        ["pix.refund.completed", "pix.payout.returned"],
    )
    credit = sandbox.receive_pix(merchant.id, amount_centavos=5_000)
    refunded = api("POST", "/pix/refund", {"original_transaction_id": credit})
    assert refunded.status_code == 202
    sandbox.advance(5)

    def types(receiver: Recorder) -> list[str]:
        return [json.loads(body)["type"] for _, body in receiver.calls]

    assert types(everything) == ["pix.refund.completed"]
    assert types(named) == ["pix.payout.returned"]
    assert types(both) == ["pix.refund.completed", "pix.payout.returned"]
    assert [e.type for e in sandbox.events(merchant.id)] == [
        "pix.refund.completed",
        "pix.payout.returned",
    ]


# -- concurrent delivery under the wall clock (issue 8.9) ---------------------------------


def test_a_slow_receiver_delays_nobody(connect: Connect) -> None:
    """Under the wall clock, a receiver that never answers holds only its own lane: the
    timer worker returns, other subscribers get their events, settlements go on, and the
    slow subscription still receives its events in order once it answers."""
    config = EngineConfig(settlement_latency_seconds=0)
    engine = Engine(clock=WallClock(), config=config, seed=1)
    sb = Sandbox.over(engine)
    merchant = sb.create_merchant("Loja", balance_centavos=100_000)
    api = connect(sb, sb.issue_api_key(merchant.id))
    release = threading.Event()
    slow_seen: list[str] = []

    def slow(headers: dict[str, str], body: bytes) -> int:
        release.wait(30)
        slow_seen.append(json.loads(body)["data"]["transaction_id"])
        return 200

    fast = Recorder()
    subscribe(api, webhooks.add_receiver(engine, slow, "slow"))
    subscribe(api, webhooks.add_receiver(engine, fast, "fast"))
    body = {"amount": 100, "pix_key": "maria.silva@sandbox.pixops.dev"}

    def run_due_promptly() -> None:
        worker = threading.Thread(target=engine.run_due, daemon=True)
        worker.start()
        worker.join(timeout=3)
        assert not worker.is_alive(), "the timer worker waited on a webhook receiver"

    def settle(transaction_id: str) -> None:
        deadline = time.monotonic() + 10
        while sb.transaction_status(transaction_id) != "settled":
            assert time.monotonic() < deadline, "the payout never settled"
            run_due_promptly()
            time.sleep(0.05)
        run_due_promptly()  # hands the confirmation to the lanes

    def wait_for(condition: Callable[[], bool]) -> None:
        deadline = time.monotonic() + 5
        while not condition():
            assert time.monotonic() < deadline
            time.sleep(0.01)

    def fast_ids() -> list[str]:
        return [json.loads(b)["data"]["transaction_id"] for _, b in fast.calls]

    try:
        first = api("POST", "/pix/cash-out", body).json()["transaction_id"]
        settle(first)
        wait_for(lambda: fast_ids() == [first])
        second = api("POST", "/pix/cash-out", {**body, "amount": 200}).json()["transaction_id"]
        settle(second)  # settles while the slow receiver still holds the first event
        wait_for(lambda: fast_ids() == [first, second])
        assert slow_seen == []
    finally:
        release.set()
    assert engine.delivery_lanes is not None
    assert engine.delivery_lanes.wait_idle(10)
    engine.run_due()
    assert engine.delivery_lanes.wait_idle(10)
    assert slow_seen == [first, second]
    assert len(fast.calls) == 2
    engine.close()


def test_a_delivery_run_again_before_its_next_attempt_is_due_sends_nothing(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """A leased delivery timer may run twice (its lease ran out while the first run
    waited in its lane): the second run finds the next attempt booked and leaves it."""
    receiver = Recorder(500)
    subscribe(api, sandbox.add_webhook_receiver(receiver))
    emit(sandbox, merchant.id)
    sandbox.advance(0)
    [delivery] = sandbox.webhook_deliveries(merchant.id)
    assert len(receiver.calls) == 1

    _delivery.deliver(sandbox.engine, delivery.id)

    assert len(receiver.calls) == 1
    [again] = sandbox.webhook_deliveries(merchant.id)
    assert (again.state, len(again.attempts)) == ("pending", 1)
    sandbox.advance(RETRY_DELAYS_SECONDS[0])
    assert len(receiver.calls) == 2, "the booked retry still runs on time"
