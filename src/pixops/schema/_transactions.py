"""What `GET /transactions/...` and `GET /statement` answer.

One record answers in one of five shapes (spec, Resources), a discriminated union
told apart by its fields: `SettledTransaction` (the default shape), `FailedInbound`,
`OutboundInFlight` (the cash-out query shape: processing, rejected or failed),
`QrCharge` (the reduced QR-derived shape) and `QrFallback` (a paid QR whose credit
row is not stored yet). Statement and list rows are one flat `StatementItem`.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Final, Literal, get_args

from pydantic import Discriminator, Field, Tag

from pixops.schema._base import Envelope, WireModel
from pixops.schema._money import Amount
from pixops.schema._time import UtcDateTime

__all__ = [
    "FINAL_STATUSES",
    "STATUS_FILTERS",
    "TYPE_FILTERS",
    "FailedInbound",
    "FailedRecipient",
    "OutboundInFlight",
    "QrCharge",
    "QrFallback",
    "Receipt",
    "ReceiptParty",
    "ReceiptResponse",
    "SettledTransaction",
    "StatementItem",
    "StatementPage",
    "StatusFilter",
    "Transaction",
    "TransactionPage",
    "TransactionResponse",
    "TransactionsPage",
    "TypeFilter",
    "transaction_shape",
]

StatusFilter = Literal["settled", "rejected", "failed", "processing"]
TypeFilter = Literal["pix", "ted", "internal"]
#: The statement's `status` and `type` filter values (spec, GET /statement).
STATUS_FILTERS: Final[tuple[str, ...]] = get_args(StatusFilter)
TYPE_FILTERS: Final[tuple[str, ...]] = get_args(TypeFilter)
#: A transaction is final when it can no longer change (spec, States and transitions).
FINAL_STATUSES = frozenset({"settled", "failed", "rejected", "expired", "cancelled"})


class _Record(WireModel):
    transaction_id: str
    amount: Amount

    @property
    def is_final(self) -> bool:
        """True when no later state can follow."""
        return str(getattr(self, "status", "")) in FINAL_STATUSES


class SettledTransaction(_Record):
    """The default shape: a settled movement (received, sent or a received return)."""

    shape: ClassVar[str] = "settled"
    id: str = Field(description="32 lowercase hex characters")
    end_to_end_id: str | None = None
    external_id: str | None = None
    tag: str | None = None
    type: Literal["pix", "pix_return"]
    status: Literal["settled"]
    fee_amount: Amount
    net_amount: Amount
    description: str | None = None
    direction: Literal["inbound", "outbound"]
    counterparty_name: str | None = None
    payer_document: str | None = None
    recipient_document: str | None = None
    recipient_key: str | None = None
    payer_ispb: str | None = None
    payer_bank_name: str | None = None
    original_transaction_id: str | None = None
    created_at: UtcDateTime
    completed_at: UtcDateTime | None = None


class FailedRecipient(WireModel):
    name: str | None = None
    key: str | None = None


class FailedInbound(_Record):
    """A credit the account refused (limit, blocked, duplicate, central-bank rejection)."""

    shape: ClassVar[str] = "failed_inbound"
    status: Literal["failed"]
    end_to_end_id: str | None = None
    fee_amount: Amount
    external_id: str | None = None
    type: Literal["pix", "pix_return"]
    direction: Literal["inbound"]
    payment_status: Literal["failed"]
    failure_reason: str
    reason_code: str | None = Field(None, description="central-bank code, e.g. AC03, AM02")
    reason_description: str | None = None
    started_at: UtcDateTime
    failed_at: UtcDateTime | None = None
    recipient: FailedRecipient


class OutboundInFlight(_Record):
    """The cash-out query shape: an outbound movement in flight, rejected or failed."""

    shape: ClassVar[str] = "outbound"
    id: str = Field(description="UUID")
    end_to_end_id: str | None = None
    external_id: str | None = None
    tag: str | None = None
    type: Literal["pix", "pix_return"]
    direction: Literal["outbound"]
    status: Literal["processing", "failed"]
    payment_status: Literal["processing", "rejected", "failed"]
    fee_amount: Amount
    net_amount: Amount
    description: str | None = None
    counterparty_name: str | None = None
    recipient_document: str | None = None
    recipient_key: str | None = None
    recipient_key_type: str | None = None
    recipient_ispb: str | None = None
    recipient_bank_name: str | None = None
    original_transaction_id: str | None = None
    outbound_request_id: str | None = None
    reason_code: str | None = Field(None, description="central-bank or DICT_ code")
    reason_description: str | None = None
    created_at: UtcDateTime
    completed_at: None = None
    failed_at: UtcDateTime | None = None

    @property
    def is_final(self) -> bool:
        return self.status == "failed"


class QrCharge(_Record):
    """The reduced QR-derived shape: a charge not paid (pending, expired, cancelled)."""

    shape: ClassVar[str] = "qr"
    id: str = Field(description="UUID")
    status: Literal["pending", "expired", "cancelled", "settled"]
    description: str | None = None
    recipient_key: str | None = None
    type: Literal["pix_qrcode"]
    direction: Literal["credit"]
    counterparty_name: None = None
    created_at: UtcDateTime
    completed_at: UtcDateTime | None = None


class QrFallback(_Record):
    """A paid QR whose credit row is not stored yet: what the payment notice said."""

    shape: ClassVar[str] = "qr_fallback"
    id: str = Field(description="UUID")
    end_to_end_id: str | None = None
    external_id: str | None = None
    tag: str | None = None
    type: Literal["pix_qrcode"]
    status: Literal["settled"]
    fee_amount: Amount
    net_amount: Amount
    description: str | None = None
    direction: Literal["inbound"]
    counterparty_name: str | None = None
    payer_document: str | None = None
    recipient_document: str | None = None
    recipient_key: str | None = None
    payer_ispb: str | None = None
    payer_bank_name: str | None = None
    original_transaction_id: str | None = None
    created_at: UtcDateTime
    completed_at: UtcDateTime | None = None


def transaction_shape(value: Any) -> str:
    """Which of the five shapes a record (a dict or a model) is."""

    def get(name: str) -> Any:
        if isinstance(value, dict):
            return value.get(name)
        return getattr(value, name, None)

    kind, status, direction = get("type"), get("status"), get("direction")
    if kind == "pix_qrcode":
        return "qr" if direction == "credit" else "qr_fallback"
    if direction == "outbound" and status != "settled":
        return "outbound"
    if direction == "inbound" and status == "failed":
        return "failed_inbound"
    return "settled"


Transaction = Annotated[
    Annotated[SettledTransaction, Tag("settled")]
    | Annotated[FailedInbound, Tag("failed_inbound")]
    | Annotated[OutboundInFlight, Tag("outbound")]
    | Annotated[QrCharge, Tag("qr")]
    | Annotated[QrFallback, Tag("qr_fallback")],
    Discriminator(transaction_shape),
]
"""Any answer of `GET /transactions/:id`; check `isinstance` or `.shape`."""


class TransactionResponse(Envelope):
    data: Transaction


class TransactionPage(Envelope):
    """`GET /transactions/tag/:tag` and `/ref/:external_id`: every shape, newest first."""

    data: list[Transaction]
    page: int = Field(ge=1)
    per_page: int = Field(ge=1)


class StatementItem(WireModel):
    """A row of `GET /statement` (and of `GET /transactions`, which adds `tag`)."""

    id: str = Field(description="UUID")
    transaction_id: str
    end_to_end_id: str | None = None
    external_id: str | None = None
    tag: str | None = Field(None, description="GET /transactions only")
    type: TypeFilter
    status: str = Field(description="display status: completed, pending, rejected, failed")
    payment_status: StatusFilter | None = Field(None, description="the filter value")
    amount: Amount
    fee_amount: Amount
    net_amount: Amount = Field(
        description="outbound amount + fee (total debit); inbound amount - fee"
    )
    description: str | None = None
    direction: Literal["inbound", "outbound"]
    counterparty_name: str | None = None
    recipient_key: str | None = None
    payer_document: str | None = None
    recipient_document: str | None = None
    payer_ispb: str | None = None
    payer_bank_name: str | None = None
    created_at: UtcDateTime
    completed_at: UtcDateTime | None = None

    @property
    def in_flight(self) -> bool:
        """An outbound movement page 1 adds while it is still processing."""
        return self.payment_status == "processing"


class StatementPage(Envelope):
    data: list[StatementItem]
    page: int = Field(ge=1)
    per_page: int = Field(ge=1)


TransactionsPage = StatementPage
"""`GET /transactions` answers statement rows (with `tag`)."""


class ReceiptParty(WireModel):
    name: str | None = None
    document: str | None = Field(None, description="CPF masked as ***.123.456-**")
    key: str | None = None
    ispb: str | None = None
    bank_name: str | None = None


class Receipt(WireModel):
    """The proof of a settled movement."""

    receipt_id: str
    transaction_id: str
    end_to_end_id: str | None = None
    external_id: str | None = None
    type: str | None = None
    direction: Literal["inbound", "outbound"] | None = None
    status: Literal["settled"] | None = None
    amount: Amount
    fee_amount: Amount | None = None
    net_amount: Amount | None = None
    description: str | None = None
    original_transaction_id: str | None = None
    payer: ReceiptParty | None = None
    recipient: ReceiptParty | None = None
    created_at: UtcDateTime | None = None
    completed_at: UtcDateTime | None = None
    authentication_code: str = Field(
        pattern="^[0-9a-f]{64}$",
        description="SHA-256 hex of the receipt's canonical JSON without this field",
    )


class ReceiptResponse(Envelope):
    data: Receipt
