"""`/webhooks`: create, list and delete the merchant's webhook subscriptions."""

from __future__ import annotations

from pixops.engine import notifications as webhooks
from pixops.engine.http import Reply, bad_request, not_found, unprocessable
from pixops.engine.routing import Context


def create_webhook(ctx: Context) -> Reply:
    """POST /webhooks: 201 with the subscription and its secret, shown this once."""
    try:
        subscription, secret = webhooks.create_subscription(
            ctx.engine, ctx.conn, ctx.merchant_id, ctx.body(), now=ctx.now
        )
    except webhooks.SubscriptionError as error:
        raise bad_request(error.errors) from None
    except webhooks.SubscriptionLimitError as error:
        raise unprocessable(str(error)) from None
    return Reply(201, {"worked": True, "data": {**subscription.resource(), "secret": secret}})


def list_webhooks(ctx: Context) -> Reply:
    """GET /webhooks: every subscription not deleted, oldest first, without secrets."""
    found = webhooks.list_subscriptions(ctx.conn, ctx.merchant_id)
    return Reply(200, {"worked": True, "data": [item.resource() for item in found]})


def delete_webhook(ctx: Context) -> Reply:
    """DELETE /webhooks/:id: the subscription stops receiving; unknown or foreign gives 404."""
    webhook_id = ctx.params["id"]
    if not webhooks.delete_subscription(ctx.conn, ctx.merchant_id, webhook_id, now=ctx.now):
        raise not_found(f"Webhook subscription {webhook_id} not found")
    return Reply(200, {"worked": True, "data": {"id": webhook_id, "deleted": True}})
