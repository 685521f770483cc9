"""PLACEHOLDER: replaced by the module that implements these routes."""

from __future__ import annotations

from pixops.engine.http import ApiError, Reply
from pixops.engine.routing import Context


def list_transactions(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "list_transactions is being built"})


def by_end_to_end(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "by_end_to_end is being built"})


def by_tag(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "by_tag is being built"})


def by_external_id(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "by_external_id is being built"})


def receipt(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "receipt is being built"})


def get_transaction(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "get_transaction is being built"})
