"""`events_for`, what the refund, MED and inspector panels show under a payment or case:
from an `Inbox` it looks the ids up (`events_about`) instead of copying the month, and
finds exactly what the whole list gives, a refund's completion shown once."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pixops.demo import demo_month
from pixops.webhooks import Inbox
from pixops.widgets._base import events_for


class Listed:
    """An event source with only `events`, as the panels' protocol asks."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events


def test_looked_up_events_are_those_of_the_whole_list() -> None:
    month = demo_month()
    inbox = Inbox()
    inbox._defer_verified(month.sandbox.event_bodies(month.merchant.id))
    listed = Listed(inbox.events)
    types = Counter(event["type"] for event in listed.events)
    assert types["pix.payout.returned"]
    assert types["pix.refund.completed"]
    ids: list[set[str]] = []
    for event in listed.events:
        data = event.get("data") or {}
        for name in ("transaction_id", "original_transaction_id", "med_case_id", "charge_txid"):
            if data.get(name):
                ids.append({data[name]})
    ids = ids[:: len(ids) // 25]  # ~25 lookups across the month, of every kind
    returned = [e for e in listed.events if e["type"] == "pix.payout.returned"][:10]
    ids += [{e["data"]["transaction_id"]} for e in returned]
    ids.append({"PIXIN-none", "MED-none"})
    ids.append({next(iter(a)) for a in ids[:5]})
    for wanted in ids:
        assert events_for(inbox, wanted) == events_for(listed, wanted), wanted
    hidden = [e for e in returned if e not in events_for(inbox, {e["data"]["transaction_id"]})]
    assert hidden  # a returned payout that repeats a refund's completion is shown once
