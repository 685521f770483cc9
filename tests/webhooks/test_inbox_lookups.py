"""`Inbox.events_about` (the events naming an id, copied) and the deliveries an inbox is
handed to read later (what `pixops.connect()` does with the sandbox's month): read in
order before anything added after them, by whichever look comes first."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from pixops.webhooks import Inbox, WebhookSetupError, WebhookVerificationError
from tests.webhooks.test_inbox_bad_input import SECRET


def event(number: int, **data: Any) -> dict[str, Any]:
    return {
        "id": f"evt_{number}",
        "type": data.pop("type", "pix.charge.paid"),
        "created_at": "2026-01-05T12:00:00.000Z",
        "data": data,
    }


EVENTS = [
    event(0, transaction_id="PIXIN1", amount=100),
    event(
        1, type="pix.refund.completed", transaction_id="PIXOUT9", original_transaction_id="PIXIN1"
    ),
    event(2, transaction_id="PIXIN2", charge_txid="TX2"),
    event(3, type="med.case.opened", med_case_id="MED1", transaction_id="PIXIN3"),
    {"id": "evt_4", "type": "pix.other"},  # no data
]


def body(item: dict[str, Any]) -> bytes:
    return json.dumps(item).encode()


def test_events_about_finds_each_id_field_in_order_and_copies() -> None:
    inbox = Inbox(SECRET)
    for item in EVENTS:
        inbox.add_verified(item["id"], item)
    assert [e["id"] for e in inbox.events_about({"PIXIN1"})] == ["evt_0", "evt_1"]
    assert [e["id"] for e in inbox.events_about(["TX2", "MED1"])] == ["evt_2", "evt_3"]
    assert inbox.events_about({"nothing"}) == []
    found = inbox.events_about({"PIXIN2"})
    found[0]["data"]["amount"] = 10.5  # the caller's copy
    assert inbox.events_about({"PIXIN2"}) == [EVENTS[2]]


@pytest.mark.parametrize("ids", ["PIXIN1", b"PIXIN1", 5, None])
def test_events_about_wants_a_collection_of_ids(ids: Any) -> None:
    with pytest.raises(TypeError, match="ids must be a set or list"):
        Inbox(SECRET).events_about(ids)


def test_deferred_deliveries_are_read_first_and_in_order() -> None:
    inbox = Inbox(SECRET)
    inbox._defer_verified((item["id"], body(item)) for item in EVENTS[:3])
    assert inbox.add_verified("evt_1", EVENTS[1]) is False  # a repeat of a deferred one
    assert inbox.add_verified("evt_3", EVENTS[3]) is True
    assert [e["id"] for e in inbox.events] == ["evt_0", "evt_1", "evt_2", "evt_3"]
    assert inbox.duplicates == 1


@pytest.mark.parametrize(
    "look",
    [
        len,
        lambda inbox: inbox.events,
        lambda inbox: inbox.duplicates,
        lambda inbox: inbox.to_frame(),
        lambda inbox: inbox.events_about({"PIXIN1"}),
    ],
)
def test_every_look_reads_the_deferred_deliveries(look: Any) -> None:
    inbox = Inbox(SECRET)
    inbox._defer_verified((item["id"], body(item)) for item in EVENTS)
    look(inbox)
    assert not inbox._unread
    assert len(inbox) == len(EVENTS)
    assert inbox.to_frame()["id"].tolist() == [item["id"] for item in EVENTS]


def test_a_deferred_delivery_that_does_not_read_is_dropped_with_its_error() -> None:
    inbox = Inbox(SECRET)
    bad = event(7, amount=10.5)
    inbox._defer_verified(
        [("evt_0", body(EVENTS[0])), ("evt_7", body(bad)), ("evt_2", body(EVENTS[2]))]
    )
    with pytest.raises(WebhookVerificationError, match=r"data\.amount must be an integer"):
        len(inbox)
    assert [e["id"] for e in inbox.events] == ["evt_0", "evt_2"]


def test_deferring_checks_ids_and_bodies_at_once() -> None:
    inbox = Inbox(SECRET)
    with pytest.raises(WebhookSetupError, match="webhook_id"):
        inbox._defer_verified([("", b"{}")])
    with pytest.raises(WebhookSetupError, match="body must be bytes"):
        inbox._defer_verified([("evt_0", "{}")])  # type: ignore[list-item]
    assert len(inbox) == 0


def test_threads_looking_at_once_read_the_deferred_deliveries_once() -> None:
    inbox = Inbox(SECRET)
    inbox._defer_verified((f"evt_{n}", body(event(n, transaction_id=f"T{n}"))) for n in range(500))
    barrier = threading.Barrier(6)
    sizes: list[int] = []

    def look() -> None:
        barrier.wait()
        sizes.append(len(inbox))

    threads = [threading.Thread(target=look) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sizes == [500] * 6
    assert inbox.duplicates == 0
