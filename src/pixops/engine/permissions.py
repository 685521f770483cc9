"""The permission strings of the spec's Authentication section."""

from __future__ import annotations

from typing import Final

PERMISSIONS: Final = frozenset(
    {
        "pix:write",
        "pix:read",
        "transfer:write",
        "transfer:read",
        "payment:write",
        "payment:read",
        "account:write",
        "account:read",
        "statement:read",
    }
)

RECOMMENDED_SETS: Final = {
    "receive": ("pix:write", "transfer:read"),
    "send": ("transfer:write", "transfer:read"),
    "queries": ("transfer:read", "account:read", "statement:read"),
    "webhooks": ("account:write", "account:read"),
}
