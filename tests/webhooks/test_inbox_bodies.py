"""`Inbox.add_verified_body`: a delivery's body read once, kept exactly as `add_verified`
keeps the same event given as a dict, and refused for the same reasons; the sandbox's
event bodies, which `pixops.connect()` reads, give the inbox its envelopes' events."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings

from pixops.sandbox import Sandbox
from pixops.webhooks import Inbox, WebhookSetupError, WebhookVerificationError
from tests.webhooks.test_inbox_bad_input import EVENTS, GOOD, SECRET


def _outcome(add: Any, webhook_id: str, event: Any) -> tuple[str, Any]:
    try:
        return "kept", add(webhook_id, event)
    except WebhookVerificationError as error:
        return "refused", str(error)


@settings(max_examples=60)  # the same events test_inbox_bad_input draws 200 of
@given(event=EVENTS)
def test_property_a_body_is_kept_or_refused_as_its_dict_is(event: dict[str, Any]) -> None:
    try:
        body = json.dumps(event, allow_nan=False).encode()
    except ValueError:  # NaN or infinity: not JSON, so no body carries it
        return
    as_dict, as_body = Inbox(SECRET), Inbox(SECRET)
    assert _outcome(as_body.add_verified_body, "evt_1", body) == _outcome(
        as_dict.add_verified, "evt_1", event
    )
    assert as_body.events == as_dict.events
    pd.testing.assert_frame_equal(as_body.to_frame(), as_dict.to_frame())


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "body is empty"),
        (b"{", "not valid JSON|Expecting"),
        (b'{"id": "a", "id": "b"}', "twice|duplicate"),
        (b'{"data": {"amount": NaN}}', "NaN"),
        (b"[1, 2]", "not an object"),
        (b'{"data": {"amount": 10.5}}', "data.amount must be an integer"),
        (b"\xef\xbb\xbf" + json.dumps(GOOD).encode(), "byte-order mark|BOM"),
        (b'{"data":' * 70 + b"1" + b"}" * 70, "nested more than"),
    ],
)
def test_a_bad_body_is_refused_and_nothing_is_kept(body: bytes, message: str) -> None:
    inbox = Inbox(SECRET)
    with pytest.raises(WebhookVerificationError, match=message):
        inbox.add_verified_body("evt_x", body)
    assert len(inbox) == 0
    assert inbox.add_verified_body("evt_x", json.dumps(GOOD).encode()) is True  # not "seen"


@pytest.mark.parametrize(("webhook_id", "body"), [("", b"{}"), ("evt_x", "{}"), ("evt_x", None)])
def test_wrong_arguments_are_setup_errors(webhook_id: str, body: Any) -> None:
    inbox = Inbox(SECRET)
    with pytest.raises(WebhookSetupError, match=r"webhook_id|body must be bytes"):
        inbox.add_verified_body(webhook_id, body)
    assert len(inbox) == 0


def test_a_repeated_body_is_a_duplicate_and_a_bytearray_is_read() -> None:
    inbox = Inbox(SECRET)
    body = json.dumps(GOOD).encode()
    assert inbox.add_verified_body("evt_good", bytearray(body)) is True
    assert inbox.add_verified_body("evt_good", body) is False
    assert inbox.duplicates == 1
    assert inbox.events == [GOOD]


def test_the_sandboxs_event_bodies_are_its_envelopes() -> None:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja", balance_centavos=100_000)
    sandbox.simulate(merchant.id, days=1, charges_per_day=6)  # charges paid, refunds, ...
    events = sandbox.events(merchant.id)
    bodies = sandbox.event_bodies(merchant.id)
    assert len(events) >= 3
    assert [event_id for event_id, _ in bodies] == [event.id for event in events]
    assert [json.loads(body) for _, body in bodies] == [event.envelope() for event in events]
    from_bodies, from_envelopes = Inbox(SECRET), Inbox(SECRET)
    for (event_id, body), event in zip(bodies, events, strict=True):
        from_bodies.add_verified_body(event_id, body)
        from_envelopes.add_verified(event.id, event.envelope())
    pd.testing.assert_frame_equal(from_bodies.to_frame(), from_envelopes.to_frame())
