"""`POST /pix/cash-in`: create a charge (a dynamic QR code) for the merchant to show.

Request (amounts in centavos, like cash-out): `amount` (required), `description`,
`expires_in` (seconds), `external_id`, `tag`, `payer` ({name, document}). Every bad
field is reported at once: `{worked: false, errors: {bad_request: {field: [msg]}}}`.
Answers HTTP 201 with the charge, like the central bank's cob API.
"""

from __future__ import annotations

import re
from typing import Any, Final

from pixops import limits
from pixops.engine.clock import db_to_wire, from_db
from pixops.engine.http import Reply, bad_request, unprocessable
from pixops.engine.merchants import require_merchant
from pixops.engine.pix import charges
from pixops.engine.pix.records import EXTERNAL_ID_PATTERN, TAG_PATTERN
from pixops.engine.routing import Context
from pixops.engine.rows import ChargeRow
from pixops.engine.world.payers import PayerError, normalize_document
from pixops.money import centavos_to_base, format_brl_base

MAX_AMOUNT_CENTAVOS: Final = limits.CASH_IN_AMOUNT_MAX_CENTAVOS
MIN_EXPIRES_IN: Final = limits.CASH_IN_EXPIRES_IN_MIN_SECONDS
MAX_EXPIRES_IN: Final = limits.CASH_IN_EXPIRES_IN_MAX_SECONDS
FIELDS: Final = frozenset({"amount", "description", "expires_in", "external_id", "tag", "payer"})
PAYER_FIELDS: Final = frozenset({"name", "document"})


class _Errors:
    def __init__(self) -> None:
        self.by_field: dict[str, list[str]] = {}

    def add(self, field: str, message: str) -> None:
        self.by_field.setdefault(field, []).append(message)


def create_charge(ctx: Context) -> Reply:
    request = parse_request(ctx.body())
    merchant = require_merchant(ctx.conn, ctx.merchant_id)
    amount_base = centavos_to_base(request.amount_centavos)
    if amount_base > merchant.ceiling_base:
        raise unprocessable(
            f"amount {format_brl_base(amount_base)} exceeds the account's per-transaction "
            f"limit of {format_brl_base(merchant.ceiling_base)}"
        )
    charge = charges.create_charge(ctx.engine, ctx.conn, merchant, request, ctx.now)
    return Reply(201, {"worked": True, "data": charge_body(charge)})


def charge_body(charge: ChargeRow) -> dict[str, Any]:
    lifetime = from_db(charge.expires_at) - from_db(charge.created_at)
    payer = None
    if charge.debtor_name is not None:
        payer = {"name": charge.debtor_name, "document": charge.debtor_document}
    return {
        "transaction_id": charge.txid,
        "tx_id": charge.txid,
        "type": "pix_qrcode",
        "status": "pending",
        "amount": charge.amount_base,
        "description": charge.description,
        "external_id": charge.external_id,
        "tag": charge.tag,
        "recipient_key": charge.pix_key,
        "payer": payer,
        "brcode": charge.brcode,
        "location": charges.location_of(charge.txid),
        "expires_in": int(lifetime.total_seconds()),
        "created_at": db_to_wire(charge.created_at),
        "expires_at": db_to_wire(charge.expires_at),
    }


def parse_request(body: dict[str, Any]) -> charges.ChargeRequest:
    """The validated request, or a 400 listing every problem."""
    errors = _Errors()
    for name in sorted(set(body) - FIELDS):
        errors.add(name, "is not a known field")
    amount = _amount(body.get("amount"), errors)
    description = _description(body.get("description"), errors)
    expires_in = _expires_in(body.get("expires_in"), errors)
    external_id = _reference(
        body.get("external_id"),
        "external_id",
        EXTERNAL_ID_PATTERN,
        limits.EXTERNAL_ID_MAX_CHARS,
        errors,
    )
    tag = _reference(body.get("tag"), "tag", TAG_PATTERN, limits.TAG_MAX_CHARS, errors)
    debtor_name, debtor_document = _payer(body.get("payer"), errors)
    if errors.by_field:
        raise bad_request(errors.by_field)
    assert amount is not None
    return charges.ChargeRequest(
        amount_centavos=amount,
        description=description,
        expires_in_seconds=expires_in,
        external_id=external_id,
        tag=tag,
        debtor_name=debtor_name,
        debtor_document=debtor_document,
    )


def _amount(value: Any, errors: _Errors) -> int | None:
    if value is None:
        errors.add("amount", "is required")
    elif isinstance(value, bool) or not isinstance(value, int):
        errors.add("amount", "must be an integer number of centavos")
    elif value < 1:
        errors.add("amount", "must be greater than 0")
    elif value > MAX_AMOUNT_CENTAVOS:
        errors.add("amount", f"must be at most {MAX_AMOUNT_CENTAVOS} centavos")
    else:
        return value
    return None


def _description(value: Any, errors: _Errors) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        errors.add("description", "must be a string")
    elif len(value) > limits.DESCRIPTION_MAX_CHARS:
        errors.add("description", f"must be at most {limits.DESCRIPTION_MAX_CHARS} characters")
    else:
        return value or None
    return None


def _expires_in(value: Any, errors: _Errors) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        errors.add("expires_in", "must be an integer number of seconds")
    elif not MIN_EXPIRES_IN <= value <= MAX_EXPIRES_IN:
        errors.add("expires_in", f"must be from {MIN_EXPIRES_IN} to {MAX_EXPIRES_IN} seconds")
    else:
        return value
    return None


def _reference(
    value: Any, field: str, pattern: re.Pattern[str], limit: int, errors: _Errors
) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        errors.add(field, "must be a string")
        return None
    trimmed = value.strip()
    if pattern.fullmatch(trimmed) is None:
        errors.add(
            field,
            f"must be 1 to {limit} characters of {limits.EXTERNAL_ID_ALPHABET}"
            " (after trimming spaces)",
        )
        return None
    return trimmed


def _payer(value: Any, errors: _Errors) -> tuple[str | None, str | None]:
    if value is None:
        return None, None
    if not isinstance(value, dict):
        errors.add("payer", "must be an object with name and document")
        return None, None
    for name in sorted(set(value) - PAYER_FIELDS):
        errors.add(f"payer.{name}", "is not a known field")
    name = value.get("name")
    document = value.get("document")
    clean_name: str | None = None
    clean_document: str | None = None
    if name is None:
        errors.add("payer.name", "is required")
    elif not isinstance(name, str) or not name.strip():
        errors.add("payer.name", "must be a non-empty string")
    elif len(name.strip()) > limits.PAYER_NAME_MAX_CHARS:
        errors.add("payer.name", f"must be at most {limits.PAYER_NAME_MAX_CHARS} characters")
    else:
        clean_name = name.strip()
    if document is None:
        errors.add("payer.document", "is required")
    else:
        try:
            clean_document = normalize_document(document)
        except PayerError:
            errors.add("payer.document", "must be a valid CPF or CNPJ")
    return clean_name, clean_document
