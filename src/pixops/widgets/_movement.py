"""`Movement`: any of a transaction's five shapes (or a statement row) with its fields by
name, None where the shape has none, so the inspector reads one type whatever the
service answered. Built from the client's models field by field: a field renamed in the
schema is an error `mypy --strict` reports here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pixops.schema import (
    FailedInbound,
    OutboundInFlight,
    QrCharge,
    QrFallback,
    SettledTransaction,
    StatementItem,
    Transaction,
)

__all__ = ["Movement", "movement_of"]


@dataclass(frozen=True)
class Movement:
    """A transaction or statement row, every shape's fields in one type."""

    transaction_id: str
    type: str
    direction: str
    status: str
    amount: int
    payment_status: str | None = None
    fee_amount: int | None = None
    net_amount: int | None = None
    end_to_end_id: str | None = None
    external_id: str | None = None
    tag: str | None = None
    description: str | None = None
    counterparty_name: str | None = None
    original_transaction_id: str | None = None
    reason_code: str | None = None
    reason_description: str | None = None
    payer_bank_name: str | None = None
    recipient_bank_name: str | None = None
    #: When it began (a failed credit's ``started_at``).
    created_at: datetime | None = None
    completed_at: datetime | None = None
    failed_at: datetime | None = None

    @property
    def is_qr(self) -> bool:
        """A QR code charge (its shape, not the payment that paid it)."""
        return self.type == "pix_qrcode"


def movement_of(record: Transaction | StatementItem) -> Movement:
    """A record of any shape, or a statement row, as a `Movement`."""
    if isinstance(record, SettledTransaction | QrFallback):
        return Movement(
            record.transaction_id,
            record.type,
            record.direction,
            record.status,
            int(record.amount),
            fee_amount=int(record.fee_amount),
            net_amount=int(record.net_amount),
            end_to_end_id=record.end_to_end_id,
            external_id=record.external_id,
            tag=record.tag,
            description=record.description,
            counterparty_name=record.counterparty_name,
            original_transaction_id=record.original_transaction_id,
            payer_bank_name=record.payer_bank_name,
            created_at=record.created_at,
            completed_at=record.completed_at,
        )
    if isinstance(record, FailedInbound):
        return Movement(
            record.transaction_id,
            record.type,
            record.direction,
            record.status,
            int(record.amount),
            payment_status=record.payment_status,
            fee_amount=int(record.fee_amount),
            end_to_end_id=record.end_to_end_id,
            external_id=record.external_id,
            reason_code=record.reason_code,
            reason_description=record.reason_description,
            created_at=record.started_at,
            failed_at=record.failed_at,
        )
    if isinstance(record, OutboundInFlight):
        return Movement(
            record.transaction_id,
            record.type,
            record.direction,
            record.status,
            int(record.amount),
            payment_status=record.payment_status,
            fee_amount=int(record.fee_amount),
            net_amount=int(record.net_amount),
            end_to_end_id=record.end_to_end_id,
            external_id=record.external_id,
            tag=record.tag,
            description=record.description,
            counterparty_name=record.counterparty_name,
            original_transaction_id=record.original_transaction_id,
            reason_code=record.reason_code,
            reason_description=record.reason_description,
            recipient_bank_name=record.recipient_bank_name,
            created_at=record.created_at,
            failed_at=record.failed_at,
        )
    if isinstance(record, QrCharge):
        return Movement(
            record.transaction_id,
            record.type,
            record.direction,
            record.status,
            int(record.amount),
            description=record.description,
            created_at=record.created_at,
            completed_at=record.completed_at,
        )
    return Movement(
        record.transaction_id,
        record.type,
        record.direction,
        record.status,
        int(record.amount),
        payment_status=record.payment_status,
        fee_amount=int(record.fee_amount),
        net_amount=int(record.net_amount),
        end_to_end_id=record.end_to_end_id,
        external_id=record.external_id,
        tag=record.tag,
        description=record.description,
        counterparty_name=record.counterparty_name,
        payer_bank_name=record.payer_bank_name,
        created_at=record.created_at,
        completed_at=record.completed_at,
    )
