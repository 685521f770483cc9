"""Receipts: the proof of a settled movement, verifiable by its authentication code."""

from __future__ import annotations

import hashlib

from pixops import participants, wire
from pixops.engine.clock import db_to_wire
from pixops.engine.config import SERVICE_NAME
from pixops.engine.http import JSONObject
from pixops.engine.queries._shapes import _net_base, mask_document
from pixops.engine.rows import MerchantRow, TransactionRow


def receipt(row: TransactionRow, merchant: MerchantRow, service_ispb: str) -> JSONObject:
    """The proof of a settled movement; identical on every fetch.

    `authentication_code` is the SHA-256 of the receipt's canonical JSON without
    the code, so anyone holding the receipt can check that no field was altered.
    """
    merchant_party = {
        "name": merchant.name,
        "document": mask_document(merchant.document),
        "ispb": service_ispb,
        "bank_name": SERVICE_NAME,
    }
    inbound_row = row.direction == "inbound"
    if inbound_row:
        payer = {
            "name": row.counterparty_name,
            "document": mask_document(row.payer_document),
            "ispb": row.payer_ispb,
            "bank_name": participants.bank_name(row.payer_ispb),
        }
        recipient = {**merchant_party, "key": row.recipient_key}
    else:
        payer = merchant_party
        recipient = {
            "name": row.counterparty_name,
            "document": mask_document(row.recipient_document),
            "key": row.recipient_key,
            "ispb": row.recipient_ispb,
            "bank_name": participants.bank_name(row.recipient_ispb),
        }
    data: JSONObject = {
        "receipt_id": "rcpt_" + row.id,
        "transaction_id": row.transaction_id,
        "end_to_end_id": row.end_to_end_id,
        "external_id": row.external_id,
        "type": row.type,
        "direction": row.direction,
        "status": row.status,
        "amount": row.amount_base,
        "fee_amount": row.fee_base,
        "net_amount": _net_base(row),
        "description": row.description,
        "original_transaction_id": row.original_transaction_id,
        "payer": payer,
        "recipient": recipient,
        "created_at": db_to_wire(row.created_at),
        "completed_at": db_to_wire(row.completed_at),
    }
    data["authentication_code"] = hashlib.sha256(wire.canonical_json(data)).hexdigest()
    return data
