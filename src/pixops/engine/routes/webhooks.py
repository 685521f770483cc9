"""PLACEHOLDER: replaced by the module that implements these routes."""

from __future__ import annotations

from pixops.engine.http import ApiError, Reply
from pixops.engine.routing import Context


def create_webhook(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "create_webhook is being built"})


def list_webhooks(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "list_webhooks is being built"})


def delete_webhook(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "delete_webhook is being built"})
