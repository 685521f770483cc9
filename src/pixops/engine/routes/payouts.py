"""`POST /pix/cash-out`: validate the body field by field, then hand over to `pix.payouts`.

Order of checks (the first failure answers): body is an object; amount; pix_key
present and a string; pix_key_type; the key's format (ambiguous 11 digits is 422
Format A); description; external_id (an invalid one is dropped, never refused);
recipient_ispb (format, then same institution); end_to_end_id; purpose. Then the
domain checks ceiling, balance and the directory.
"""

from __future__ import annotations

import re
from typing import Any, Final

from pixops import limits
from pixops.engine.config import EngineConfig
from pixops.engine.errors import PaymentRefusedError
from pixops.engine.http import Reply, bad_request, payment_rejection
from pixops.engine.pix import payouts
from pixops.engine.routing import Context
from pixops.engine.rows import TransactionRow
from pixops.ids import end_to_end_parts, is_strict_end_to_end_id
from pixops.money import CENTAVO_IN_BASE, INT64_MAX
from pixops.pixkeys import (
    AmbiguousPixKeyError,
    PixKeyError,
    PixKeyType,
    detect_key_type,
    normalize_key,
)

MAX_AMOUNT_CENTAVOS: Final = INT64_MAX // CENTAVO_IN_BASE
_EXTERNAL_ID: Final = re.compile(r"[a-zA-Z0-9._:-]+")
_ISPB: Final = re.compile(r"[0-9]{8}")
_KEY_TYPES: Final = frozenset(key_type.value for key_type in PixKeyType)
_AMBIGUOUS_MESSAGE: Final = (
    "The PIX key has 11 digits and may be a CPF or a phone number. Call POST /cpf/validate "
    'with the digits: if data.valid is true send pix_key_type "cpf", otherwise send '
    '"phone".'
)
_DETAILS: Final = {
    "processing": "PIX transfer accepted; the outcome arrives by webhook "
    "(pix.payout.confirmed, pix.payout.rejected or pix.payout.failed)",
    "settled": "PIX transfer settled",
    "queued": "DICT lookup limit reached; the transfer is queued and retried automatically",
    "pending_approval": "PIX transfer awaiting dual-control approval in the merchant portal",
}
_WIRE_STATUS: Final = {"processing": "accepted"}


def create_payout(ctx: Context) -> Reply:
    request = parse_request(ctx.body(), ctx.engine.config)
    try:
        row = payouts.create_payout(ctx.engine, ctx.conn, ctx.merchant_id, request, ctx.now)
    except PaymentRefusedError as refusal:
        raise payment_rejection(
            refusal.status, refusal.code, refusal.message, refusal.params
        ) from None
    return render(row, ctx.engine.config)


def parse_request(body: dict[str, Any], config: EngineConfig) -> payouts.PayoutRequest:
    amount = body.get("amount")
    if (
        isinstance(amount, bool)
        or not isinstance(amount, int)
        or not 1 <= amount <= MAX_AMOUNT_CENTAVOS
    ):
        raise bad_request("invalid or missing amount")
    pix_key, pix_key_type = _key(body)
    description = _description(body)
    external_id = _external_id(body.get("external_id"))
    recipient_ispb = body.get("recipient_ispb")
    if recipient_ispb is not None:
        if not isinstance(recipient_ispb, str) or _ISPB.fullmatch(recipient_ispb) is None:
            raise bad_request("invalid recipient_ispb")
        if recipient_ispb == config.service_ispb:
            raise payment_rejection(
                422,
                "same_institution_transfer",
                "recipient_ispb is this institution's own code; internal PIX is not supported",
                [],
            )
    end_to_end_id = body.get("end_to_end_id")
    if end_to_end_id is not None and not _own_end_to_end_id(end_to_end_id, config.service_ispb):
        raise bad_request("invalid end_to_end_id")
    return payouts.PayoutRequest(
        amount_centavos=amount,
        pix_key=pix_key,
        pix_key_type=pix_key_type,
        description=description,
        external_id=external_id,
        recipient_ispb=recipient_ispb,
        end_to_end_id=end_to_end_id,
        purpose=_purpose(body),
    )


def _own_end_to_end_id(value: object, service_ispb: str) -> bool:
    """A payer-chosen e2e must be in the central bank's layout, issued by this institution."""
    if not is_strict_end_to_end_id(value):
        return False
    assert isinstance(value, str)
    return end_to_end_parts(value).ispb == service_ispb


def _key(body: dict[str, Any]) -> tuple[str, str]:
    """The canonical key and its type, or the refusal of the key fields."""
    pix_key = body.get("pix_key")
    if pix_key is None:
        raise bad_request("pix_key is required")
    if not isinstance(pix_key, str) or not 1 <= len(pix_key) <= limits.PIX_KEY_MAX_CHARS:
        raise bad_request("invalid pix_key")
    declared = body.get("pix_key_type")
    if declared is not None and (not isinstance(declared, str) or declared not in _KEY_TYPES):
        raise bad_request("invalid pix_key_type")
    try:
        key_type = PixKeyType(declared) if declared is not None else detect_key_type(pix_key)
        return normalize_key(pix_key, key_type), key_type.value
    except AmbiguousPixKeyError:
        raise payment_rejection(
            422, "pix_key_ambiguous", _AMBIGUOUS_MESSAGE, {"candidates": ["cpf", "phone"]}
        ) from None
    except PixKeyError:
        raise bad_request("invalid pix_key") from None


def _description(body: dict[str, Any]) -> str | None:
    description = body.get("description")
    if description is None:
        return None
    if not isinstance(description, str):
        raise bad_request("invalid description")
    if len(description) > limits.DESCRIPTION_MAX_CHARS:
        raise bad_request(f"description must be at most {limits.DESCRIPTION_MAX_CHARS} characters")
    return description


def _external_id(value: object) -> str | None:
    """The trimmed external_id, or None: an invalid value is dropped, never refused."""
    if not isinstance(value, str):
        return None
    trimmed = value.strip()
    if len(trimmed) > limits.EXTERNAL_ID_MAX_CHARS or _EXTERNAL_ID.fullmatch(trimmed) is None:
        return None
    return trimmed


def _purpose(body: dict[str, Any]) -> str | None:
    purpose = body.get("purpose")
    if purpose is None:
        return None
    if not isinstance(purpose, str) or len(purpose) > limits.PURPOSE_MAX_CHARS:
        raise bad_request(
            f"purpose must be a string of at most {limits.PURPOSE_MAX_CHARS} characters"
        )
    return purpose


def render(row: TransactionRow, config: EngineConfig) -> Reply:
    """The cash-out response of the row's current status."""
    status = row.status
    amount_base = int(row.amount_base)
    fee_base = int(row.fee_base)
    body: dict[str, Any] = {
        "worked": True,
        "final": status == "settled",
        "transaction_id": row.transaction_id,
        "end_to_end_id": row.end_to_end_id,
        "external_id": row.external_id,
        "amount": amount_base,
        "fee_amount": fee_base,
        "net_amount": amount_base + fee_base,
        "status": _WIRE_STATUS.get(status, status),
        "detail": _DETAILS[status],
    }
    if status == "queued":
        body.update(
            {
                "type": "pix",
                "outbound_request_id": row.outbound_request_id,
                "message": f"{row.reason_description}; retried automatically every "
                f"{config.queue_retry_seconds} s for up to {config.queue_ttl_seconds} s",
                "reason_code": row.reason_code,
                "estimated_retry_seconds": config.queue_retry_seconds,
                "queue_ttl_seconds": config.queue_ttl_seconds,
            }
        )
    return Reply(200 if status == "settled" else 202, body)
