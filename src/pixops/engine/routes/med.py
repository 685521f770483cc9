"""PLACEHOLDER: replaced by the module that implements these routes."""

from __future__ import annotations

from pixops.engine.http import ApiError, Reply
from pixops.engine.routing import Context


def submit_defense(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "submit_defense is being built"})


def list_cases(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "list_cases is being built"})


def get_case(ctx: Context) -> Reply:
    raise ApiError(501, {"worked": False, "detail": "get_case is being built"})
