"""The endpoint table of the spec: 19 routes, each a small function in its group's module.

A route takes no query parameters unless its entry names them (`query=`): the pipeline
refuses any other with a 400 before the handler runs, on every route."""

from __future__ import annotations

from pixops.engine.queries import LIST_PARAMETERS, PAGE_PARAMETERS
from pixops.engine.routes import (
    account,
    charges,
    keys,
    med,
    payouts,
    refunds,
    statement,
    transactions,
    webhooks,
)
from pixops.engine.routing import Route

ROUTES: list[Route] = [
    Route.make("POST", "/pix/cash-in", "pix:write", charges.create_charge),
    Route.make("POST", "/pix/cash-out", "transfer:write", payouts.create_payout),
    Route.make("POST", "/pix/refund", "payment:write", refunds.create_refund),
    Route.make("POST", "/med/:id/defense", "payment:write", med.submit_defense),
    Route.make("POST", "/cpf/validate", "account:read", account.validate_cpf),
    Route.make("POST", "/webhooks", "account:write", webhooks.create_webhook),
    Route.make("GET", "/webhooks", "account:read", webhooks.list_webhooks),
    Route.make("DELETE", "/webhooks/:id", "account:write", webhooks.delete_webhook),
    # The spec: no rate limiter on GET /balance (high-frequency polling allowed).
    Route.make("GET", "/balance", "account:read", account.get_balance, rate_limited=False),
    Route.make(
        "GET",
        "/transactions",
        "transfer:read",
        transactions.list_transactions,
        query=LIST_PARAMETERS,
    ),
    Route.make("GET", "/transactions/e2e/:e2e_id", "transfer:read", transactions.by_end_to_end),
    Route.make(
        "GET", "/transactions/tag/:tag", "transfer:read", transactions.by_tag, query=PAGE_PARAMETERS
    ),
    Route.make(
        "GET",
        "/transactions/ref/:external_id",
        "transfer:read",
        transactions.by_external_id,
        query=PAGE_PARAMETERS,
    ),
    Route.make("GET", "/transactions/:id/receipt", "transfer:read", transactions.receipt),
    Route.make("GET", "/transactions/:id", "transfer:read", transactions.get_transaction),
    Route.make("GET", "/pix/keys", "pix:read", keys.list_keys),
    Route.make("GET", "/med", "payment:read", med.list_cases, query=med.LIST_PARAMETERS),
    Route.make("GET", "/med/:id", "payment:read", med.get_case),
    Route.make(
        "GET", "/statement", "statement:read", statement.get_statement, query=LIST_PARAMETERS
    ),
]
