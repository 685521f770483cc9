"""PLACEHOLDER: replaced by the module that implements these routes."""

from __future__ import annotations

from pixops.engine.http import ApiError, Reply
from pixops.engine.routing import Context


def create_payout(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "create_payout is being built"})
