"""Statement items: one flat shape for every row, with its display status (`_status`)."""

from __future__ import annotations

from typing import Final

from pixops import participants
from pixops.engine.clock import db_to_wire
from pixops.engine.http import JSONObject
from pixops.engine.queries._shapes import _inbound_only, _net_base, _outbound_only
from pixops.engine.queries._status import statement_status
from pixops.engine.rows import TransactionRow
from pixops.ids import hex_to_uuid

#: Statement `type` of each transaction type: a received return is still a PIX.
STATEMENT_TYPE: Final = {"pix": "pix", "pix_return": "pix"}


def statement_item(row: TransactionRow, *, with_tag: bool = False) -> JSONObject:
    display, payment_status = statement_status(row)
    item: JSONObject = {
        "id": hex_to_uuid(row.id),
        "transaction_id": row.transaction_id,
        "end_to_end_id": row.end_to_end_id,
        "external_id": row.external_id,
        "type": STATEMENT_TYPE.get(row.type, row.type),
        "status": display,
        "payment_status": payment_status,
        "amount": row.amount_base,
        "fee_amount": row.fee_base,
        "net_amount": _net_base(row),
        # The spec types these two as plain strings in the statement (not "or null").
        "description": row.description or "",
        "direction": row.direction,
        "counterparty_name": row.counterparty_name or "",
        "recipient_key": _outbound_only(row, row.recipient_key),
        "payer_document": _inbound_only(row, row.payer_document),
        "recipient_document": _outbound_only(row, row.recipient_document),
        "payer_ispb": _inbound_only(row, row.payer_ispb),
        "payer_bank_name": _inbound_only(row, participants.bank_name(row.payer_ispb)),
        "created_at": db_to_wire(row.created_at),
        "completed_at": None if payment_status == "processing" else db_to_wire(row.completed_at),
    }
    if with_tag:
        item["tag"] = row.tag
    return item
