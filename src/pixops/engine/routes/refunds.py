"""`POST /pix/refund`: read the aliased fields, validate them, hand over to `pix.refunds`."""

from __future__ import annotations

from typing import Any, Final

from pixops import limits
from pixops.engine.errors import NotFoundError, RuleError
from pixops.engine.http import Reply, bad_request, not_found, unprocessable
from pixops.engine.pix import refunds
from pixops.engine.routing import Context
from pixops.money import CENTAVO_IN_BASE, INT64_MAX

#: Accepted names of the original's ID and of the reason, in the spec's order: first match wins.
ORIGINAL_ID_ALIASES: Final = (
    "original_transaction_id",
    "original_e2e_id",
    "originalTransactionId",
    "transaction_id",
    "end_to_end_id",
)
REASON_ALIASES: Final = ("reason", "return_code")
MAX_AMOUNT_CENTAVOS: Final = INT64_MAX // CENTAVO_IN_BASE
_DETAIL: Final = (
    "Refund accepted; the outcome arrives by webhook (pix.refund.completed or pix.payout.failed)"
)


def create_refund(ctx: Context) -> Reply:
    body = ctx.body()
    original_id = _original_id(body)
    amount = body.get("amount")
    if amount is not None and (
        isinstance(amount, bool)
        or not isinstance(amount, int)
        or not 1 <= amount <= MAX_AMOUNT_CENTAVOS
    ):
        raise bad_request("amount must be a positive integer number of centavos")
    reason = _first(body, REASON_ALIASES)
    if reason is not None and not isinstance(reason, str):
        raise bad_request("reason must be a string")
    if reason is not None and len(reason) > limits.REFUND_REASON_MAX_CHARS:
        raise bad_request(f"reason must be at most {limits.REFUND_REASON_MAX_CHARS} characters")
    description = body.get("description")
    if description is not None and not isinstance(description, str):
        raise bad_request("description must be a string")
    if description is not None and len(description) > limits.DESCRIPTION_MAX_CHARS:
        raise bad_request(f"description must be at most {limits.DESCRIPTION_MAX_CHARS} characters")
    try:
        row = refunds.request_refund(
            ctx.engine,
            ctx.conn,
            merchant_id=ctx.merchant_id,
            original_id=original_id,
            amount_centavos=amount,
            reason=refunds.DEFAULT_REASON if reason is None else reason,
            description=refunds.DEFAULT_DESCRIPTION if description is None else description,
            now=ctx.now,
        )
    except NotFoundError as missing:
        raise not_found(str(missing)) from None
    except RuleError as refusal:
        raise unprocessable(str(refusal)) from None
    return Reply(
        202,
        {
            "worked": True,
            "transaction_id": row.transaction_id,
            "end_to_end_id": row.end_to_end_id,
            "amount": int(row.amount_base),
            "status": "accepted",
            "detail": _DETAIL,
        },
    )


def _first(body: dict[str, Any], names: tuple[str, ...]) -> Any:
    """The value of the first alias present with a non-null value."""
    for name in names:
        value = body.get(name)
        if value is not None:
            return value
    return None


def _original_id(body: dict[str, Any]) -> str:
    value = _first(body, ORIGINAL_ID_ALIASES)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise bad_request("original_transaction_id is required")
    if not isinstance(value, str):
        raise bad_request("original_transaction_id must be a string")
    if len(value.strip()) > limits.TRANSACTION_ID_MAX_CHARS:
        raise bad_request(
            f"original_transaction_id must be at most {limits.TRANSACTION_ID_MAX_CHARS} characters"
        )
    return value.strip()
