"""Webhook notifications: subscriptions, the fan-out of events into deliveries, and
signed delivery with retries (the engine's side; `pixops.webhooks` is the receiver's).

* `_subscriptions`: validate, create, list, delete (`POST/GET/DELETE /webhooks`);
* `_fanout`: one delivery per matching subscription, ordered per transaction;
* `_delivery`: one signed attempt at a time, retries, disabling a dead endpoint;
* `_receivers`: in-process receivers (`inproc://name`) for notebooks and tests;
* `_history`: the deliveries and attempts, for `Sandbox.webhook_deliveries`.

Usage (the engine wires `fan_out` as its event hook)::

    url = add_receiver(engine, lambda headers, body: 200, "erp")
    subscription, secret = create_subscription(engine, conn, merchant_id, {"url": url}, now=now)
"""

from pixops.engine.errors import SubscriptionError, SubscriptionLimitError
from pixops.engine.notifications._delivery import (
    DELIVERY_TIMEOUT_SECONDS,
    MAX_ATTEMPTS,
    RETRY_DELAYS_SECONDS,
    deliver,
)
from pixops.engine.notifications._fanout import ALL_EVENTS, NAMED_ONLY, fan_out
from pixops.engine.notifications._history import WebhookAttempt, WebhookDelivery, list_deliveries
from pixops.engine.notifications._receivers import INPROC_SCHEME, Receiver, add_receiver
from pixops.engine.notifications._subscriptions import (
    MAX_DESCRIPTION_LENGTH,
    MAX_SUBSCRIPTIONS,
    MAX_URL_LENGTH,
    Subscription,
    check_fields,
    create_subscription,
    delete_subscription,
    list_subscriptions,
)

__all__ = [
    "ALL_EVENTS",
    "DELIVERY_TIMEOUT_SECONDS",
    "INPROC_SCHEME",
    "MAX_ATTEMPTS",
    "MAX_DESCRIPTION_LENGTH",
    "MAX_SUBSCRIPTIONS",
    "MAX_URL_LENGTH",
    "NAMED_ONLY",
    "RETRY_DELAYS_SECONDS",
    "Receiver",
    "Subscription",
    "SubscriptionError",
    "SubscriptionLimitError",
    "WebhookAttempt",
    "WebhookDelivery",
    "add_receiver",
    "check_fields",
    "create_subscription",
    "delete_subscription",
    "deliver",
    "fan_out",
    "list_deliveries",
    "list_subscriptions",
]
