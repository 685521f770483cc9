"""The endpoint table of the spec: 19 routes, each a small function in its own module."""

from __future__ import annotations

from pixops.engine.routes import account
from pixops.engine.routing import Route

ROUTES: list[Route] = [
    Route.make("GET", "/balance", "account:read", account.get_balance),
    Route.make("POST", "/cpf/validate", "account:read", account.validate_cpf),
]
