"""`GET /balance` and `POST /cpf/validate`."""

from __future__ import annotations

from pixops import limits
from pixops.documents import is_valid_cpf, only_digits
from pixops.engine import ledger
from pixops.engine.clock import to_wire
from pixops.engine.http import Reply, bad_request
from pixops.engine.routing import Context


def get_balance(ctx: Context) -> Reply:
    figures = ledger.balance(ctx.conn, ctx.merchant_id)
    return Reply(
        200,
        {
            "worked": True,
            "data": {
                "balance": figures.ledger_base,
                "available_balance": figures.available_base,
                "held_amount": figures.held_base,
                "blocked_amount": figures.blocked_base,
                "safe_balance": figures.safe_base,
                "currency": "BRL",
                "as_of": to_wire(ctx.now),
            },
        },
    )


def validate_cpf(ctx: Context) -> Reply:
    body = ctx.body()
    cpf = body.get("cpf")
    if cpf is None:
        raise bad_request({"cpf": ["is required"]})
    if not isinstance(cpf, str):
        raise bad_request({"cpf": ["must be a string"]})
    stripped = cpf.strip()
    if len(stripped) > limits.CPF_INPUT_MAX_CHARS:
        raise bad_request({"cpf": [f"must be at most {limits.CPF_INPUT_MAX_CHARS} characters"]})
    digits = only_digits(stripped) if set(stripped) <= set("0123456789.- ") else stripped
    valid = len(digits) == 11 and is_valid_cpf(digits)
    return Reply(200, {"worked": True, "data": {"cpf": digits, "valid": valid}})
