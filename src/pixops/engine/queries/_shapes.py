"""The read shapes of one record (spec, Resources): default, failed inbound, outbound in
flight or failed, reduced QR, QR fallback."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pixops import participants
from pixops.engine.clock import db_to_wire
from pixops.engine.http import JSONObject
from pixops.engine.pix import charges, inbound
from pixops.engine.queries._status import statement_status
from pixops.engine.rows import ChargeRow, MerchantRow, TransactionRow
from pixops.ids import hex_to_uuid


def _net_base(row: TransactionRow) -> int:
    """Outbound: the total debit (amount + fee). Inbound: the credit after the fee."""
    amount, fee = int(row.amount_base), int(row.fee_base)
    return amount + fee if row.direction == "outbound" else amount - fee


def _inbound_only(row: TransactionRow, value: Any) -> Any:
    return value if row.direction == "inbound" else None


def _outbound_only(row: TransactionRow, value: Any) -> Any:
    return value if row.direction == "outbound" else None


def mask_document(document: str | None) -> str | None:
    """A CPF as receipts print it (``***.982.247-**``); a CNPJ is public and shown whole."""
    if document is None or len(document) != 11:
        return document
    return f"***.{document[3:6]}.{document[6:9]}-**"


def default_shape(row: TransactionRow) -> JSONObject:
    return {
        "id": row.id,
        "transaction_id": row.transaction_id,
        "end_to_end_id": row.end_to_end_id,
        "external_id": row.external_id,
        "tag": row.tag,
        "type": row.type,
        "status": row.status,
        "amount": row.amount_base,
        "fee_amount": row.fee_base,
        "net_amount": _net_base(row),
        "description": row.description,
        "direction": row.direction,
        "counterparty_name": row.counterparty_name,
        "payer_document": _inbound_only(row, row.payer_document),
        "recipient_document": _outbound_only(row, row.recipient_document),
        "recipient_key": row.recipient_key,
        "payer_ispb": _inbound_only(row, row.payer_ispb),
        "payer_bank_name": _inbound_only(row, participants.bank_name(row.payer_ispb)),
        "original_transaction_id": row.original_transaction_id,
        "created_at": db_to_wire(row.created_at),
        "completed_at": db_to_wire(row.completed_at),
    }


def failed_inbound_shape(row: TransactionRow, merchant_name: str) -> JSONObject:
    return {
        "status": "failed",
        "transaction_id": row.transaction_id,
        "end_to_end_id": row.end_to_end_id,
        "amount": row.amount_base,
        "fee_amount": row.fee_base,
        "external_id": row.external_id,
        "type": row.type,
        "direction": "inbound",
        "payment_status": "failed",
        "failure_reason": row.failure_reason,
        "reason_code": row.reason_code,
        "reason_description": row.reason_description,
        "started_at": db_to_wire(row.created_at),
        "failed_at": db_to_wire(row.failed_at),
        "recipient": {"name": merchant_name, "key": row.recipient_key},
    }


def outbound_shape(row: TransactionRow) -> JSONObject:
    """The cash-out query shape of an outbound row in flight, rejected or failed."""
    _, payment_status = statement_status(row)
    return {
        "id": hex_to_uuid(row.id),
        "transaction_id": row.transaction_id,
        "end_to_end_id": row.end_to_end_id,
        "external_id": row.external_id,
        "tag": row.tag,
        "type": row.type,
        "direction": "outbound",
        "status": "processing" if payment_status == "processing" else "failed",
        "payment_status": payment_status,
        "amount": row.amount_base,
        "fee_amount": row.fee_base,
        "net_amount": _net_base(row),
        "description": row.description,
        "counterparty_name": row.counterparty_name,
        "recipient_document": row.recipient_document,
        "recipient_key": row.recipient_key,
        "recipient_key_type": row.recipient_key_type,
        "recipient_ispb": row.recipient_ispb,
        "recipient_bank_name": participants.bank_name(row.recipient_ispb),
        "original_transaction_id": row.original_transaction_id,
        "outbound_request_id": row.outbound_request_id,
        "reason_code": row.reason_code,
        "reason_description": row.reason_description,
        "created_at": db_to_wire(row.created_at),
        "completed_at": None,
        "failed_at": db_to_wire(row.failed_at),
    }


def qr_shape(charge: ChargeRow, now: datetime) -> JSONObject:
    """The reduced QR-derived shape of a charge not (yet) paid."""
    return {
        "id": hex_to_uuid(charge.id),
        "transaction_id": charge.txid,
        "amount": charge.amount_base,
        "status": charges.effective_status(charge, now),
        "description": charge.description,
        "recipient_key": charge.pix_key,
        "type": "pix_qrcode",
        "direction": "credit",
        "counterparty_name": None,
        "created_at": db_to_wire(charge.created_at),
        "completed_at": db_to_wire(charge.paid_at),
    }


def qr_fallback_shape(charge: ChargeRow, merchant: MerchantRow) -> JSONObject:
    """A paid charge whose credit row is not stored yet: what the payment notice told us."""
    amount_base = int(charge.amount_base)
    fee_base = inbound.cash_in_fee_base(merchant, amount_base)
    return {
        "id": hex_to_uuid(charge.id),
        "transaction_id": charge.txid,
        "end_to_end_id": charge.end_to_end_id,
        "external_id": charge.external_id,
        "tag": charge.tag,
        "type": "pix_qrcode",
        "status": "settled",
        "amount": amount_base,
        "fee_amount": fee_base,
        "net_amount": amount_base - fee_base,
        "description": charge.description,
        "direction": "inbound",
        "counterparty_name": charge.payer_name,
        "payer_document": charge.payer_document,
        "recipient_document": None,
        "recipient_key": charge.pix_key,
        "payer_ispb": charge.payer_ispb,
        "payer_bank_name": participants.bank_name(charge.payer_ispb),
        "original_transaction_id": None,
        "created_at": db_to_wire(charge.created_at),
        "completed_at": db_to_wire(charge.paid_at),
    }
